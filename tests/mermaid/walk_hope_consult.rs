//! `hope` (seed 004 §5): consult's invocation sources. Shape's step 2, the loop's stall
//! detection and its expert review each run consult in their own mode and then go on with
//! their own step; `/hope:summon` and `/hope:panel` pick single-expert or panel mode.

use crate::support::mermaid as mermaid_common;

use mermaid_common::{Walk, skill, tool};
use seed::engine::{Event, VerdictKind};
use serde_json::{Value, json};

fn at_shape() -> Walk {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("add a caching layer"));
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance);
    w.call(&skill("hope:shape"), VerdictKind::Advance);
    assert_eq!(w.at(), ["shape.extract"]);
    w
}

fn in_waves() -> Walk {
    let mut w = at_shape();
    for e in [
        skill("hope:consult"),
        skill("hope:consult"),
        skill("hope:loop"),
        tool("AskUserQuestion", json!({})),
        tool("TodoWrite", json!({})),
        tool("Task", json!({})),
    ] {
        w.advance(&e);
    }
    assert_eq!(w.at(), ["loop.wave_exec"]);
    w
}

fn no_trip_pending(w: &Walk) {
    assert_eq!(w.snap.vars.get("consult_return"), Some(&Value::Null));
}

#[test]
fn shape_step_two_is_consults_domain_panel_and_shape_goes_on() {
    let mut w = at_shape();
    assert_eq!(w.next().as_deref(), Some("hope:consult"));
    w.call(&skill("hope:consult"), VerdictKind::Advance);
    assert_eq!(
        w.at(),
        ["shape.__final"],
        "expert, synthesis and output followed"
    );
    for k in [
        "consult.sources.shape_step",
        "consult.blocklist",
        "consult.panel.debate",
        "consult.panel.synthesize",
        "shape.expert",
        "shape.output",
    ] {
        assert!(w.visited(k), "{k}");
    }
    assert!(
        !w.visited("consult.single.detect_expert"),
        "panel, not one expert"
    );
    no_trip_pending(&w);
    // The approach is not validated yet: that is the next consult, from shape's end.
    let v = w.gate(&tool("ExitPlanMode", json!({"plan": "cache reads"})));
    assert!(v.reason.contains("Coverage is missing"), "{}", v.reason);
    w.call(&skill("hope:consult"), VerdictKind::Advance);
    assert_eq!(w.at(), ["consult.__final"]);
}

#[test]
fn the_loops_expert_review_is_consults_thorough_review() {
    let mut w = in_waves();
    w.snap.visited.clear();
    w.call(&skill("hope:consult"), VerdictKind::Advance).expect(
        "loop.expert_review",
        79.0,
        Some("Bash"),
    );
    for k in [
        "consult.sources.loop_review",
        "consult.panel.review_select",
        "consult.panel.review_findings",
    ] {
        assert!(w.visited(k), "{k}");
    }
    assert!(!w.visited("consult.panel.debate"), "a review, not a debate");
    no_trip_pending(&w);
}

#[test]
fn a_stalled_wave_is_unblocked_and_the_retry_that_works_goes_on_with_the_waves() {
    let mut w = in_waves();
    w.advance(&Event::tool_error("Task", json!({"prompt": "wave 2"})));
    assert_eq!(w.at(), ["loop.stall"]);
    assert_eq!(w.next().as_deref(), Some("hope:consult"));
    w.call(&skill("hope:consult"), VerdictKind::Advance);
    // The consult's recommendation waits to be applied: the stalled work, retried.
    assert_eq!(w.at(), ["consult.unblock.recommend"]);
    for k in [
        "consult.sources.loop_stall",
        "consult.unblock.parse_blocker",
        "consult.unblock.diagnose",
    ] {
        assert!(w.visited(k), "{k}");
    }
    assert_eq!(w.next().as_deref(), Some("Task"));
    // A retry that fails is retried…
    w.advance(&Event::tool_error(
        "Task",
        json!({"prompt": "wave 2, retry"}),
    ));
    assert_eq!(w.at(), ["consult.unblock.recommend"]);
    // …and one that works ends the consult: the loop goes on.
    w.call(
        &tool("Task", json!({"prompt": "wave 2, retry"})),
        VerdictKind::Advance,
    )
    .expect("loop.wave_exec", 67.0, Some("Task"));
    assert!(!w.visited("consult.unblock.escalate"));
    no_trip_pending(&w);
}

#[test]
fn the_third_failed_retry_escalates_to_a_thorough_review() {
    let mut w = in_waves();
    w.advance(&Event::tool_error("Task", json!({})));
    w.call(&skill("hope:consult"), VerdictKind::Advance);
    for retry in 1..=2 {
        w.advance(&Event::tool_error("Task", json!({})));
        assert_eq!(w.at(), ["consult.unblock.recommend"], "retry {retry}");
    }
    w.advance(&Event::tool_error("Task", json!({})));
    for k in ["consult.unblock.escalate", "consult.panel.review_findings"] {
        assert!(w.visited(k), "{k}");
    }
    assert_eq!(
        w.at(),
        ["loop.wave_exec"],
        "after the review the waves go on"
    );
    no_trip_pending(&w);
    // A later stall counts its retries afresh.
    w.advance(&Event::tool_error("Task", json!({})));
    w.call(&skill("hope:consult"), VerdictKind::Advance);
    w.advance(&Event::tool_error("Task", json!({})));
    assert_eq!(w.at(), ["consult.unblock.recommend"]);
}

#[test]
fn commands_choose_one_expert_or_the_panel() {
    let mut w = in_waves();
    w.snap.visited.clear();
    // The user's consult takes the turn; when it ends the waves go on.
    w.advance(&Event::prompt("/hope:summon Kent Beck"));
    assert_eq!(w.at(), ["consult.sources.user_cmd"]);
    w.advance(&Event::lifecycle("Stop"));
    assert_eq!(w.at(), ["loop.wave_exec"]);
    assert!(w.visited("consult.single.detect_expert"));
    assert!(!w.visited("consult.panel.select_experts"));
    w.snap.visited.clear();
    w.advance(&Event::prompt("/hope:panel caching strategy"));
    assert_eq!(w.at(), ["consult.sources.user_cmd"]);
    w.advance(&Event::lifecycle("Stop"));
    assert_eq!(w.at(), ["loop.wave_exec"]);
    assert!(w.visited("consult.panel.select_experts"));
    assert!(!w.visited("consult.single.detect_expert"));
    no_trip_pending(&w);
}
