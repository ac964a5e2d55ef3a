//! A manifest's say over progress: `[progress]` pins a state's share of its parent (a loop's
//! steps, which the layout would fold into one interval), and a side trip (`return`) holds
//! progress where it left; misuse is one line at its place.

use std::collections::HashMap;

use seed::dialects::{LoadError, Loaded, load_text};
use seed::engine::{Event, Facts, Machine, Phase, Snapshot};
use serde_json::json;

/// `work` is a retry loop of three steps (a check that finds work → back to draft); `side` a
/// trip.
const TOP: &str = "stateDiagram-v2
  [*] --> work
  state work {
    [*] --> draft
    draft --> build : Edit
    build --> check : Bash
    check --> draft : Grep
    check --> [*] : Write
  }
  work --> [*]
  state side {
    [*] --> look
    look --> [*] : Read
  }
";

fn manifest(body: &str) -> Result<Loaded, LoadError> {
    let files: HashMap<String, String> = [("top.mmd".to_string(), TOP.to_string())].into();
    let text = format!("name = \"flow\"\ndiagram = \"top.mmd\"\n{body}");
    load_text("flow.toml", &text, &|rel| files.get(rel).cloned())
}

struct Run {
    m: Machine,
    snap: Snapshot,
}

impl Run {
    fn new(body: &str) -> Run {
        let l = manifest(body).unwrap_or_else(|e| panic!("{e}"));
        let m = Machine::new(l.chart);
        let snap = m.start(&Facts::new());
        Run { m, snap }
    }
    fn on(&mut self, e: Event) -> f64 {
        self.m
            .step(&mut self.snap, Phase::Advance, &e, &Facts::new());
        self.m.progress(&self.snap).overall
    }
    fn at(&self) -> Vec<String> {
        self.m.status(&self.snap).current
    }
}

const PINS: &str =
    "[progress]\n\"work.draft\" = [0, 20]\n\"work.build\" = [20, 70]\n\"work.check\" = [70, 100]\n";

#[test]
fn a_loops_steps_take_the_shares_pinned_for_them() {
    // Without pins the loop is one interval: progress stands still until it is left.
    let mut r = Run::new("");
    let plain: Vec<f64> = [
        Event::tool("Edit", json!({})),
        Event::tool("Bash", json!({})),
    ]
    .into_iter()
    .map(|e| r.on(e))
    .collect();
    assert_eq!(plain[0], plain[1], "{plain:?}");

    let mut r = Run::new(PINS);
    assert_eq!(r.m.progress(&r.snap).overall, 0.0);
    assert_eq!(r.on(Event::tool("Edit", json!({}))), 20.0);
    assert_eq!(r.on(Event::tool("Bash", json!({}))), 70.0);
    // A check that finds more work goes round again: a new round, not a step forward.
    assert_eq!(r.on(Event::tool("Grep", json!({}))), 0.0);
    assert_eq!(r.m.progress(&r.snap).highest, 70.0);
    assert!(r.m.progress(&r.snap).in_loop, "still a loop");
}

#[test]
fn a_side_trip_keeps_the_progress_of_the_step_it_left() {
    let mut r = Run::new(&format!(
        "{PINS}\n[[bind]]\non = \"/peek\"\nenter = \"side\"\nreturn = true\n"
    ));
    r.on(Event::tool("Edit", json!({})));
    let built = r.on(Event::tool("Bash", json!({})));
    assert_eq!(r.on(Event::prompt("/peek")), built);
    assert_eq!(r.at(), ["side.look"]);
    assert_eq!(r.on(Event::tool("Read", json!({}))), built);
    assert_eq!(r.at(), ["work.check"], "back where it left");
    // Entered otherwise (no trip recorded), the state's own place counts.
    let mut r = Run::new(&format!(
        "{PINS}\n[[bind]]\non = \"/go\"\nenter = \"side\"\n"
    ));
    r.on(Event::tool("Edit", json!({})));
    r.on(Event::tool("Bash", json!({})));
    let went = r.on(Event::prompt("/go"));
    assert!(went < 70.0, "{went}");
}

#[test]
fn a_pin_that_is_no_share_of_a_parent_is_one_line_at_its_place() {
    for (pin, col, says) in [
        ("[50, 20]", 16, "0 ≤ lo < hi ≤ 100"),
        ("[0]", 16, "expected `[lo, hi]`"),
        ("[0, 20, 40]", 16, "expected `[lo, hi]`"),
        ("[-5, 20]", 16, "0 ≤ lo < hi ≤ 100"),
        ("[0, 101]", 16, "0 ≤ lo < hi ≤ 100"),
        ("[0, nan]", 16, "0 ≤ lo < hi ≤ 100"),
    ] {
        let e = manifest(&format!("[progress]\n\"work.draft\" = {pin}\n")).expect_err(pin);
        assert_eq!((e.line, e.col), (4, col), "{pin}: {e}");
        assert!(e.message.contains(says), "{pin}: {e}");
    }
    let e = manifest("[progress]\n\"work.nowhere\" = [0, 10]\n").expect_err("unknown");
    assert_eq!(e.line, 4, "{e}");
    assert!(e.message.contains("nowhere"), "{e}");
    let e = manifest("[progress]\n\"work.draft\" = \"half\"\n").expect_err("not a list");
    assert_eq!(e.line, 4, "{e}");
}
