//! Claude Code's own tool loading and todo bookkeeping in every sequence: Claude Code defers
//! MCP tools and tells the model to load them with `ToolSearch` first, so refusing it locks the
//! agent out of the very tools a sequence asks for. These calls are neutral everywhere unless
//! a sequence names them; a step or policy that names one works as written.

use crate::support::walk as common;

use common::Walk;
use seed::dialects::load_text;
use seed::engine::{Decision, Machine, VerdictKind};
use serde_json::{Value, json};

const SHIPPED: [&str; 8] = [
    "compound_intelligence",
    "hope",
    "odyssean_anchor",
    "hiivmind_add_source",
    "seaam_organ_lifecycle",
    "starlog_initialization",
    "waypoint_journey",
    "giint_workflow",
];

/// The calls as Claude Code 2.1.x sends them: `ToolSearch` loading a deferred MCP tool, and the
/// todo / task-list tools (`TodoWrite`, or `TaskCreate`… where the task list replaces it).
fn bookkeeping() -> Vec<(&'static str, Value)> {
    vec![
        ("ToolSearch", json!({"query": "select:mcp__seed__who_am_i"})),
        (
            "ToolSearch",
            json!({"query": "select:mcp__starlog__check,mcp__starlog__orient", "max_results": 5}),
        ),
        (
            "TodoWrite",
            json!({"todos": [{"content": "orient", "status": "pending", "activeForm": "Orienting"}]}),
        ),
        (
            "TaskCreate",
            json!({"subject": "orient", "description": "load the project context"}),
        ),
        ("TaskUpdate", json!({"taskId": "1", "status": "completed"})),
        ("TaskList", json!({})),
        ("TaskGet", json!({"taskId": "1"})),
    ]
}

#[test]
fn at_the_start_of_every_shipped_sequence_tool_loading_passes_silently() {
    for name in SHIPPED {
        let mut w = Walk::builtin(name);
        let step = w.step();
        for (tool, input) in bookkeeping() {
            let v = w.gate_with(tool, input);
            // hope names TodoWrite as a step of its loop, but not at its start.
            assert_eq!(v.decision, Decision::Allow, "{name}: {tool}: {}", v.reason);
            assert_eq!(v.warning, None, "{name}: {tool}: no warning either");
        }
        assert_eq!(w.step(), step, "{name}: the sequence does not move");
    }
}

#[test]
fn compound_intelligence_lets_the_agent_load_the_tool_it_asks_for_then_call_it() {
    let mut w = Walk::builtin("compound_intelligence");
    assert_eq!(w.next_tool().as_deref(), Some("mcp__seed__who_am_i"));
    let v = w.call_with("ToolSearch", json!({"query": "select:mcp__seed__who_am_i"}));
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::Neutral, Decision::Allow),
        "{}",
        v.reason
    );
    assert_eq!(w.step(), "start");
    assert_eq!(w.call("mcp__seed__who_am_i").kind, VerdictKind::Advance);
}

#[test]
fn the_anchor_lobby_lets_the_agent_load_the_anchor_tool() {
    let mut w = Walk::builtin("odyssean_anchor");
    let v = w.gate_with(
        "ToolSearch",
        json!({"query": "select:mcp__hestai__odyssean_anchor"}),
    );
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::Neutral, Decision::Allow),
        "{}",
        v.reason
    );
    assert_eq!(w.step(), "LOBBY");
    // Everything else is still refused until the anchor binds.
    assert_eq!(w.gate("Edit").decision, Decision::Deny);
}

#[test]
fn a_deep_state_constraint_that_allows_an_mcp_tool_lets_it_be_loaded() {
    let mut w = Walk::builtin("compound_intelligence");
    for t in [
        "mcp__seed__who_am_i",
        "mcp__seed__what_do_i_do",
        "mcp__starlog__check",
        "mcp__starlog__orient",
        "mcp__starship__fly",
        "mcp__waypoint__start_waypoint_journey",
    ] {
        assert_eq!(w.call(t).decision, Decision::Allow, "{t}");
    }
    w.fact("waypoint_status", json!("active"));
    // The constraint allows navigate_to_next_waypoint; its schema comes through ToolSearch.
    let v = w.gate_with(
        "ToolSearch",
        json!({"query": "select:mcp__waypoint__navigate_to_next_waypoint"}),
    );
    assert_eq!(v.decision, Decision::Allow, "{}", v.reason);
    // The constraint's list still narrows everything else as written.
    assert_eq!(w.gate("Edit").decision, Decision::Deny);
}

#[test]
fn a_step_naming_todo_write_advances() {
    let text = r#"{
  "name": "todo_first",
  "start": ["TodoWrite"],
  "tool_transitions": { "TodoWrite": { "next_allowed": ["Edit"] }, "Edit": { "next_allowed": [] } }
}"#;
    let loaded = load_text("todo_first.json", text, &|_| None).expect("it loads");
    let mut w = Walk::new(Machine::new(loaded.chart));
    assert_eq!(w.call("TodoWrite").kind, VerdictKind::Advance);
    assert_eq!(w.step(), "TodoWrite");
}

#[test]
fn a_step_naming_tool_search_advances_and_a_policy_denying_it_refuses_it() {
    let text = r#"{
  "name": "no_searching",
  "start": ["ToolSearch"],
  "tool_transitions": {
    "ToolSearch": { "next_allowed": ["s.b"] },
    "s.b": { "next_allowed": ["s.c"] },
    "s.c": { "next_allowed": [] }
  },
  "state_constraints": {
    "locked": { "when": { "in": "s.b" }, "disallowed_tools": ["ToolSearch", "TaskCreate"] }
  }
}"#;
    let loaded = load_text("no_searching.json", text, &|_| None).expect("it loads");
    let mut w = Walk::new(Machine::new(loaded.chart));
    let v = w.call_with("ToolSearch", json!({"query": "select:mcp__s__b"}));
    assert_eq!(v.kind, VerdictKind::Advance, "{}", v.reason);
    assert_eq!(w.call("mcp__s__b").kind, VerdictKind::Advance);
    for tool in ["ToolSearch", "TaskCreate"] {
        let v = w.gate(tool);
        assert_eq!(v.decision, Decision::Deny, "{tool}: {}", v.reason);
        assert!(v.reason.contains(&format!("denies {tool}")), "{}", v.reason);
    }
    // Not named: neutral as everywhere.
    assert_eq!(w.gate("TaskUpdate").kind, VerdictKind::Neutral);
}

#[test]
fn tools_merely_sharing_a_prefix_are_not_bookkeeping() {
    // `Task` (the old subagent tool), `TaskStop` (kills a background task) and a look-alike
    // MCP tool do things: the sequence decides about them.
    let mut w = Walk::builtin("compound_intelligence");
    for tool in [
        "Task",
        "Agent",
        "TaskStop",
        "mcp__x__ToolSearch",
        "ToolSearchX",
    ] {
        let v = w.gate(tool);
        assert_eq!(v.decision, Decision::Deny, "{tool}: {}", v.reason);
    }
}
