//! The master-sequence dialect on inputs that are easy to get wrong: every value it accepts is
//! used, everything it cannot use is refused at its line and column, and a guard problem is
//! reported once, where the guard is.

use seed::dialects::load_text;
use seed::engine::lint::Severity;
use seed::engine::{Event, Facts, Machine, Phase};

fn none(_: &str) -> Option<String> {
    None
}

fn load(json: &str) -> Result<Machine, String> {
    load_text("seq.json", json, &none)
        .map(|l| Machine::new(l.chart))
        .map_err(|e| e.to_string())
}

fn load_err(json: &str) -> String {
    match load(json) {
        Ok(_) => panic!("loads, but should not: {json}"),
        Err(e) => e,
    }
}

#[test]
fn a_guard_problem_is_reported_once_at_the_guard() {
    let json = r#"{"name": "x", "tool_transitions": {"a": {"next_allowed": ["b"]}},
 "state_constraints": {
   "c1": {"when": {"reader": "nobody", "value": 1}, "allowed_tools": ["a"]},
   "c2": {"when": {"flag": "never_set"}, "disallowed_tools": ["b"]}}}"#;
    let lints = load(json).expect("loads").lint();
    let found: Vec<_> = lints
        .iter()
        .map(|l| (l.severity, l.code.as_str(), l.span.map(|s| (s.line, s.col))))
        .collect();
    assert_eq!(
        found,
        [
            (Severity::Error, "undefined-reader", Some((3, 11))),
            (Severity::Error, "undefined-flag", Some((4, 11))),
        ],
        "{lints:?}"
    );
}

#[test]
fn a_steps_weight_counts_for_progress() {
    // Without bands, a chain's progress is its weighted share: a counts 3, b and c 1 each.
    let m = load(
        r#"{"name": "w", "tool_transitions": {
            "t.a": {"next_allowed": ["t.b"], "weight": 3},
            "t.b": {"next_allowed": ["t.c"]},
            "t.c": {}}}"#,
    )
    .expect("loads");
    let facts = Facts::new();
    let mut snap = m.start(&facts);
    m.step(
        &mut snap,
        Phase::Advance,
        &Event::tool("mcp__t__a", serde_json::Value::Null),
        &facts,
    );
    assert_eq!(m.overall(&snap).round(), 60.0, "3 of the 5 weighted steps");

    for bad in ["-5", "1e308", "\"heavy\"", "null"] {
        let e = load_err(&format!(
            r#"{{"name": "w", "tool_transitions": {{"a": {{"next_allowed": ["b"], "weight": {bad}}}}}}}"#
        ));
        assert!(
            e.starts_with("seq.json:1:") && e.contains("`a.weight` must be a number from 0"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn an_empty_tool_name_is_refused_where_it_is_written() {
    let cases = [
        (
            r#"{"name": "e", "tool_transitions": {"a": {"next_allowed": [""]}}}"#,
            "1:59",
        ),
        (
            r#"{"name": "e", "tool_transitions": {"": {"next_allowed": ["a"]}}}"#,
            "1:36",
        ),
        (
            r#"{"name": "e", "tool_transitions": {"a": {"next_allowed": [{"tool": " "}]}}}"#,
            "",
        ),
        (
            r#"{"name": "e", "neutral_tools": [""], "tool_transitions": {"a": {}}}"#,
            "1:33",
        ),
        (
            r#"{"name": "e", "tool_transitions": {"a": {}}, "state_constraints": {"c": {"allowed_tools": [""]}}}"#,
            "",
        ),
    ];
    for (json, at) in cases {
        let e = load_err(json);
        assert!(e.contains("empty tool name"), "{json}: {e}");
        assert!(e.starts_with(&format!("seq.json:{at}")), "{json}: {e}");
    }
}

#[test]
fn a_duplicate_key_is_an_error_at_its_line_and_column() {
    let e = load_err(
        "{\n  \"name\": \"d\",\n  \"tool_transitions\": {\n    \"a\": {\"next_allowed\": [\"b\"]},\n    \"a\": {\"next_allowed\": [\"c\"]}\n  }\n}",
    );
    assert!(e.starts_with("seq.json:5:7: duplicate key `a`"), "{e}");
    // In a bare-member sketch too, at the position in the file as written.
    let e = load_err("\"tool_transitions\": {\"a\": {}, \"a\": {}}");
    assert!(e.starts_with("seq.json:1:33: duplicate key `a`"), "{e}");
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let m = load(
        "\u{feff}{\"name\": \"bom\", \"tool_transitions\": {\"a\": {\"next_allowed\": [\"b\"]}}}",
    )
    .expect("a BOM is not JSON, but it is not an error either");
    assert_eq!(m.chart.name, "bom");
    let e = load_err("\u{feff}  \n");
    assert!(e.contains("empty file"), "{e}");
    // Positions count from after the mark.
    let e = load_err("\u{feff}{\"name\": 1, \"tool_transitions\": {\"a\": {}}}");
    assert!(e.starts_with("seq.json:1:2:"), "{e}");
}

#[test]
fn a_deadlock_limit_must_let_the_breaker_fire() {
    for bad in ["0", "1001", "-1", "2.5"] {
        let e = load_err(&format!(
            r#"{{"name": "d", "deadlock": {{"limit": {bad}}}, "tool_transitions": {{"a": {{}}}}}}"#
        ));
        assert!(e.contains("from 1 to 1000"), "{bad}: {e}");
    }
    let m = load(r#"{"name": "d", "deadlock": {"limit": 1}, "tool_transitions": {"a": {}}}"#)
        .expect("1 is the smallest limit");
    assert_eq!(m.chart.settings.deadlock.limit, 1);
}
