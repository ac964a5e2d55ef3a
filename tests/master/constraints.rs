//! Seed 000's deep-state constraints (tier 2): every constraint whose `when` holds applies at
//! once, their lists intersect with the railroad and with each other, and `status` shows each
//! one that applies. `validate` judges a constraint's `in` on the railroad as the runtime does.

use crate::support::walk as common;

use common::Walk;
use seed::dialects::{self, load_text};
use seed::engine::lint::Severity;
use seed::engine::{Decision, Machine, VerdictKind};
use serde_json::json;

const UP_TO_THE_JOURNEY: &[&str] = &[
    "mcp__seed__who_am_i",
    "mcp__seed__what_do_i_do",
    "mcp__starlog__check",
    "mcp__starlog__orient",
    "mcp__starship__fly",
    "mcp__waypoint__start_waypoint_journey",
];

fn at_the_journey() -> Walk {
    let mut w = Walk::builtin("compound_intelligence");
    for t in UP_TO_THE_JOURNEY {
        assert_eq!(w.call(t).decision, Decision::Allow, "{t}");
    }
    w
}

fn denier(w: &mut Walk, tool: &str) -> Option<String> {
    let v = w.gate(tool);
    assert_eq!(
        v.decision == Decision::Deny,
        v.denied_by.is_some(),
        "{tool}"
    );
    v.denied_by.map(|b| b.state)
}

#[test]
fn two_constraints_that_hold_both_apply_and_their_lists_intersect() {
    let mut w = at_the_journey();
    w.fact("waypoint_status", json!("active"))
        .fact("flight_status", json!("debugging"));
    assert_eq!(w.gate("Read").decision, Decision::Allow);

    let st = w.status();
    for key in [
        "context.waypoint_active_learning.on",
        "context.flight_active_debugging.on",
    ] {
        assert!(st.current.contains(&key.to_string()), "{:?}", st.current);
    }
    assert!(
        st.breadcrumb
            .ends_with("context ▸ {waypoint_active_learning ∥ flight_active_debugging}}"),
        "{}",
        st.breadcrumb
    );

    // Write: the journey's step and the learning constraint allow it; the debugging flight
    // forbids it, and a forbidding constraint wins.
    assert_eq!(
        denier(&mut w, "Write").as_deref(),
        Some("flight_active_debugging")
    );
    // Delegating: the flight allows it, the journey forbids it.
    assert_eq!(
        denier(&mut w, "mcp__heaven-subagent__spawn").as_deref(),
        Some("waypoint_active_learning")
    );
    // The journey's next step: on the learning list, but the flight forbids waypoint tools.
    assert_eq!(
        denier(&mut w, "mcp__waypoint__navigate_to_next_waypoint").as_deref(),
        Some("flight_active_debugging")
    );
    // On every list (the railroad's step, both constraints): allowed.
    for tool in ["Bash", "Read", "mcp__seed__status"] {
        assert_eq!(w.gate(tool).decision, Decision::Allow, "{tool}");
    }
    let allowed: Vec<String> = w.status().allowed.into();
    assert!(allowed.contains(&"Bash".to_string()), "{allowed:?}");
    for tool in ["Write", "Edit", "mcp__waypoint__navigate_to_next_waypoint"] {
        assert!(!allowed.contains(&tool.to_string()), "{tool}: {allowed:?}");
    }

    // The flight ends: only the learning constraint applies, and Write is allowed again.
    w.fact("flight_status", json!("done"));
    assert_eq!(w.gate("Write").decision, Decision::Allow);
    let st = w.status();
    assert!(
        st.breadcrumb
            .ends_with("context ▸ waypoint_active_learning}"),
        "{}",
        st.breadcrumb
    );
    assert!(
        st.current
            .contains(&"context.flight_active_debugging.off".to_string()),
        "{:?}",
        st.current
    );

    // Neither applies: the context region says nothing, the railroad alone decides.
    w.fact("waypoint_status", json!(null));
    assert_eq!(w.gate("Edit").decision, Decision::Allow);
    let st = w.status();
    assert!(st.breadcrumb.ends_with("∥ context}"), "{}", st.breadcrumb);
}

/// The verdicts do not depend on which constraint the file names first.
#[test]
fn the_order_of_the_constraints_does_not_matter() {
    let sequence = |first: &str, second: &str| {
        format!(
            r#"{{"name": "x", "start": ["a"],
                "tool_transitions": {{"a": {{"next_allowed": ["b"], "allowed_tools": ["Bash", "Write", "Edit"]}}}},
                "state_readers": {{"r": "exists:${{HOME}}/nothing"}},
                "state_constraints": {{{first}, {second}}}}}"#
        )
    };
    let no_write =
        r#""no_write": {"when": {"reader": "r", "value": 1}, "disallowed_tools": ["Write"]}"#;
    let only_shell = r#""only_shell": {"when": {"reader": "r", "value": 1}, "allowed_tools": ["Bash", "Write", "b"]}"#;
    let verdicts = |text: String| {
        let l = load_text("x.json", &text, &|_| None).expect("loads");
        let mut w = Walk::new(Machine::new(l.chart));
        w.call("a");
        w.fact("r", json!(1));
        ["Bash", "Write", "Edit", "b"]
            .map(|t| (t, w.gate(t).decision, w.gate(t).denied_by.map(|b| b.state)))
    };
    let one = verdicts(sequence(no_write, only_shell));
    assert_eq!(one, verdicts(sequence(only_shell, no_write)));
    assert_eq!(
        one.map(|(t, d, _)| (t, d)),
        [
            ("Bash", Decision::Allow),
            ("Write", Decision::Deny),
            ("Edit", Decision::Deny),
            ("b", Decision::Allow),
        ]
    );
}

/// A constraint's `in` reads where the railroad is, a region beside it: `validate` cannot tell
/// from the constraint's own state whether it holds, so it does not call the constraint
/// unreachable (the runtime enters it, as the walk above shows).
#[test]
fn shipped_sequences_report_only_the_unreachable_states_they_explain() {
    for name in dialects::builtin_names() {
        let l = dialects::builtin(&name).expect("built-in").expect("loads");
        let unreachable: Vec<String> = Machine::new(l.chart)
            .lint()
            .into_iter()
            .filter(|l| l.code == "unreachable")
            .map(|l| l.message)
            .collect();
        let explained = |m: &String| m.contains("is switched off: ");
        match name.as_str() {
            "hope" => {
                assert_eq!(unreachable.len(), 3, "{unreachable:?}");
                assert!(unreachable.iter().all(explained), "{unreachable:?}");
            }
            _ => assert!(unreachable.is_empty(), "{name}: {unreachable:?}"),
        }
    }
}

#[test]
fn a_constraint_on_the_railroad_is_reachable_and_one_without_when_is_not() {
    let lints = |when: &str| {
        let text = format!(
            r#"{{"name": "x", "start": ["a"],
                "tool_transitions": {{"a": {{"next_allowed": ["b"]}}}},
                "state_constraints": {{"c": {{"when": {when}, "disallowed_tools": ["Write"]}}}}}}"#
        );
        let l = load_text("x.json", &text, &|_| None).expect("loads");
        Machine::new(l.chart)
            .lint()
            .into_iter()
            .filter(|l| l.code == "unreachable")
            .map(|l| (l.severity, l.message))
            .collect::<Vec<_>>()
    };
    assert_eq!(lints(r#"{"in": "a"}"#), []);
    assert_eq!(lints(r#"{"not": {"in": "b"}}"#), []);
    // A constraint without `when` never applies: its state is never entered.
    let text = r#"{"name": "x", "start": ["a"], "tool_transitions": {"a": {"next_allowed": ["b"]}},
                   "state_constraints": {"c": {"disallowed_tools": ["Write"]}}}"#;
    let l = load_text("x.json", text, &|_| None).expect("loads");
    let found: Vec<_> = Machine::new(l.chart)
        .lint()
        .into_iter()
        .filter(|l| l.code == "unreachable")
        .map(|l| (l.severity, l.message))
        .collect();
    assert_eq!(
        found,
        [(
            Severity::Warning,
            "state `context.c.on` can never be entered".to_string()
        )]
    );
}

#[test]
fn a_constraint_that_holds_before_any_call_applies_from_the_start() {
    let text = r#"{"name": "x", "start": ["a"], "tool_transitions": {"a": {"next_allowed": ["b"]}},
                   "state_readers": {"r": "exists:${HOME}/nothing"},
                   "state_constraints": {"c": {"when": {"reader": "r"}, "disallowed_tools": ["a"]}}}"#;
    let l = load_text("x.json", text, &|_| None).expect("loads");
    let mut w = Walk::new(Machine::new(l.chart));
    w.fact("r", json!(true));
    let v = w.gate("a");
    assert_eq!((v.kind, v.decision), (VerdictKind::Deny, Decision::Deny));
    w.fact("r", json!(false));
    assert_eq!(w.call("a").kind, VerdictKind::Advance);
}
