//! Seed 000's `progress_layers`: the example as the seed writes it (no step lists) gets the
//! layers the seed describes, and bands that would make the bars jump or fall are lints at
//! the line and column they are about.

use crate::support::walk as common;

use assert_cmd::Command;
use common::Walk;
use seed::dialects::{load_path, load_text};
use seed::engine::Machine;
use seed::engine::lint::Severity;

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/seed000")
        .join(name)
}

fn none(_: &str) -> Option<String> {
    None
}

/// Each band's steps, by state name, sorted.
fn layers(chart: &seed::engine::Chart) -> Vec<(String, Vec<String>)> {
    chart
        .bands
        .iter()
        .map(|b| {
            let mut names: Vec<String> = b
                .states
                .iter()
                .map(|s| chart.state(*s).name.clone())
                .collect();
            names.sort();
            (b.name.clone(), names)
        })
        .collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_seeds_example_as_written_has_the_layers_the_seed_describes() {
    // Seed 000: base = who_am_i, what_do_i_do (0–50); context = starlog check, orient and the
    // flight (50–75); execution = the subchains (75–100), which the example does not list.
    let loaded = load_path(&fixture("full_example.json")).expect("loads as written");
    assert_eq!(
        layers(&loaded.chart),
        [
            (
                "base".to_string(),
                strings(&["seed.what_do_i_do", "seed.who_am_i"])
            ),
            (
                "context".to_string(),
                strings(&[
                    "starlog.check",
                    "starlog.init_project",
                    "starlog.orient",
                    "starship.fly"
                ])
            ),
            ("execution".to_string(), Vec::new()),
        ]
    );
    let mut w = Walk::new(Machine::new(loaded.chart));
    for (call, overall, current) in [
        ("mcp__seed__who_am_i", 25.0, "base"),
        ("mcp__seed__what_do_i_do", 50.0, "base"),
        ("mcp__starlog__check", 58.3, "context"),
        ("mcp__starlog__orient", 66.7, "context"),
        ("mcp__starship__fly", 100.0, "context"),
    ] {
        w.call(call);
        let st = w.status();
        let now: Vec<&str> = st
            .progress
            .layers
            .iter()
            .filter(|l| l.current)
            .map(|l| l.name.as_str())
            .collect();
        assert_eq!((w.overall(), now), (overall, vec![current]), "after {call}");
    }
    assert_eq!(w.layer("base"), 100.0);
    assert_eq!(w.layer("context"), 100.0);
}

#[test]
fn layers_are_filled_in_range_order_whatever_order_the_file_lists_them() {
    let text = std::fs::read_to_string(fixture("full_example.json")).expect("fixture");
    let reordered = text.replace(
        "\"base\": [0, 50],\n    \"context\": [50, 75], \n    \"execution\": [75, 100]",
        "\"execution\": [75, 100],\n    \"context\": [50, 75],\n    \"base\": [0, 50]",
    );
    assert_ne!(reordered, text, "the fixture's layers are reordered");
    let a = load_text("a.json", &text, &none).expect("loads").chart;
    let b = load_text("b.json", &reordered, &none).expect("loads").chart;
    let mut la = layers(&a);
    let mut lb = layers(&b);
    la.sort();
    lb.sort();
    assert_eq!(la, lb);
}

#[test]
fn one_servers_long_chain_is_split_in_proportion() {
    // No change of server to move a boundary to: the layers' widths alone decide.
    let text = r#"{"name": "x", "tool_transitions": {
        "s.a": {"next_allowed": ["s.b"]}, "s.b": {"next_allowed": ["s.c"]},
        "s.c": {"next_allowed": ["s.d"]}, "s.d": {"next_allowed": ["s.e"]}},
      "progress_layers": {"p": [0, 50], "q": [50, 100]}}"#;
    let chart = load_text("x.json", text, &none).expect("loads").chart;
    assert_eq!(
        layers(&chart),
        [
            ("p".to_string(), strings(&["s.a", "s.b"])),
            ("q".to_string(), strings(&["s.c", "s.d", "s.e"])),
        ]
    );
    // Plain tools (no server) split alike.
    let plain = text.replace("s.", "");
    let chart = load_text("x.json", &plain, &none).expect("loads").chart;
    assert_eq!(
        layers(&chart),
        [
            ("p".to_string(), strings(&["a", "b"])),
            ("q".to_string(), strings(&["c", "d", "e"])),
        ]
    );
}

#[test]
fn a_step_that_is_not_a_tool_name_is_a_type_error_at_its_steps() {
    let text = "{\n  \"name\": \"x\",\n  \"tool_transitions\": {\"a\": {\"next_allowed\": [\"b\"]}},\n  \"progress_layers\": {\n    \"p\": {\"range\": [0, 100], \"steps\": [\"a\", 7]}\n  }\n}";
    let e = load_text("x.json", text, &none).unwrap_err();
    assert_eq!((e.line, e.col), (5, 30), "at `steps`: {e}");
    assert_eq!(
        e.message,
        "layer `p`: `steps` entries must be tool names (strings), not 7"
    );
}

fn validate(dir: &std::path::Path, name: &str, text: &str) -> (i32, String) {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let out = Command::cargo_bin("seed")
        .unwrap()
        .current_dir(dir)
        .args(["validate", name])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn bands_that_would_make_progress_jump_or_fall_are_lints() {
    let dir = tempfile::tempdir().unwrap();
    // `b.two` in two layers: its progress would count twice.
    let (code, out) = validate(
        dir.path(),
        "twice.json",
        r#"{
  "name": "twice",
  "tool_transitions": {
    "a.one": { "next_allowed": ["b.two"] },
    "b.two": { "next_allowed": ["c.three"] }
  },
  "progress_layers": {
    "first": { "range": [0, 50], "steps": ["a.one", "b.two"] },
    "second": { "range": [50, 100], "steps": ["b.two", "c.three"] }
  }
}"#,
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "twice.json:9:5: error[band-duplicate-step]: `b.two` is in bands `first` and `second`"
        ),
        "{out}"
    );

    // Layers whose steps run against the path: the move from `a.one` (second, 50–100) to
    // `b.two` (first, 0–50) would take the bar down.
    let (code, out) = validate(
        dir.path(),
        "order.json",
        r#"{
  "name": "order",
  "tool_transitions": {
    "a.one": { "next_allowed": ["b.two"] },
    "b.two": { "next_allowed": ["c.three"] }
  },
  "progress_layers": {
    "first": { "range": [0, 50], "steps": ["b.two"] },
    "second": { "range": [50, 100], "steps": ["a.one", "c.three"] }
  }
}"#,
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("order.json:4:5: error[band-order]: `a.one` (band `second`) leads on to `b.two` (band `first`), which sits earlier in the bands: progress would fall from 100% to 0%"),
        "{out}"
    );

    // A layer no step falls in: its bar stays empty, then fills at once.
    let (code, out) = validate(
        dir.path(),
        "empty.json",
        r#"{
  "name": "empty",
  "tool_transitions": { "a.one": { "next_allowed": ["a.two"] } },
  "progress_layers": {
    "first": { "range": [0, 50], "steps": ["a.one", "a.two"] },
    "second": { "range": [50, 100], "steps": [] }
  }
}"#,
    );
    assert_eq!(code, 0, "a warning: {out}");
    assert!(
        out.contains("empty.json:6:5: warning[band-empty]: band `second` holds no step"),
        "{out}"
    );
}

#[test]
fn a_loop_across_layers_is_no_fall() {
    // Going back round a loop is not a forward move: no `band-order`.
    let text = r#"{"name": "x", "tool_transitions": {
        "a.one": {"next_allowed": ["b.two"]}, "b.two": {"next_allowed": ["a.one", "c.three"]}},
      "progress_layers": {"p": {"range": [0, 50], "steps": ["a.one"]},
                          "q": {"range": [50, 100], "steps": ["b.two", "c.three"]}}}"#;
    let chart = load_text("x.json", text, &none).expect("loads").chart;
    let lints = Machine::new(chart).lint();
    assert!(
        lints.iter().all(|l| l.severity == Severity::Warning),
        "{lints:?}"
    );
}

#[test]
fn one_servers_chain_leaves_no_layer_empty() {
    // Four calls of one server over two halves: no change of server to move the boundary to,
    // and the railroad's end is that server's too, so each half takes its share.
    let text = r#"{"name": "x", "tool_transitions": {
        "s.a": {"next_allowed": ["s.b"]}, "s.b": {"next_allowed": ["s.c"]},
        "s.c": {"next_allowed": ["s.d"]}},
      "progress_layers": {"x": [0, 50], "y": [50, 100]}}"#;
    let chart = load_text("x.json", text, &none).expect("loads").chart;
    assert_eq!(
        layers(&chart),
        [
            ("x".to_string(), strings(&["s.a", "s.b"])),
            ("y".to_string(), strings(&["s.c", "s.d"])),
        ]
    );
    let mut w = Walk::new(Machine::new(chart));
    let mut seen = Vec::new();
    for call in ["mcp__s__a", "mcp__s__b", "mcp__s__c", "mcp__s__d"] {
        w.call(call);
        seen.push((w.overall(), w.layer("x"), w.layer("y")));
    }
    assert_eq!(
        seen,
        [
            (25.0, 50.0, 0.0),
            (50.0, 100.0, 0.0),
            (75.0, 100.0, 50.0),
            (100.0, 100.0, 100.0)
        ]
    );
}
