//! The seed 000 master-sequence dialect: the seed's JSON loads as written, every lint fires on a
//! sequence crafted to break it, and bad files give one clear `file:line:column` error.

use std::io::Write;

use assert_cmd::Command;
use seed::dialects::{self, load_path, load_text};
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

fn lint_codes(json: &str) -> Vec<(Severity, String)> {
    let loaded = load_text("broken.json", json, &none).expect("loads");
    Machine::new(loaded.chart)
        .lint()
        .into_iter()
        .map(|l| (l.severity, l.code))
        .collect()
}

#[test]
fn seed_full_example_loads_as_written() {
    let l = load_path(&fixture("full_example.json")).expect("loads");
    let c = &l.chart;
    assert_eq!(c.name, "compound_intelligence_master_sequence");
    let bands: Vec<(&str, f64, f64)> = c
        .bands
        .iter()
        .map(|b| (b.name.as_str(), b.lo, b.hi))
        .collect();
    assert_eq!(
        bands,
        [
            ("base", 0.0, 50.0),
            ("context", 50.0, 75.0),
            ("execution", 75.0, 100.0)
        ]
    );
    let readers: Vec<&str> = c.readers.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        readers,
        ["waypoint_status", "starlog_status", "flight_status"]
    );
    for tool in [
        "seed.who_am_i",
        "seed.what_do_i_do",
        "starlog.check",
        "starlog.orient",
        "starlog.init_project",
        "starship.fly",
    ] {
        assert!(c.find(tool).is_some(), "{tool} is a state");
    }
    assert!(
        Machine::new(l.chart)
            .lint()
            .iter()
            .all(|x| x.severity == Severity::Warning)
    );
}

#[test]
fn seed_sketches_load_as_written() {
    let t =
        load_path(&fixture("tool_transitions_sketch.json")).expect("tool_transitions sketch loads");
    assert!(t.chart.find("waypoint.navigate_to_next_waypoint").is_some());
    let s = load_path(&fixture("state_constraints_sketch.json"))
        .expect("state_constraints sketch loads");
    let st = s
        .chart
        .find("context.flight_active_debugging.on")
        .expect("the constraint's state, in its own region");
    let policy = &s.chart.state(st).policy;
    assert_eq!(policy.allow.len(), 3);
    assert_eq!(
        policy
            .deny
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>(),
        ["waypoint.*", "Write"]
    );
}

#[test]
fn every_shipped_sequence_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sequences");
    Command::cargo_bin("seed")
        .unwrap()
        .arg("validate")
        .arg(&dir)
        .assert()
        .success();
    for name in dialects::builtin_names() {
        let l = dialects::builtin(&name).unwrap().unwrap();
        let errors: Vec<_> = Machine::new(l.chart)
            .lint()
            .into_iter()
            .filter(|l| l.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

#[test]
fn lint_unreachable_state() {
    let codes = lint_codes(
        r#"{"name": "x", "start": ["a"], "tool_transitions": {"a": {"next_allowed": ["b"]}, "c": {"next_allowed": ["b"]}}}"#,
    );
    assert!(
        codes.contains(&(Severity::Warning, "unreachable".into())),
        "{codes:?}"
    );
}

#[test]
fn lint_cycle_without_exit() {
    let codes = lint_codes(
        r#"{"name": "x", "start": ["a"], "tool_transitions": {"a": {"next_allowed": ["b"]}, "b": {"next_allowed": ["a"]}}}"#,
    );
    assert!(
        codes.contains(&(Severity::Error, "cycle-without-exit".into())),
        "{codes:?}"
    );
}

#[test]
fn lint_bands_that_overlap_or_leave_gaps() {
    let overlap = lint_codes(
        r#"{"name": "x", "tool_transitions": {"a": {"next_allowed": ["b"]}}, "progress_layers": {"p": [0, 60], "q": [50, 100]}}"#,
    );
    assert!(
        overlap.contains(&(Severity::Error, "band-overlap".into())),
        "{overlap:?}"
    );
    let gap = lint_codes(
        r#"{"name": "x", "tool_transitions": {"a": {"next_allowed": ["b"]}}, "progress_layers": {"p": [0, 40], "q": [50, 90]}}"#,
    );
    assert_eq!(
        gap.iter().filter(|c| c.1 == "band-gap").count(),
        2,
        "{gap:?}"
    );
}

#[test]
fn lint_guards_reading_undefined_readers_and_flags() {
    let codes = lint_codes(
        r#"{"name": "x", "tool_transitions": {"a": {"next_allowed": ["b"]}},
            "state_constraints": {
              "c1": {"when": {"reader": "nobody", "value": 1}, "allowed_tools": ["a"]},
              "c2": {"when": {"flag": "never_set"}, "disallowed_tools": ["b"]}}}"#,
    );
    assert!(
        codes.contains(&(Severity::Error, "undefined-reader".into())),
        "{codes:?}"
    );
    assert!(
        codes.contains(&(Severity::Error, "undefined-flag".into())),
        "{codes:?}"
    );
}

#[test]
fn lints_needing_other_shapes_fire_on_built_charts() {
    use seed::engine::build::ChartBuilder;
    use seed::engine::ir::{Dialect, Guard, Outcome, StateId, StateKind, Transition, Trigger};
    use seed::engine::pattern::Pattern;
    let mut b = ChartBuilder::new("x", Dialect::Mermaid, false);
    let a = b.add_state(StateId::ROOT, "a", StateKind::Atomic).unwrap();
    let stuck = b
        .add_state(StateId::ROOT, "stuck", StateKind::Atomic)
        .unwrap();
    let choice = b
        .add_state(StateId::ROOT, "route", StateKind::Choice)
        .unwrap();
    let done = b
        .add_state(
            StateId::ROOT,
            "done",
            StateKind::Final {
                outcome: Outcome::Success,
                message: None,
                recovery: None,
            },
        )
        .unwrap();
    b.state_mut(a)
        .policy
        .deny
        .push(Pattern::parse("Write").unwrap());
    let t = |source, target, trigger, guard| Transition {
        source,
        targets: vec![target],
        trigger,
        guard,
        actions: vec![],
        label: None,
        span: None,
    };
    b.add_transition(t(
        a,
        choice,
        Trigger::Event(Pattern::parse("Write").unwrap()),
        None,
    ));
    b.add_transition(t(
        a,
        stuck,
        Trigger::Event(Pattern::parse("Edit").unwrap()),
        None,
    ));
    b.add_transition(t(
        choice,
        done,
        Trigger::Always,
        Some(Guard::Var {
            name: "x".into(),
            op: seed::engine::ir::CmpOp::Eq,
            value: 1.into(),
        }),
    ));
    let chart = b.finish().unwrap();
    let codes: Vec<String> = Machine::new(chart)
        .lint()
        .into_iter()
        .map(|l| l.code)
        .collect();
    for expected in [
        "dead-end",
        "choice-without-default",
        "tool-never-allowed",
        "undefined-var",
    ] {
        assert!(
            codes.iter().any(|c| c == expected),
            "{expected} missing from {codes:?}"
        );
    }
}

#[test]
fn malformed_json_names_line_and_column() {
    let e = load_text(
        "bad.json",
        "{\n  \"name\": \"x\",\n  \"tool_transitions\": {\n    \"a\": [1,\n  }\n}",
        &none,
    )
    .unwrap_err();
    assert_eq!((e.line, e.col), (5, 3), "{e}");
    assert!(
        e.to_string().starts_with("bad.json:5:3: invalid JSON"),
        "{e}"
    );
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn semantic_errors_point_at_the_key() {
    let text = "{\n  \"name\": \"x\",\n  \"tool_transitions\": {\n    \"a\": {\"next_allowed\": \"b\"}\n  }\n}";
    let e = load_text("bad.json", text, &none).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    assert!(e.message.contains("must be an array"), "{e}");
    let e = load_text(
        "bad.json",
        "{\"name\": \"x\", \"tool_transitions\": {\"a\": {}}, \"colour\": 1}",
        &none,
    )
    .unwrap_err();
    assert!(e.message.contains("unknown key `colour`"), "{e}");
    let e = load_text("bad.json", "{\"name\": \"x\", \"tool_transitions\": {\"a\": {}}, \"state_readers\": {\"r\": \"rm -rf /\"}}", &none).unwrap_err();
    assert!(e.message.contains("unknown check"), "{e}");
    let e = load_text("bad.json", "[1, 2]", &none).unwrap_err();
    assert!(e.message.contains("expected a JSON object"), "{e}");
}

#[test]
fn empty_and_huge_files_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "  \n").unwrap();
    assert!(
        load_path(&empty)
            .unwrap_err()
            .message
            .contains("empty file")
    );

    let huge = dir.path().join("huge.json");
    let f = std::fs::File::create(&huge).unwrap();
    f.set_len(dialects::MAX_SEQUENCE_BYTES + 1).unwrap();
    let e = load_path(&huge).unwrap_err();
    assert!(e.message.contains("limited to"), "{e}");

    // Large but legal: 50,000 tools in a chain, on one line, load (in linear time).
    let mut text = String::from("{\"name\": \"long\", \"tool_transitions\": {");
    for i in 0..50_000 {
        text.push_str(&format!(
            "\"t{i}\": {{\"next_allowed\": [\"t{}\"]}},",
            i + 1
        ));
    }
    text.push_str("\"t50000\": {}}}");
    let big = dir.path().join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let l = load_path(&big).expect("loads");
    assert_eq!(l.chart.states.len(), 50_003);

    let binary = dir.path().join("bin.json");
    std::fs::write(&binary, [b'{', 0xff, 0xfe, b'}']).unwrap();
    assert!(load_path(&binary).unwrap_err().message.contains("UTF-8"));
}

#[test]
fn validate_exits_1_on_errors_and_0_with_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("loop.json");
    std::fs::write(&broken, r#"{"name": "x", "start": ["a"], "tool_transitions": {"a": {"next_allowed": ["b"]}, "b": {"next_allowed": ["a"]}}}"#).unwrap();
    let out = Command::cargo_bin("seed")
        .unwrap()
        .arg("validate")
        .arg(&broken)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("cycle-without-exit"));
    Command::cargo_bin("seed")
        .unwrap()
        .arg("validate")
        .arg(fixture("state_constraints_sketch.json"))
        .assert()
        .success();
}

#[test]
fn a_densely_connected_file_is_refused_by_its_transition_count_with_one_line() {
    // n tools, each of which may follow each: n² transitions.
    let dense = |n: usize| {
        let all: Vec<String> = (0..n).map(|j| format!("\"t{j}\"")).collect();
        let next = format!("{{\"next_allowed\": [{}]}}", all.join(","));
        let tools: Vec<String> = (0..n).map(|i| format!("\"t{i}\": {next}")).collect();
        format!(
            "{{\"name\": \"dense\", \"tool_transitions\": {{{}}}}}",
            tools.join(",")
        )
    };
    // 160,000 transitions, past the cap of 100,000.
    let e = load_text("dense.json", &dense(400), &none).unwrap_err();
    assert!(
        e.message.contains("a sequence may have at most 100000"),
        "{e}"
    );
    assert!(!e.to_string().contains('\n'), "{e}");

    // Just under the cap (300 × 300 = 90,000) loads, and its trap is named in one short line.
    let loaded = load_text("dense.json", &dense(300), &none).expect("loads");
    assert_eq!(loaded.chart.transitions.len(), 90_000 + 1);
    let lints = Machine::new(loaded.chart).lint();
    let trap = lints
        .iter()
        .find(|l| l.code == "cycle-without-exit")
        .expect("the loop has no way out");
    assert!(
        trap.message.ends_with("… (300 states in all)"),
        "{}",
        trap.message
    );
    assert!(trap.message.len() < 200, "{}", trap.message);
}

#[test]
fn every_dialect_shares_the_size_cap_at_build_time() {
    use seed::engine::build::{BuildError, ChartBuilder, MAX_TRANSITIONS};
    use seed::engine::ir::{Dialect, StateId, StateKind, Transition, Trigger};
    let mut b = ChartBuilder::new("big", Dialect::Mermaid, false);
    let a = b.add_state(StateId::ROOT, "a", StateKind::Atomic).unwrap();
    for _ in 0..=MAX_TRANSITIONS {
        b.add_transition(Transition {
            source: a,
            targets: vec![a],
            trigger: Trigger::Event(seed::engine::pattern::Pattern::parse("Bash").unwrap()),
            guard: None,
            actions: Vec::new(),
            label: None,
            span: None,
        });
    }
    assert!(matches!(
        b.finish(),
        Err(BuildError::TooLarge {
            what: "transitions",
            ..
        })
    ));
}

#[test]
fn lints_point_at_the_line_and_column_they_are_about() {
    let json = r#"{
  "name": "bad",
  "tool_transitions": {
    "a.one": { "next_allowed": ["a.two"] },
    "a.two": { "next_allowed": ["a.one"] },
    "b.orphan": { "next_allowed": ["b.end"] }
  },
  "start": ["a.one"],
  "progress_layers": { "x": [0, 40], "y": [50, 100] }
}"#;
    let loaded = load_text("bad.json", json, &none).expect("loads");
    let lints = Machine::new(loaded.chart).lint();
    let at = |code: &str, needle: &str| {
        lints
            .iter()
            .find(|l| l.code == code && l.message.contains(needle))
            .and_then(|l| l.span)
            .map(|s| (s.line, s.col))
            .unwrap_or_else(|| panic!("no positioned {code} about {needle}: {lints:?}"))
    };
    // A tool's key, not its mention in an earlier `next_allowed`.
    assert_eq!(at("cycle-without-exit", "a.one"), (4, 5));
    assert_eq!(at("unreachable", "b.orphan"), (6, 5));
    // A tool only named in `next_allowed`: its first mention.
    assert_eq!(at("unreachable", "b.end"), (6, 36));
    // A band: the layer's key.
    assert_eq!(at("band-gap", "`x` and `y`"), (9, 38));
}

#[test]
fn a_manifests_lints_name_the_diagram_file_they_are_in() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("flow.toml"),
        "name = \"flow\"\ndiagram = \"parts/main.mmd\"\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("parts")).unwrap();
    std::fs::write(
        dir.path().join("parts/main.mmd"),
        "stateDiagram-v2\n    [*] --> a\n    a --> [*]\n    lost --> a\n",
    )
    .unwrap();
    let out = Command::cargo_bin("seed")
        .unwrap()
        .current_dir(dir.path())
        .args(["validate", "flow.toml"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains("parts/main.mmd:4:5: warning[unreachable]: state `lost`"),
        "{text}"
    );
}

#[test]
fn aliases_name_real_servers_only() {
    let good =
        r#"{"name": "a", "aliases": {"gh": "github-mcp"}, "tool_transitions": {"gh.search": {}}}"#;
    let l = load_text("a.json", good, &none).expect("loads");
    assert_eq!(l.chart.aliases["gh"], "github-mcp");
    for (aliases, needle) in [
        (r#"{"": "x"}"#, "alias ``: a server name must not be empty"),
        (r#"{"x": ""}"#, "server ``: a server name must not be empty"),
        (r#"{"g h": "x"}"#, "no spaces"),
        (r#"{"gh": "git.hub"}"#, "no `.` or `__`"),
        (r#"{"gh": "git__hub"}"#, "no `.` or `__`"),
        (r#"{"g*": "x"}"#, "exact"),
        (r#"{"gh": 5}"#, "must be MCP server names"),
    ] {
        let json = format!(
            r#"{{"name": "a", "aliases": {aliases}, "tool_transitions": {{"gh.search": {{}}}}}}"#
        );
        let e = load_text("a.json", &json, &none).unwrap_err();
        assert!(e.message.contains(needle), "{aliases}: {e}");
        assert_eq!(e.line, 1, "{aliases}: {e}");
    }
    // A manifest's aliases are held to the same rule, at the line of the bad entry.
    let diagram = "stateDiagram-v2\n  [*] --> a\n  a --> [*] : Read\n";
    let e = load_text(
        "m.toml",
        "name = \"m\"\ndiagram = \"d.mmd\"\n[aliases]\n\"\" = \"x\"\n",
        &|_| Some(diagram.to_string()),
    )
    .unwrap_err();
    assert!(e.message.contains("must not be empty"), "{e}");
    assert_eq!(e.line, 4, "{e}");
}
