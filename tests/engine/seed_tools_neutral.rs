//! seed's own tools in every sequence: refusals tell the agent to call `recovery` or
//! `what_do_i_do`, so no railroad refuses them; a step that names one still advances, and a
//! policy that denies one by name still refuses it.

use crate::support::walk as common;

use common::Walk;
use seed::dialects::load_text;
use seed::engine::{Decision, Machine, VerdictKind};

const SEED_TOOLS: [&str; 9] = [
    "mcp__seed__status",
    "mcp__seed__recovery",
    "mcp__seed__sequences",
    "mcp__seed__validate",
    "mcp__seed__who_am_i",
    "mcp__seed__what_do_i_do",
    "mcp__seed__how_do_i",
    "mcp__seed__add_to_seed",
    // The plugin's spelling of the same server.
    "mcp__plugin_seed_seed__recovery",
];

#[test]
fn before_the_work_permit_seeds_tools_pass_and_leave_the_anchor_where_it_is() {
    let mut w = Walk::builtin("odyssean_anchor");
    for tool in SEED_TOOLS {
        let v = w.gate(tool);
        assert_eq!(
            (v.kind, v.decision),
            (VerdictKind::Neutral, Decision::Allow),
            "{tool}"
        );
    }
    assert_eq!(w.step(), "LOBBY");
    // Everything else is still refused until the anchor binds.
    assert_eq!(w.gate("Edit").decision, Decision::Deny);
    assert_eq!(w.gate("mcp__other__status").decision, Decision::Deny);
}

#[test]
fn in_every_shipped_sequence_at_its_start_no_seed_tool_is_refused() {
    for name in [
        "compound_intelligence",
        "hope",
        "odyssean_anchor",
        "hiivmind_add_source",
        "seaam_organ_lifecycle",
        "starlog_initialization",
        "waypoint_journey",
        "giint_workflow",
    ] {
        let mut w = Walk::builtin(name);
        for tool in SEED_TOOLS {
            let v = w.gate(tool);
            assert_eq!(v.decision, Decision::Allow, "{name}: {tool}: {}", v.reason);
        }
    }
}

#[test]
fn a_step_that_names_a_seed_tool_still_advances() {
    let mut w = Walk::builtin("compound_intelligence");
    // what_do_i_do before who_am_i: allowed, and the railroad does not move.
    let early = w.call("mcp__seed__what_do_i_do");
    assert_eq!(early.kind, VerdictKind::Neutral);
    assert_eq!(w.next_tool().as_deref(), Some("mcp__seed__who_am_i"));
    assert_eq!(w.call("mcp__seed__who_am_i").kind, VerdictKind::Advance);
    assert_eq!(w.call("mcp__seed__what_do_i_do").kind, VerdictKind::Advance);
}

#[test]
fn a_policy_denying_a_seed_tool_by_name_still_refuses_it() {
    let text = r#"{
  "name": "no_new_sequences",
  "tool_transitions": { "s.a": { "next_allowed": ["s.b"] }, "s.b": { "next_allowed": [] } },
  "state_constraints": {
    "locked": { "when": { "in": "s.a" }, "disallowed_tools": ["seed.add_to_seed"] }
  }
}"#;
    let loaded = load_text("no_new_sequences.json", text, &|_| None).expect("it loads");
    let mut w = Walk::new(Machine::new(loaded.chart));
    assert_eq!(w.gate("mcp__seed__add_to_seed").decision, Decision::Allow);
    assert_eq!(w.call("mcp__s__a").kind, VerdictKind::Advance);
    // At `s.a` the constraint applies.
    let v = w.gate("mcp__seed__add_to_seed");
    assert_eq!(v.decision, Decision::Deny, "{}", v.reason);
    assert!(
        v.reason.contains("denies mcp__seed__add_to_seed"),
        "{}",
        v.reason
    );
    assert_eq!(w.gate("mcp__seed__recovery").decision, Decision::Allow);
}
