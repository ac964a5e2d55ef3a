//! Manifest features added for seed 004 and 002: side trips (`return = true`) and readers that
//! aggregate a JSON list; each misuse is one clear line at its place in the manifest.

use seed::dialects::{LoadError, Loaded, load_text};
use seed::engine::ir::{ListOp, ReaderKind};
use seed::engine::{Decision, Event, Facts, Machine, Phase};
use serde_json::{Value, json};

const TOP: &str = "stateDiagram-v2
  [*] --> work
  state work {
    [*] --> edit
    edit --> test : Bash
    test --> [*] : Write
  }
  state side {
    [*] --> look
    look --> [*]
  }
  work --> [*]
";

fn manifest(body: &str) -> Result<Loaded, LoadError> {
    let text = format!("name = \"flow\"\ndiagram = \"top.mmd\"\n{body}");
    load_text("flow.toml", &text, &|rel| {
        (rel == "top.mmd").then(|| TOP.to_string())
    })
}

#[test]
fn a_side_trip_comes_back_to_the_state_it_left() {
    let l = manifest("[[bind]]\non = \"/peek\"\nenter = \"side\"\nreturn = true\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let m = Machine::new(l.chart);
    let f = Facts::new();
    let mut snap = m.start(&f);
    m.step(
        &mut snap,
        Phase::Advance,
        &Event::tool("Bash", json!({})),
        &f,
    );
    assert_eq!(m.status(&snap).current, vec!["work.test"]);
    m.step(&mut snap, Phase::Advance, &Event::prompt("/peek"), &f);
    assert_eq!(m.status(&snap).current, vec!["work.test"]);
    assert!(
        snap.visited
            .contains(&m.chart.find("side.look").expect("look"))
    );
    assert_eq!(snap.vars.get("side_return"), Some(&serde_json::Value::Null));
}

#[test]
fn a_side_trip_may_go_on_to_another_state_and_recovery_knows_the_way() {
    // work.edit: a review trip through `side`, then on to work.test.
    let l = manifest(
        "[[bind]]\non = \"/review\"\nfrom = \"work.edit\"\nenter = \"side\"\nreturn = \"work.test\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let m = Machine::new(l.chart);
    let f = Facts::new();
    let mut snap = m.start(&f);
    assert_eq!(m.status(&snap).current, vec!["work.edit"]);
    // Both ways on are known: Bash as drawn, or the review trip.
    let calls: Vec<String> = m
        .recovery(&snap, None)
        .next
        .into_iter()
        .map(|n| n.tool)
        .collect();
    assert!(calls.contains(&"/review".to_string()), "{calls:?}");
    m.step(&mut snap, Phase::Advance, &Event::prompt("/review"), &f);
    assert_eq!(m.status(&snap).current, vec!["work.test"]);
    assert!(
        snap.visited
            .contains(&m.chart.find("side.look").expect("look"))
    );
    assert_eq!(snap.vars.get("side_return"), Some(&serde_json::Value::Null));
    // A return to the state left stays available beside it (another event, another mark).
    let l = manifest(
        "[[bind]]\non = \"/peek\"\nenter = \"side\"\nreturn = true\n\n[[bind]]\non = \"/review\"\nfrom = \"work.edit\"\nenter = \"side\"\nreturn = \"work.test\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let m = Machine::new(l.chart);
    let mut snap = m.start(&f);
    m.step(&mut snap, Phase::Advance, &Event::prompt("/peek"), &f);
    assert_eq!(m.status(&snap).current, vec!["work.edit"]);
}

#[test]
fn side_trip_misuse_is_one_line() {
    let e = manifest("[[bind]]\non = \"/peek\"\nreturn = true\n").expect_err("no enter");
    assert_eq!(
        e.to_string(),
        "flow.toml:3:1: `return = true` needs `on` (the event) and `enter` (where the trip starts)"
    );
    for (body, msg) in [
        (
            "[[bind]]\non = \"/r\"\nenter = \"side\"\nreturn = \"work.test\"\n",
            "flow.toml:3:1: `return = \"work.test\"` needs `from`: the states the trip leaves",
        ),
        (
            "[[bind]]\non = \"/r\"\nfrom = \"work.edit\"\nenter = \"side\"\nreturn = \"side.look\"\n",
            "flow.toml:3:1: `return = \"side.look\"` must lead out of `side`",
        ),
        (
            "[[bind]]\non = \"/r\"\nfrom = \"work.edit\"\nenter = \"side\"\nreturn = \"nowhere\"\n",
            "flow.toml:3:1: no state `nowhere`: expected a state key such as `side.__final`",
        ),
    ] {
        assert_eq!(manifest(body).expect_err(body).to_string(), msg);
    }
}

#[test]
fn list_readers_load_and_their_misuse_is_one_line() {
    let l = manifest(
        "[readers.done]\nkind = \"json\"\npath = \"dna.json\"\npointer = \"/goals\"\nop = \"all\"\nfield = \"/achieved\"\nequals = true\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        l.chart.reader("done").map(|r| &r.kind),
        Some(&ReaderKind::JsonList {
            path: "dna.json".into(),
            pointer: "/goals".into(),
            op: ListOp::All {
                field: "/achieved".into(),
                equals: json!(true),
            },
        })
    );
    for (body, msg) in [
        (
            "op = \"all\"\n",
            "reader `r`: `op = \"all\"` needs `equals`",
        ),
        (
            "op = \"not_in\"\n",
            "reader `r`: `op = \"not_in\"` needs `other`",
        ),
        (
            "op = \"sum\"\n",
            "reader `r`: unknown op `sum`: expected count, all, any, last or not_in",
        ),
    ] {
        let text = format!(
            "[readers.r]\nkind = \"json\"\npath = \"dna.json\"\npointer = \"/goals\"\n{body}"
        );
        let e = manifest(&text).expect_err(body);
        let line = e.to_string();
        assert!(line.ends_with(msg) && !line.contains('\n'), "{line}");
    }
}

#[test]
fn an_abandoned_side_trip_leaves_no_stale_return() {
    let diagram = "stateDiagram-v2
  [*] --> work
  state work {
    [*] --> edit
    edit --> test : Bash
    test --> [*] : Write
  }
  state side {
    [*] --> look
    look --> [*] : Read
  }
  work --> [*]
  work --> side : Grep
  side --> shipped
  shipped --> [*]
";
    let text = "name = \"flow\"\ndiagram = \"top.mmd\"\n\
        [[bind]]\non = \"/peek\"\nenter = \"side\"\nreturn = true\n\
        [[bind]]\non = \"/back\"\nenter = \"work\"\n";
    let l = load_text("flow.toml", text, &|rel| {
        (rel == "top.mmd").then(|| diagram.to_string())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let m = Machine::new(l.chart);
    let f = Facts::new();
    let mut snap = m.start(&f);
    let go = |snap: &mut seed::engine::Snapshot, e: Event| {
        m.step(snap, Phase::Advance, &e, &f);
        m.status(snap).current
    };
    assert_eq!(go(&mut snap, Event::tool("Bash", json!({}))), ["work.test"]);
    assert_eq!(go(&mut snap, Event::prompt("/peek")), ["side.look"]);
    assert_eq!(snap.vars.get("side_return"), Some(&json!("work.test")));
    // Left by a command elsewhere: the recorded return is dropped.
    assert_eq!(go(&mut snap, Event::prompt("/back")), ["work.edit"]);
    assert_eq!(snap.vars.get("side_return"), Some(&serde_json::Value::Null));
    // Entered by its drawn edge, the trip leaves by its drawn way out.
    assert_eq!(go(&mut snap, Event::tool("Grep", json!({}))), ["side.look"]);
    assert_eq!(go(&mut snap, Event::tool("Read", json!({}))), ["__final"]);
}

#[test]
fn allowed_calls_of_a_tool_between_refused_ones_do_not_reset_the_breaker() {
    let l = manifest(
        "neutral_tools = [\"Bash\"]\ndeadlock = { limit = 3, fallback = \"ask\" }\n\n[[policy]]\nstate = \"work.edit\"\ndeny = [\"Bash(command=rm *)\"]\nenforcement = \"enforce\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let m = Machine::new(l.chart);
    let f = Facts::new();
    let mut snap = m.start(&f);
    let mut gate = |command: &str| {
        m.step(
            &mut snap,
            Phase::Gate,
            &Event::tool("Bash", json!({ "command": command })),
            &f,
        )
        .verdict
        .expect("a verdict")
    };
    for n in 1..=3 {
        let v = gate(&format!("rm -rf build{n}"));
        assert_eq!((v.decision, v.repeat), (Decision::Deny, n));
        assert_eq!(gate("ls").decision, Decision::Allow);
    }
    assert_eq!(gate("rm -rf build4").decision, Decision::Ask);
}

fn fill_chart(body: &str) -> Result<Loaded, LoadError> {
    manifest(&format!(
        "[readers.done]\nkind = \"count\"\npath = \"done/*\"\n\
         [readers.all]\nkind = \"count\"\npath = \"all/*\"\n{body}"
    ))
}

#[test]
fn a_state_fills_its_interval_from_two_readers_whatever_they_say() {
    let l = fill_chart(
        "[[policy]]\nstate = \"work.test\"\nprogress = { done = \"done\", of = \"all\" }\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let m = Machine::new(l.chart);
    let test = m.chart.find("work.test").expect("test");
    let (lo, hi) = m.interval(test);
    let mut snap = m.start(&Facts::new());
    let at = |facts: Value, snap: &mut seed::engine::Snapshot| {
        let f: Facts = serde_json::from_value(facts).expect("facts");
        m.step(snap, Phase::Advance, &Event::tool("Bash", json!({})), &f);
        snap.facts = f;
        m.progress(snap).overall
    };
    // `test` fills its interval inside `work`, which has its own inside the chart.
    let (wlo, whi) = m.interval(m.chart.find("work").expect("work"));
    let expect = |frac: f64| 100.0 * (wlo + (whi - wlo) * (lo + (hi - lo) * frac));
    assert_eq!(at(json!({"done": 1, "all": 4}), &mut snap), expect(0.25));
    // More done than there is, negative, missing, not numbers, a zero total: clamped or 0.
    assert_eq!(at(json!({"done": 9, "all": 4}), &mut snap), expect(1.0));
    assert_eq!(at(json!({"done": -3, "all": 4}), &mut snap), expect(0.0));
    assert_eq!(at(json!({"done": 2}), &mut snap), expect(0.0));
    assert_eq!(at(json!({"done": "2", "all": "4"}), &mut snap), expect(0.0));
    assert_eq!(at(json!({"done": 0, "all": 0}), &mut snap), expect(0.0));
    assert_eq!(
        at(json!({"done": 1e308, "all": 1e-308}), &mut snap),
        expect(1.0)
    );
}

#[test]
fn progress_misuse_is_one_line_or_a_lint() {
    let e =
        fill_chart("[[policy]]\nstate = \"work\"\nprogress = { done = \"done\", of = \"all\" }\n")
            .expect_err("a compound state");
    assert!(
        e.to_string()
            .contains("`progress` fills an atomic state; `work` has states inside"),
        "{e}"
    );
    let e = fill_chart("[[policy]]\nstate = \"work.test\"\nprogress = { done = \"done\" }\n")
        .expect_err("no total");
    assert!(e.to_string().contains("missing field `of`"), "{e}");
    let l = fill_chart(
        "[[policy]]\nstate = \"work.test\"\nprogress = { done = \"done\", of = \"nobody\" }\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let lints = Machine::new(l.chart).lint();
    assert!(
        lints.iter().any(|l| l.code == "undefined-reader"
            && l.message
                .contains("the progress of `work.test` reads reader `nobody`")),
        "{lints:?}"
    );
}

/// `A` leads on to `B`; `bands` is the manifest's `[bands]` table (its first entry on line 4).
fn band_lints(bands: &str) -> Vec<seed::engine::lint::Lint> {
    let text = format!("name = \"t\"\ndiagram = \"d.mmd\"\n[bands]\n{bands}");
    let d = "stateDiagram-v2\n  [*] --> A\n  A --> B : x.go\n  B --> [*] : x.end\n";
    let l = load_text("t.toml", &text, &|rel| {
        (rel == "d.mmd").then(|| d.to_string())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    Machine::new(l.chart)
        .lint()
        .into_iter()
        .filter(|l| l.code.starts_with("band-"))
        .collect()
}

/// A lint's code and where it points: line, column and file (0: the loaded manifest).
type Found<'a> = (&'a str, Option<(u32, u32, u16)>);

fn found(lints: &[seed::engine::lint::Lint]) -> Vec<Found<'_>> {
    lints
        .iter()
        .map(|l| (l.code.as_str(), l.span.map(|s| (s.line, s.col, s.file))))
        .collect()
}

#[test]
fn band_lints_point_at_the_band_entry_in_the_manifest() {
    let gap = band_lints(
        "a = { range = [0, 40], states = [\"A\"] }\nb = { range = [50, 100], states = [\"B\"] }\n",
    );
    // File 0: the manifest, which was loaded.
    assert_eq!(found(&gap), [("band-gap", Some((5, 5, 0)))], "{gap:?}");
    let gaps = band_lints("a = { range = [10, 90], states = [\"A\", \"B\"] }\n");
    assert_eq!(
        found(&gaps),
        [("band-gap", Some((4, 5, 0))), ("band-gap", Some((4, 5, 0)))],
        "{gaps:?}"
    );
}

#[test]
fn overlapping_bands_in_path_order_are_one_overlap_not_an_order_problem() {
    let overlap = band_lints(
        "a = { range = [0, 60], states = [\"A\"] }\nb = { range = [50, 100], states = [\"B\"] }\n",
    );
    assert_eq!(
        found(&overlap),
        [("band-overlap", Some((5, 5, 0)))],
        "{overlap:?}"
    );
    // Bands against the path: reordering them is the advice.
    let reversed = band_lints(
        "a = { range = [50, 100], states = [\"A\"] }\nb = { range = [0, 50], states = [\"B\"] }\n",
    );
    assert_eq!(
        found(&reversed),
        [("band-order", Some((3, 3, 1)))],
        "{reversed:?}"
    );
    assert!(reversed[0].message.contains("list the bands in path order"));
}
