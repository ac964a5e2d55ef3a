//! Step semantics on small charts written for the purpose: which transition wins a conflict,
//! what happens when eventless transitions never settle, and what `status` makes of a denied
//! call, a layer boundary and a tool named in two spellings.

use crate::support::walk as common;

use common::Walk;
use seed::engine::build::ChartBuilder;
use seed::engine::ir::{Dialect, Outcome, Policy, StateId, StateKind, Transition, Trigger};
use seed::engine::step::MICROSTEP_CAP;
use seed::engine::{Decision, Event, Facts, Machine, Pattern, Phase};
use serde_json::Value;

fn on(source: StateId, target: StateId, trigger: Trigger) -> Transition {
    Transition {
        source,
        targets: vec![target],
        trigger,
        guard: None,
        actions: vec![],
        label: None,
        span: None,
    }
}

fn tool(name: &str) -> Trigger {
    Trigger::Event(Pattern::parse(name).expect("pattern"))
}

fn end() -> StateKind {
    StateKind::Final {
        outcome: Outcome::Success,
        message: None,
        recovery: None,
    }
}

/// `[*] → a`, `a → b → a` with no trigger, `a --Write--> done`.
fn spinning() -> Machine {
    let mut b = ChartBuilder::new("spin", Dialect::Mermaid, false);
    let a = b.add_state(StateId::ROOT, "a", StateKind::Atomic).unwrap();
    let s = b.add_state(StateId::ROOT, "b", StateKind::Atomic).unwrap();
    let done = b.add_state(StateId::ROOT, "done", end()).unwrap();
    b.set_initial(StateId::ROOT, a);
    b.add_transition(on(a, s, Trigger::Always));
    b.add_transition(on(s, a, Trigger::Always));
    b.add_transition(on(a, done, tool("Write")));
    Machine::new(b.finish().expect("chart"))
}

#[test]
fn an_eventless_loop_stops_at_the_microstep_cap_and_is_reported_as_livelock() {
    let m = spinning();
    let facts = Facts::new();
    let mut snap = m.start(&facts);
    assert!(snap.livelock, "the initial settle already spins");
    let st = m.status(&snap);
    assert!(st.livelock && !st.halted);

    let r = m.step(
        &mut snap,
        Phase::Advance,
        &Event::lifecycle("UserPromptSubmit"),
        &facts,
    );
    assert!(r.livelock);
    assert_eq!(
        r.microsteps.len(),
        MICROSTEP_CAP,
        "stops exactly at the cap"
    );
    assert_eq!(
        r.notes.iter().filter(|n| n.starts_with("livelock")).count(),
        1,
        "{:?}",
        r.notes
    );
    assert!(m.status(&snap).livelock);
}

#[test]
fn a_chart_that_settles_is_not_livelocked() {
    // The same chart without the way back from b: one eventless move, then stable.
    let mut b = ChartBuilder::new("settles", Dialect::Mermaid, false);
    let a = b.add_state(StateId::ROOT, "a", StateKind::Atomic).unwrap();
    let s = b.add_state(StateId::ROOT, "b", StateKind::Atomic).unwrap();
    let done = b.add_state(StateId::ROOT, "done", end()).unwrap();
    b.set_initial(StateId::ROOT, a);
    b.add_transition(on(a, s, Trigger::Always));
    b.add_transition(on(s, done, tool("Write")));
    let m = Machine::new(b.finish().expect("chart"));
    let facts = Facts::new();
    let mut snap = m.start(&facts);
    assert!(!snap.livelock);
    let r = m.step(
        &mut snap,
        Phase::Advance,
        &Event::tool("Write", Value::Null),
        &facts,
    );
    assert!(!r.livelock && snap.halted);
    assert!(!m.status(&snap).livelock);
}

/// `outer { inner }` where both `outer` and `inner` react to `Edit`, to different targets.
#[test]
fn the_deeper_source_wins_a_conflict() {
    let mut b = ChartBuilder::new("deep", Dialect::Mermaid, false);
    let outer = b
        .add_state(
            StateId::ROOT,
            "outer",
            StateKind::Compound {
                initial: StateId::ROOT,
            },
        )
        .unwrap();
    let inner = b.add_state(outer, "inner", StateKind::Atomic).unwrap();
    b.set_initial(outer, inner);
    let by_outer = b
        .add_state(StateId::ROOT, "by_outer", StateKind::Atomic)
        .unwrap();
    let by_inner = b
        .add_state(StateId::ROOT, "by_inner", StateKind::Atomic)
        .unwrap();
    b.set_initial(StateId::ROOT, outer);
    // The ancestor's transition comes first in the document: depth still decides.
    b.add_transition(on(outer, by_outer, tool("Edit")));
    b.add_transition(on(inner, by_inner, tool("Edit")));
    let mut w = Walk::new(Machine::new(b.finish().expect("chart")));
    w.call("Edit");
    assert_eq!(w.step(), "by_inner");
}

#[test]
fn between_equally_deep_sources_document_order_wins() {
    let mut b = ChartBuilder::new("order", Dialect::Mermaid, false);
    let a = b.add_state(StateId::ROOT, "a", StateKind::Atomic).unwrap();
    let first = b
        .add_state(StateId::ROOT, "first", StateKind::Atomic)
        .unwrap();
    let second = b
        .add_state(StateId::ROOT, "second", StateKind::Atomic)
        .unwrap();
    b.set_initial(StateId::ROOT, a);
    b.add_transition(on(a, first, tool("Bash")));
    b.add_transition(on(a, second, tool("Bash")));
    let mut w = Walk::new(Machine::new(b.finish().expect("chart")));
    w.call("Bash");
    assert_eq!(w.step(), "first");
}

#[test]
fn status_recovery_leads_to_the_call_a_gate_just_denied() {
    let mut w = Walk::builtin("compound_intelligence");
    w.call("mcp__seed__who_am_i");
    assert_eq!(w.status().recovery.path_to_denied, None);

    let v = w.gate("mcp__starship__fly");
    assert_eq!(v.decision, Decision::Deny);
    let st = w.status();
    assert_eq!(st.denied_call.as_deref(), Some("mcp__starship__fly"));
    let path: Vec<String> = st
        .recovery
        .path_to_denied
        .expect("a path to the denied tool")
        .into_iter()
        .map(|s| s.tool)
        .collect();
    assert_eq!(
        path,
        [
            "mcp__seed__what_do_i_do",
            "mcp__starlog__check",
            "mcp__starlog__orient",
            "mcp__starship__fly"
        ]
    );
    assert_eq!(
        st.recovery.suggestions[0],
        "mcp__starship__fly becomes legal after: mcp__seed__what_do_i_do → mcp__starlog__check → mcp__starlog__orient."
    );

    // A neutral call changes nothing: the denial still stands.
    w.gate("Read");
    assert!(w.status().denied_call.is_some());
    // The newest denial replaces it.
    w.gate("mcp__starlog__orient");
    assert_eq!(
        w.status().denied_call.as_deref(),
        Some("mcp__starlog__orient")
    );
    // A state change starts recovery afresh.
    w.call("mcp__seed__what_do_i_do");
    let st = w.status();
    assert_eq!((st.denied_call, st.recovery.path_to_denied), (None, None));
}

#[test]
fn exactly_one_layer_is_current_at_a_layer_boundary() {
    let mut w = Walk::builtin("compound_intelligence");
    let current = |w: &Walk| -> Vec<String> {
        w.status()
            .progress
            .layers
            .into_iter()
            .filter(|l| l.current)
            .map(|l| l.name)
            .collect()
    };
    assert_eq!(current(&w), ["base"]);
    w.call("mcp__seed__who_am_i");
    w.call("mcp__seed__what_do_i_do");
    assert_eq!(w.overall(), 50.0, "on the boundary of base and context");
    assert_eq!(current(&w), ["base"], "the active step is in base");
    w.call("mcp__starlog__check");
    assert_eq!(current(&w), ["context"]);
}

#[test]
fn allowed_names_each_tool_once_as_the_agent_calls_it() {
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
    let allowed: Vec<String> = w.status().allowed.into();
    let mut unique = allowed.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), allowed.len(), "{allowed:?}");
    assert!(
        allowed.contains(&"mcp__waypoint__navigate_to_next_waypoint".to_string()),
        "{allowed:?}"
    );
    assert!(
        !allowed.iter().any(|a| a.starts_with("waypoint.")),
        "{allowed:?}"
    );
}

#[test]
fn allowed_spells_built_in_tools_kinds_and_inputs_as_calls() {
    let mut b = ChartBuilder::new("kinds", Dialect::Mermaid, false);
    let a = b.add_state(StateId::ROOT, "a", StateKind::Atomic).unwrap();
    let done = b.add_state(StateId::ROOT, "done", end()).unwrap();
    b.set_initial(StateId::ROOT, a);
    b.state_mut(a).policy = Policy {
        allow: [
            "Bash(command=git *)",
            "skill:hope:intent",
            "/hope:plan",
            "x.*",
        ]
        .iter()
        .map(|p| Pattern::parse(p).expect("pattern"))
        .collect(),
        ..Policy::default()
    };
    b.add_transition(on(a, done, tool("Write")));
    let w = Walk::new(Machine::new(b.finish().expect("chart")));
    let allowed: Vec<String> = w.status().allowed.into();
    // As the agent makes the calls, not as the patterns are written (`skill:…`).
    for want in [
        "Bash(command=\"git *\")",
        "Skill(skill=\"hope:intent\")",
        "/hope:plan",
        "mcp__x__*",
    ] {
        assert!(allowed.contains(&want.to_string()), "{want}: {allowed:?}");
    }
}
