//! `Machine::explain`: a sequence, the calls made so far, the call asked about, and the
//! explanation — the verdict the next hook would give, every rule that decides it (the
//! deciding one marked, with its place in the sequence file) and the shortest way to make it
//! legal. Explaining changes nothing: the snapshot is the same afterwards.

use crate::support::walk::Walk;
use seed::engine::explain::Explanation;
use seed::engine::{Decision, Event};
use serde_json::{Value, json};

fn explain(w: &Walk, call: &str, input: Value) -> Explanation {
    let before = w.snap.clone();
    let e = w.machine.explain(&w.snap, &Event::tool(call, input));
    assert_eq!(w.snap, before, "explaining {call} changed the snapshot");
    e
}

fn kinds(e: &Explanation) -> Vec<(&str, &str, bool)> {
    e.rules
        .iter()
        .map(|r| (r.kind, r.effect, r.decides))
        .collect()
}

/// Seed 000: "the railroad cannot be left" — `starship.fly` before `check` is refused by
/// compound_intelligence, and the way to it is the railroad's next calls.
#[test]
fn an_early_railroad_call_is_refused_with_the_way_to_it() {
    let mut w = Walk::builtin("compound_intelligence");
    w.call("mcp__seed__who_am_i");
    let e = explain(&w, "mcp__starship__fly", Value::Null);
    assert_eq!(e.decision, Decision::Deny, "{e:#?}");
    assert_eq!(e.call, "mcp__starship__fly");
    let deciding: Vec<_> = e.rules.iter().filter(|r| r.decides).collect();
    assert_eq!(deciding.len(), 1, "{e:#?}");
    assert_eq!(
        e.way.last().map(String::as_str),
        Some("mcp__starship__fly"),
        "{e:#?}"
    );
    assert_eq!(
        e.way[..e.way.len() - 1],
        [
            "mcp__seed__what_do_i_do",
            "mcp__starlog__check",
            "mcp__starlog__orient"
        ]
    );
    assert_eq!(
        e.breaker.map(|b| b.count),
        Some(1),
        "the first refusal of it"
    );
}

/// The next railroad call moves the sequence: the step that takes it decides, with the place
/// the sequence file declares it.
#[test]
fn the_next_railroad_call_is_a_step_with_its_place() {
    let mut w = Walk::builtin("compound_intelligence");
    w.call("mcp__seed__who_am_i");
    let e = explain(&w, "mcp__seed__what_do_i_do", Value::Null);
    assert_eq!(e.decision, Decision::Allow);
    let step = e.rules.iter().find(|r| r.kind == "step").expect("a step");
    assert!(step.decides, "{e:#?}");
    assert!(step.span.is_some_and(|s| s.line > 0), "{step:?}");
    assert!(
        e.way.is_empty() && e.suggestions.is_empty(),
        "legal now: {e:#?}"
    );
}

/// Seed 000 tier 2: "a deep-state constraint narrows what the railroad allows". While the
/// flight is debugging, `flight_active_debugging` refuses Write; the explanation names the
/// constraint and the fact that put it in force, with its value now.
#[test]
fn a_deep_state_refusal_names_the_fact_that_put_it_in_force() {
    let mut w = Walk::builtin("compound_intelligence");
    for t in [
        "mcp__seed__who_am_i",
        "mcp__seed__what_do_i_do",
        "mcp__starlog__check",
        "mcp__starlog__orient",
        "mcp__starship__fly",
        "mcp__waypoint__start_waypoint_journey",
    ] {
        w.call(t);
    }
    w.fact("flight_status", json!("debugging"));
    w.gate("Read");
    let e = explain(&w, "Write", json!({"file_path": "a.rs", "content": ""}));
    assert_eq!(e.decision, Decision::Deny, "{e:#?}");
    let deep = e
        .rules
        .iter()
        .find(|r| r.kind == "deep_state" && r.decides)
        .unwrap_or_else(|| panic!("a deciding deep-state rule: {e:#?}"));
    assert!(
        deep.text.contains("flight_active_debugging"),
        "{}",
        deep.text
    );
    let in_force = deep.in_force.as_deref().expect("what put it in force");
    assert!(in_force.contains("flight_status"), "{in_force}");
    assert!(
        in_force.contains("\"debugging\""),
        "the fact's value now: {in_force}"
    );
    assert!(deep.span.is_some(), "{deep:?}");
}

/// A neutral call is let through by the neutral list; nothing refuses it.
#[test]
fn a_neutral_call_names_the_neutral_list() {
    let w = Walk::builtin("compound_intelligence");
    let e = explain(&w, "Read", json!({"file_path": "x"}));
    assert_eq!(e.decision, Decision::Allow);
    assert_eq!(kinds(&e), [("neutral", "allows", true)], "{e:#?}");
}

/// The deadlock breaker's count: each refusal of the same call counts, and the explanation
/// says how many there were and the limit.
#[test]
fn the_breaker_count_is_the_next_refusals() {
    let mut w = Walk::builtin("compound_intelligence");
    w.call("mcp__seed__who_am_i");
    w.gate("mcp__starship__fly");
    w.gate("mcp__starship__fly");
    let e = explain(&w, "mcp__starship__fly", Value::Null);
    let b = e.breaker.expect("a count");
    assert_eq!((b.count, b.limit), (3, 3), "{e:#?}");
    assert!(!b.escalated);
    let e = {
        w.gate("mcp__starship__fly");
        explain(&w, "mcp__starship__fly", Value::Null)
    };
    assert!(e.breaker.is_some_and(|b| b.escalated), "{e:#?}");
}
