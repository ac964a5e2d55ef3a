//! The way to a denied call is searched with the data the sequence will have on the way (the
//! flags and variables each transition sets; a guard false for them is no way), and it ends
//! where the call is legal: a step it fires, or a step whose allow list names it, and no
//! policy refusing it there. The advice is a promise: making exactly the calls it names makes
//! the denied call legal.

use crate::support::mermaid as mermaid_common;

use mermaid_common::{Walk, skill, tool};
use seed::engine::build::ChartBuilder;
use seed::engine::ir::{
    Action, CmpOp, Dialect, Guard, Outcome, StateId, StateKind, Transition, Trigger,
};
use seed::engine::pattern::Pattern;
use seed::engine::{Decision, Event, Facts, Machine, Phase, VerdictKind};
use serde_json::{Value, json};

/// The event a suggested call stands for, as the agent would make it: `Skill(skill="x")`,
/// `/command`, `Tool(key="value")` or a bare tool name.
fn event_of(call: &str) -> Event {
    if let Some(cmd) = call.strip_prefix('/') {
        return Event::prompt(&format!("/{cmd}"));
    }
    let (name, args) = call.split_once('(').unwrap_or((call, ""));
    let mut input = serde_json::Map::new();
    for arg in args
        .trim_end_matches(')')
        .split(", ")
        .filter(|a| !a.is_empty())
    {
        let (k, v) = arg.split_once('=').expect("key=value");
        input.insert(
            k.to_string(),
            Value::String(v.trim_matches('"').to_string()),
        );
    }
    Event::tool(name, Value::Object(input))
}

/// Makes the calls the recovery names before `denied`, each allowed and stepped, then gates
/// `denied` again: it must be legal now.
fn follow_the_advice(w: &mut Walk, denied: &Event) -> Vec<String> {
    let v = w.gate(denied);
    assert!(
        matches!(v.kind, VerdictKind::Deny | VerdictKind::OffPath),
        "{v:?}"
    );
    let path =
        w.m.recovery(&w.snap, Some(denied))
            .path_to_denied
            .expect("a way to the call");
    let (last, before) = path.split_last().expect("the call itself ends the way");
    assert!(
        !before.is_empty(),
        "the call is legal here already: {path:?}"
    );
    for step in before {
        let e = event_of(&step.tool);
        let v = w.gate(&e);
        assert_eq!(
            v.decision,
            Decision::Allow,
            "{} at {:?}: {v:?}",
            step.tool,
            w.at()
        );
        assert!(v.warning.is_none(), "{}: {:?}", step.tool, v.warning);
        w.advance(&e);
    }
    let v = w.gate(denied);
    assert!(
        matches!(v.kind, VerdictKind::Advance | VerdictKind::Neutral),
        "after {path:?} ({}), at {:?}: {v:?}",
        last.tool,
        w.at()
    );
    before.iter().map(|s| s.tool.clone()).collect()
}

fn at_clarify(rounds: usize) -> Walk {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("add a caching layer"));
    for _ in 0..rounds {
        w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance);
    }
    w
}

#[test]
fn a_fourth_clarify_round_is_told_a_way_that_makes_the_question_legal() {
    let mut w = at_clarify(3);
    let ask = tool("AskUserQuestion", json!({}));
    let v = w.gate(&ask);
    let warning = v.warning.expect("advised");
    // Not "first call AskUserQuestion": the counted rounds do not start over by asking again.
    assert!(!warning.contains("First call AskUserQuestion"), "{warning}");
    let way = follow_the_advice(&mut w, &ask);
    assert_eq!(way[0], "Skill(skill=\"hope:shape\")", "{way:?}");
}

#[test]
fn an_early_task_call_is_told_the_whole_way_to_the_loop() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("rename `foo` to `bar` in src/lib.rs"));
    let task = tool("Task", json!({}));
    let v = w.gate(&task);
    let warning = v.warning.expect("advised");
    assert!(
        warning.contains("Task comes later in \"hope\" (after 7 more calls"),
        "{warning}"
    );
    follow_the_advice(&mut w, &task);
    assert_eq!(w.at(), ["loop.decompose"]);
}

#[test]
fn the_exit_plan_chain_is_lifted_by_restarting_intent_when_that_is_shorter() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("/hope:bond split the work"));
    let exit = tool("ExitPlanMode", json!({"plan": "p"}));
    let way = follow_the_advice(&mut w, &exit);
    assert_eq!(way[0], "Skill(skill=\"hope:intent\")", "{way:?}");
}

#[test]
fn a_later_steps_allow_list_is_where_a_tool_becomes_legal() {
    let mut w = Walk::new("compound_intelligence");
    for t in [
        "mcp__seed__who_am_i",
        "mcp__seed__what_do_i_do",
        "mcp__starlog__check",
        "mcp__starlog__orient",
        "mcp__starship__fly",
    ] {
        w.call(&tool(t, json!({})), VerdictKind::Advance);
    }
    // The journey and the HEAVEN spawn both let Bash through: one call away, not "not part of".
    let bash = tool("Bash", json!({"command": "cargo test"}));
    let v = w.gate(&bash);
    assert_eq!((v.kind, v.decision), (VerdictKind::OffPath, Decision::Deny));
    assert!(
        v.reason.starts_with(
            "seed: Bash comes later in \"compound_intelligence\" (after 1 more call; last call: \"starship.fly\")."
        ) && v.reason.ends_with("; after that, Bash is allowed."),
        "{}",
        v.reason
    );
    let rec = w.m.recovery(&w.snap, Some(&bash));
    assert!(
        rec.suggestions
            .iter()
            .any(|s| s.starts_with("Bash becomes legal after: mcp__")),
        "{:?}",
        rec.suggestions
    );
    assert!(
        rec.suggestions.iter().all(|s| !s.contains("not reachable")),
        "{:?}",
        rec.suggestions
    );
    follow_the_advice(&mut w, &bash);
}

/// `work` waits for `Step`, which appends to `seen`; the choice after it leaves once `seen`
/// holds more than `rounds` items.
fn counted_loop(rounds: f64) -> Machine {
    let mut b = ChartBuilder::new("counted", Dialect::WorkflowYaml, false);
    let work = b
        .add_state(StateId::ROOT, "work", StateKind::Atomic)
        .unwrap();
    let check = b
        .add_state(StateId::ROOT, "check", StateKind::Choice)
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
    let t = |source, target, trigger, guard, actions| Transition {
        source,
        targets: vec![target],
        trigger,
        guard,
        actions,
        label: None,
        span: None,
    };
    b.add_transition(t(
        work,
        check,
        Trigger::Event(Pattern::exact_tool("Step")),
        None,
        vec![Action::AppendVar {
            name: "seen".into(),
            value: json!(1),
        }],
    ));
    let enough = Guard::Count {
        name: "seen".into(),
        op: CmpOp::Gt,
        value: rounds,
    };
    b.add_transition(t(check, done, Trigger::Always, Some(enough), vec![]));
    b.add_transition(t(check, work, Trigger::Always, None, vec![]));
    Machine::new(b.finish().unwrap())
}

#[test]
fn a_counted_loop_counts_its_rounds_in_the_steps_remaining() {
    let m = counted_loop(2.0);
    let facts = Facts::new();
    let mut snap = m.start(&facts);
    let p = m.progress(&snap);
    assert_eq!(p.steps_remaining, Some(3), "three Steps: 1, 2, then 3 > 2");
    m.step(
        &mut snap,
        Phase::Advance,
        &Event::tool("Step", Value::Null),
        &facts,
    );
    assert_eq!(m.progress(&snap).steps_remaining, Some(2));
}

#[test]
fn past_the_search_bound_the_plain_graph_answers() {
    // Ten thousand rounds: more (state, data) nodes than the search explores. It gives up
    // and answers as the graph reads without guards, at once.
    let m = counted_loop(10_000.0);
    let snap = m.start(&Facts::new());
    let started = std::time::Instant::now();
    let st = m.status(&snap);
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    assert_eq!(st.progress.steps_remaining, Some(1));
    assert_eq!(st.next.map(|n| n.call), Some("Step".to_string()));
}

#[test]
fn a_side_trip_is_one_step_of_the_way_and_returns_where_it_was_drawn() {
    // Shape's domain panel is a trip through consult that goes on to shape's next step: the
    // way ahead from shape's start counts it as the one call it is, then shape's own end.
    let mut w = at_clarify(1);
    w.call(&skill("hope:shape"), VerdictKind::Advance);
    assert_eq!(w.at(), ["shape.extract"]);
    let route = w.m.route_to_ending(&w.snap);
    assert_eq!(
        route[..3],
        [
            "Skill(skill=\"hope:consult\")",
            "Skill(skill=\"hope:consult\")",
            "Skill(skill=\"hope:loop\")"
        ],
        "{route:?}"
    );
}
