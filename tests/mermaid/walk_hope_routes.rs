//! Walks through `hope` (seed 004) along the routes other than Build / Debug, told apart by
//! what the agent or the user does next: Plan and Reflect ending at consult, explore's pick,
//! the obvious route, bond's redirect, and §9's counted loops (clarify rounds, revisions).

use crate::support::mermaid as mermaid_common;

use mermaid_common::{Walk, skill, tool};
use seed::engine::{Decision, Event, VerdictKind};
use serde_json::json;

fn at_clarify() -> Walk {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("add a caching layer"));
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance);
    assert_eq!(w.at(), ["intent.clarify"]);
    w
}

fn flag(w: &Walk, name: &str) -> bool {
    w.snap.flags.get(name).copied().unwrap_or(false)
}

#[test]
fn a_plan_session_is_done_when_the_turn_ends_after_consult() {
    let mut w = at_clarify();
    for e in [
        skill("hope:shape"),
        skill("hope:consult"),
        skill("hope:consult"),
    ] {
        w.call(&e, VerdictKind::Advance);
    }
    assert_eq!(w.at(), ["consult.__final"]);
    // Plan: the plan is the output; the turn ends without leaving plan mode.
    w.advance(&Event::lifecycle("Stop"))
        .expect("completed", 95.0, Some("hope:intent"));
    w.advance(&Event::lifecycle("SessionEnd"));
    assert!(w.m.progress(&w.snap).done);
}

#[test]
fn a_build_session_still_leaves_consult_for_the_loop() {
    let mut w = at_clarify();
    for e in [
        skill("hope:shape"),
        skill("hope:consult"),
        skill("hope:consult"),
    ] {
        w.call(&e, VerdictKind::Advance);
    }
    // Guidance follows the main route: the loop, not the end of the turn.
    w.expect("consult.__final", 55.0, Some("hope:loop"));
    w.call(
        &tool("ExitPlanMode", json!({"plan": "p"})),
        VerdictKind::Advance,
    )
    .expect("loop.spec_scoring", 55.0, Some("AskUserQuestion"));
}

#[test]
fn a_reflect_session_consults_straight_from_intent() {
    let mut w = at_clarify();
    w.call(&skill("hope:consult"), VerdictKind::Advance);
    assert_eq!(w.at(), ["consult.__final"]);
    assert!(w.visited("consult.single.generate"));
    assert!(!w.visited("shape.extract"));
    // The spec was good enough for a consult: the brief exists, shape does not.
    assert!(flag(&w, "intent_brief") && !flag(&w, "shape_done"));
    w.advance(&Event::lifecycle("Stop"));
    assert_eq!(w.at(), ["completed"]);
}

#[test]
fn an_explore_consult_waits_for_the_users_pick_then_goes_to_shape() {
    let mut w = at_clarify();
    let explore = tool(
        "Skill",
        json!({"skill": "hope:consult", "args": "explore approaches to caching"}),
    );
    w.call(&explore, VerdictKind::Advance);
    assert_eq!(w.at(), ["consult.explore.shortlist"]);
    assert_eq!(w.snap.vars.get("consult_mode"), Some(&json!("explore")));
    assert!(w.visited("consult.sources.soul_explore"));
    // The user picks a path.
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance);
    assert!(w.visited("consult.explore.user_pick"));
    assert_eq!(w.at(), ["consult.__final"]);
    w.call(&skill("hope:shape"), VerdictKind::Advance);
    assert_eq!(w.at(), ["shape.extract"]);
    // A written pick is a pick too.
    let mut w = at_clarify();
    w.advance(&tool(
        "Skill",
        json!({"skill": "hope:consult", "args": "brainstorm"}),
    ));
    w.advance(&Event::prompt("the second one"));
    assert_eq!(w.at(), ["consult.__final"]);
}

#[test]
fn an_obvious_need_goes_straight_to_shape() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("rename `foo` to `bar` in src/lib.rs"));
    assert_eq!(w.at(), ["intent.acknowledge"]);
    w.call(&skill("hope:shape"), VerdictKind::Advance);
    assert_eq!(w.at(), ["shape.extract"]);
    assert!(w.visited("intent.emit_brief") && flag(&w, "intent_brief"));
}

#[test]
fn bond_redirects_when_the_turn_ends_without_a_blueprint_question() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("/hope:bond split the work"));
    assert_eq!(w.at(), ["bond.design"]);
    w.advance(&Event::lifecycle("Stop"));
    assert!(w.visited("bond.redirect"));
    assert_eq!(w.at(), ["bond.__final"]);
}

#[test]
fn bond_takes_at_most_three_revisions() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("/hope:bond split the work"));
    for round in 1..=3 {
        w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance);
        assert_eq!(w.at(), ["bond.confirm"]);
        w.advance(&Event::prompt("adjust: one more reviewer"));
        assert_eq!(w.at(), ["bond.design"], "revision {round}");
        assert_eq!(w.snap.vars.get("bond_revisions"), Some(&json!(round)));
    }
    // The fourth adjustment is not taken: proceed with the current design, or cancel.
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance);
    w.advance(&Event::prompt("adjust again"));
    assert_eq!(w.at(), ["bond.confirm"]);
    w.call(&tool("Task", json!({})), VerdictKind::Advance);
    assert_eq!(w.at(), ["bond.__final"]);
    // A new bond counts afresh.
    w.advance(&Event::prompt("/hope:bond again"));
    assert_eq!(w.snap.vars.get("bond_revisions"), Some(&json!(0)));
}

#[test]
fn intent_clarifies_at_most_three_rounds() {
    let mut w = at_clarify();
    assert_eq!(w.snap.vars.get("clarify_rounds"), Some(&json!(1)));
    for round in 2..=3 {
        w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance);
        assert_eq!(w.at(), ["intent.clarify"]);
        assert_eq!(w.snap.vars.get("clarify_rounds"), Some(&json!(round)));
    }
    // A fourth round is advised against ("gates advise, never prevent"), naming the escape.
    let v = w.gate(&tool("AskUserQuestion", json!({})));
    assert_eq!((v.kind, v.decision), (VerdictKind::Deny, Decision::Allow));
    let warning = v.warning.expect("advised");
    assert!(
        warning.contains("Three clarify rounds are done") && warning.contains("proceed anyway"),
        "{warning}"
    );
    // The user's "proceed anyway" emits the brief.
    w.advance(&Event::prompt("ok, proceed anyway"));
    assert!(w.visited("intent.emit_brief") && flag(&w, "intent_brief"));
    // A new intent counts afresh.
    w.advance(&Event::prompt("/hope:intent"));
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance);
    assert_eq!(w.snap.vars.get("clarify_rounds"), Some(&json!(1)));
    let v = w.gate(&tool("AskUserQuestion", json!({})));
    assert_eq!(v.kind, VerdictKind::Advance);
}
