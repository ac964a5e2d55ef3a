//! Two engine fixes found while compiling workflows, kept as regression tests:
//! - `lint`: reachability starts from the default entry, not from a start settled with empty
//!   facts (an initial choice on readers made every other branch "unreachable");
//! - `progress`: steps inside one compound child are not a loop of its parent (a multi-call
//!   action node was marked ↺).

use crate::support::workflow as workflow_common;

use seed::engine::Machine;
use seed::engine::build::ChartBuilder;
use seed::engine::ir::{
    Dialect, Guard, Outcome, ReaderDecl, ReaderKind, StateId, StateKind, Transition, Trigger,
};
use seed::engine::pattern::Pattern;
use seed::engine::progress::Intervals;
use serde_json::json;
use workflow_common::*;

fn fin(outcome: Outcome) -> StateKind {
    StateKind::Final {
        outcome,
        message: None,
        recovery: None,
    }
}

fn edge(source: StateId, target: StateId, trigger: Trigger, guard: Option<Guard>) -> Transition {
    Transition {
        source,
        targets: vec![target],
        trigger,
        guard,
        actions: Vec::new(),
        label: None,
        span: None,
    }
}

#[test]
fn reachability_does_not_depend_on_the_facts_at_lint_time() {
    let mut b = ChartBuilder::new("gate", Dialect::WorkflowYaml, false);
    let gate = b
        .add_state(StateId::ROOT, "gate", StateKind::Choice)
        .unwrap();
    let ok = b
        .add_state(StateId::ROOT, "ok", fin(Outcome::Success))
        .unwrap();
    let bad = b
        .add_state(StateId::ROOT, "bad", fin(Outcome::Error))
        .unwrap();
    b.add_transition(edge(
        gate,
        ok,
        Trigger::Always,
        Some(Guard::FileExists { reader: "r".into() }),
    ));
    b.add_transition(edge(gate, bad, Trigger::Always, None));
    b.chart_mut().readers.push(ReaderDecl {
        name: "r".into(),
        kind: ReaderKind::FileExists { path: "x".into() },
        description: None,
    });
    let lints = Machine::new(b.finish().unwrap()).lint();
    assert!(lints.iter().all(|l| l.code != "unreachable"), "{lints:?}");
}

#[test]
fn inner_steps_of_a_compound_are_not_a_loop() {
    let mut b = ChartBuilder::new("c", Dialect::WorkflowYaml, false);
    let a = b.add_state(StateId::ROOT, "A", StateKind::Atomic).unwrap();
    let a1 = b.add_state(a, "a1", StateKind::Atomic).unwrap();
    let a2 = b.add_state(a, "a2", StateKind::Atomic).unwrap();
    let done = b
        .add_state(StateId::ROOT, "done", fin(Outcome::Success))
        .unwrap();
    b.add_transition(edge(a1, a2, Trigger::Event(Pattern::exact_tool("X")), None));
    b.add_transition(edge(
        a2,
        done,
        Trigger::Event(Pattern::exact_tool("Y")),
        None,
    ));
    let chart = b.finish().unwrap();
    let iv = Intervals::compute(&chart);
    assert!(!iv.in_loop[chart.find("A").unwrap().index()]);
}

#[test]
fn a_multi_call_action_node_shows_no_loop() {
    let yaml = wf(
        "fetch",
        "  fetch:\n    type: action\n    actions:\n      - type: create_directory\n      - type: clone_repo\n    on_success: done",
    );
    let mut r = Run::new(&yaml);
    r.call("Bash", json!({"command": "mkdir -p .source"}));
    let p = r.m.progress(&r.snap);
    assert!(!p.in_loop, "{p:?}");
    assert!(p.overall > 0.0 && p.overall < 100.0, "{p:?}");
}
