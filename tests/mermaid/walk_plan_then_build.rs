//! `plan_then_build`: read, then plan, then build; no change before the plan is approved,
//! approval being what a session shows (ExitPlanMode accepted, or the user's go-ahead).

use super::everyday::*;
use seed::engine::{Decision, Event, VerdictKind};
use serde_json::json;

fn exit_plan_mode() -> Event {
    Event::tool(
        "ExitPlanMode",
        json!({ "plan": "1. add a cache\n2. test it" }),
    )
}

#[test]
fn no_change_before_the_plan_is_accepted() {
    let mut w = advise("plan_then_build");
    assert_eq!(w.at(), ["exploring"]);
    // A plan before reading anything: read first.
    let v = w.gate(&exit_plan_mode());
    assert_eq!(
        warned(&v)
            .split(" — ")
            .nth(1)
            .map(|s| s.contains("Read the code the plan touches first")),
        Some(true),
        "{v:?}"
    );
    let v = w.gate(&edit("/p/src/loader.rs"));
    assert!(
        warned(&v).contains("No changes before the plan is approved"),
        "{v:?}"
    );
    // Reading is the first step.
    assert_eq!(
        run(&mut w, &read("/p/src/loader.rs")).kind,
        VerdictKind::Advance
    );
    assert_eq!(w.at(), ["planning"]);
    // The plan may be written to Claude Code's plan file; nothing else changes yet.
    assert!(quiet(&run(
        &mut w,
        &write("/home/me/.claude/plans/cache.md")
    )));
    assert_eq!(w.gate(&edit("/p/src/loader.rs")).kind, VerdictKind::Deny);
    // The user accepts the plan: ExitPlanMode ran.
    assert_eq!(run(&mut w, &exit_plan_mode()).kind, VerdictKind::Advance);
    assert_eq!(w.at(), ["building"]);
    assert!(quiet(&run(&mut w, &edit("/p/src/loader.rs"))));
}

#[test]
fn a_rejected_plan_keeps_planning() {
    let mut w = advise("plan_then_build");
    run(&mut w, &read("/p/src/loader.rs"));
    // The user rejects it: the call fails (PostToolUseFailure), nothing is approved.
    w.gate(&exit_plan_mode());
    w.advance(&Event::tool_error("ExitPlanMode", json!({"plan": "…"})));
    assert_eq!(w.at(), ["planning"]);
}

#[test]
fn the_users_go_ahead_approves_a_plan_written_out() {
    // Print mode has no ExitPlanMode: the plan is text, and the next prompt approves it.
    let mut w = advise("plan_then_build");
    run(&mut w, &bash("git log --oneline -5"));
    assert_eq!(w.at(), ["planning"]);
    w.advance(&prompt("why a cache and not a memo table?"));
    assert_eq!(w.at(), ["planning"], "a question is not a go-ahead");
    w.advance(&prompt("Looks good, go ahead."));
    assert_eq!(w.at(), ["building"]);
    for yes in ["LGTM", "yes, do that", "OK", "Approved — ship it"] {
        let mut w = advise("plan_then_build");
        w.advance(&prompt(yes));
        assert_eq!(w.at(), ["building"], "{yes}");
    }
}

#[test]
fn enforce_refuses_changes_before_the_go_ahead() {
    let mut w = enforce("plan_then_build");
    let v = w.gate(&write("/p/src/new.rs"));
    assert!(refused(&v).contains("No changes before the plan is approved"));
    w.advance(&prompt("go ahead"));
    assert_eq!(w.gate(&write("/p/src/new.rs")).decision, Decision::Allow);
}
