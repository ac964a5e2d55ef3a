//! Walks through seed 000's subchain sequences (starlog_initialization, waypoint_journey,
//! giint_workflow): after every call, the node the sequence is at, its progress and the
//! recovery it offers; then a walk that leaves the path.

use crate::support::walk as common;

use common::Walk;
use seed::engine::{Decision, VerdictKind};

/// What the sequence shows after one call.
struct After {
    call: &'static str,
    step: &'static str,
    overall: f64,
    steps_left: u32,
    in_loop: bool,
    /// The legal next calls, the expected one first.
    next: &'static [&'static str],
}

/// Makes each call (it must advance) and checks the node, progress and recovery after it.
fn walk(sequence: &str, first_call: &str, rows: &[After]) {
    let mut w = Walk::builtin(sequence);
    let st = w.status();
    assert_eq!(
        (st.step.as_str(), st.progress.overall),
        ("start", 0.0),
        "{sequence}"
    );
    assert_eq!(w.next_tool().as_deref(), Some(first_call), "{sequence}");
    for r in rows {
        let v = w.call(r.call);
        assert_eq!(
            (v.kind, v.decision),
            (VerdictKind::Advance, Decision::Allow),
            "{}",
            r.call
        );
        let st = w.status();
        let next: Vec<&str> = st.recovery.next.iter().map(|n| n.tool.as_str()).collect();
        assert_eq!(st.step, r.step, "after {}", r.call);
        assert_eq!(st.current, [r.step], "after {}", r.call);
        assert_eq!(w.overall(), r.overall, "after {}", r.call);
        assert_eq!(
            (st.progress.steps_remaining, st.progress.in_loop),
            (Some(r.steps_left), r.in_loop),
            "after {}",
            r.call
        );
        assert_eq!(next, r.next, "after {}", r.call);
        let done = r.next.is_empty();
        assert_eq!(st.progress.done, done, "after {}", r.call);
        if done {
            assert!(st.recovery.suggestions.is_empty(), "{:?}", st.recovery);
        } else {
            let others = if r.next.len() > 1 {
                format!(" (or {})", r.next[1..].join(", "))
            } else {
                String::new()
            };
            assert_eq!(
                st.recovery.suggestions,
                [format!("Next: call {}{others}.", r.next[0])],
                "after {}",
                r.call
            );
        }
        assert!(st.progress.highest >= st.progress.overall);
    }
}

#[test]
fn starlog_initialization_through_init_project() {
    walk(
        "starlog_initialization",
        "mcp__starlog__check",
        &[
            After {
                call: "mcp__starlog__check",
                step: "starlog.check",
                overall: 25.0,
                steps_left: 2,
                in_loop: false,
                next: &["mcp__starlog__orient", "mcp__starlog__init_project"],
            },
            After {
                call: "mcp__starlog__init_project",
                step: "starlog.init_project",
                overall: 50.0,
                steps_left: 2,
                in_loop: false,
                next: &["mcp__starlog__orient"],
            },
            After {
                call: "mcp__starlog__orient",
                step: "starlog.orient",
                overall: 75.0,
                steps_left: 1,
                in_loop: false,
                next: &["mcp__starship__fly"],
            },
            After {
                call: "mcp__starship__fly",
                step: "starship.fly",
                overall: 100.0,
                steps_left: 0,
                in_loop: false,
                next: &[],
            },
        ],
    );
}

#[test]
fn starlog_initialization_straight_to_orient_skips_the_registration() {
    walk(
        "starlog_initialization",
        "mcp__starlog__check",
        &[
            After {
                call: "mcp__starlog__check",
                step: "starlog.check",
                overall: 25.0,
                steps_left: 2,
                in_loop: false,
                next: &["mcp__starlog__orient", "mcp__starlog__init_project"],
            },
            // Progress is measured on the longest way (through init_project): skipping it
            // jumps ahead, never back.
            After {
                call: "mcp__starlog__orient",
                step: "starlog.orient",
                overall: 75.0,
                steps_left: 1,
                in_loop: false,
                next: &["mcp__starship__fly"],
            },
            After {
                call: "mcp__starship__fly",
                step: "starship.fly",
                overall: 100.0,
                steps_left: 0,
                in_loop: false,
                next: &[],
            },
        ],
    );
}

#[test]
fn waypoint_journey_navigates_in_a_loop_then_completes() {
    let navigate = || After {
        call: "mcp__waypoint__navigate_to_next_waypoint",
        step: "waypoint.navigate_to_next_waypoint",
        overall: 66.7,
        steps_left: 1,
        in_loop: true,
        next: &[
            "mcp__waypoint__complete_journey",
            "mcp__waypoint__navigate_to_next_waypoint",
        ],
    };
    walk(
        "waypoint_journey",
        "mcp__waypoint__start_waypoint_journey",
        &[
            After {
                call: "mcp__waypoint__start_waypoint_journey",
                step: "waypoint.start_waypoint_journey",
                overall: 33.3,
                steps_left: 2,
                in_loop: false,
                next: &["mcp__waypoint__navigate_to_next_waypoint"],
            },
            navigate(),
            // Another waypoint: the same node and progress, never lower.
            navigate(),
            navigate(),
            After {
                call: "mcp__waypoint__complete_journey",
                step: "waypoint.complete_journey",
                overall: 100.0,
                steps_left: 0,
                in_loop: false,
                next: &[],
            },
        ],
    );
}

#[test]
fn giint_workflow_repeats_features_and_tasks_then_responds() {
    let feature = || After {
        call: "mcp__giint__add_feature",
        step: "giint.add_feature",
        overall: 40.0,
        steps_left: 3,
        in_loop: true,
        next: &["mcp__giint__add_task", "mcp__giint__add_feature"],
    };
    let task = || After {
        call: "mcp__giint__add_task",
        step: "giint.add_task",
        overall: 60.0,
        steps_left: 2,
        in_loop: true,
        next: &["mcp__giint__respond", "mcp__giint__add_task"],
    };
    walk(
        "giint_workflow",
        "mcp__giint__create_project",
        &[
            After {
                call: "mcp__giint__create_project",
                step: "giint.create_project",
                overall: 20.0,
                steps_left: 4,
                in_loop: false,
                next: &["mcp__giint__add_feature"],
            },
            feature(),
            feature(),
            task(),
            task(),
            After {
                call: "mcp__giint__respond",
                step: "giint.respond",
                overall: 80.0,
                steps_left: 1,
                in_loop: false,
                next: &["mcp__giint__update_task_status"],
            },
            After {
                call: "mcp__giint__update_task_status",
                step: "giint.update_task_status",
                overall: 100.0,
                steps_left: 0,
                in_loop: false,
                next: &[],
            },
        ],
    );
}

/// Seed 000: "the LLM literally cannot get lost" and "Cannot accidentally jump to wrong
/// tool/sequence": a step of the sequence's own taken out of order is refused (not only
/// warned, whatever `off_path` says), with the way to it, and the sequence stays where it was.
/// A call the sequence does not name is still only warned (`off_path: warn`).
fn out_of_order(sequence: &str, first: &str, off: &str, way: &str) {
    let mut w = Walk::builtin(sequence);
    w.call(first);
    let (step, overall, next) = (w.step(), w.overall(), w.next_tool());
    let at = seed::engine::wording::position_word(w.status().step_is_call);
    let v = w.call(off);
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::OffPath, Decision::Deny),
        "{off}"
    );
    assert_eq!(v.warning, None, "refused, not warned");
    // The call comes later on the path: how many calls before it, then which.
    let ahead = way.split(", then ").count();
    let calls = if ahead == 1 { "call" } else { "calls" };
    assert!(
        v.reason.starts_with(&format!(
            "seed: {off} comes later in \"{sequence}\" (after {ahead} more {calls}; {at}: \"{step}\")."
        )) && v.reason.contains(&format!("First call {way}; after that, {off} is allowed.")),
        "{}",
        v.reason
    );
    assert_eq!(v.next, next, "the next step is named");
    assert_eq!(
        (w.step(), w.overall(), w.next_tool()),
        (step, overall, next),
        "a refused call does not move the sequence"
    );
    let st = w.status();
    assert!(st.denied_call.is_some(), "recovery shows the refused call");
    // A call the sequence has never heard of: warned, with the next step.
    let v = w.gate("WebFetch");
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::OffPath, Decision::Allow)
    );
    assert!(
        v.warning
            .as_deref()
            .is_some_and(|m| m.ends_with(&format!("Next: call {}.", st.next.expect("next").tool))),
        "{v:?}"
    );
}

#[test]
fn starlog_initialization_refuses_a_step_out_of_order() {
    out_of_order(
        "starlog_initialization",
        "mcp__starlog__check",
        "mcp__starship__fly",
        "mcp__starlog__orient",
    );
}

#[test]
fn waypoint_journey_refuses_a_step_out_of_order() {
    out_of_order(
        "waypoint_journey",
        "mcp__waypoint__start_waypoint_journey",
        "mcp__waypoint__complete_journey",
        "mcp__waypoint__navigate_to_next_waypoint",
    );
}

#[test]
fn giint_workflow_refuses_a_step_out_of_order() {
    out_of_order(
        "giint_workflow",
        "mcp__giint__create_project",
        "mcp__giint__respond",
        "mcp__giint__add_feature, then mcp__giint__add_task",
    );
}

/// Seed 000's own example of a step out of order: `starship.fly` before `starlog.check`
/// ("starlog.check": next_allowed orient or init_project; "starlog.orient": next_allowed fly).
/// A step already taken is refused too, and `out_of_order: "warn"` lets a sequence soften it.
#[test]
fn the_railroad_cannot_be_left_by_a_call_to_its_own_tools() {
    let mut w = Walk::builtin("starlog_initialization");
    let v = w.call("mcp__starship__fly");
    assert_eq!((v.kind, v.decision), (VerdictKind::OffPath, Decision::Deny));
    assert!(
        v.reason
            .contains("First call mcp__starlog__check, then mcp__starlog__orient"),
        "{}",
        v.reason
    );
    w.call("mcp__starlog__check");
    w.call("mcp__starlog__orient");
    let again = w.call("mcp__starlog__check");
    assert_eq!(again.decision, Decision::Deny, "{}", again.reason);
    assert_eq!(w.step(), "starlog.orient");

    let soft = r#"{"name": "soft", "off_path": "warn", "out_of_order": "warn",
        "tool_transitions": {"starlog.check": {"next_allowed": ["starlog.orient"]}}}"#;
    let loaded = seed::dialects::load_text("soft.json", soft, &|_| None).expect("loads");
    let mut w = Walk::new(seed::engine::Machine::new(loaded.chart));
    let v = w.call("mcp__starlog__orient");
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::OffPath, Decision::Allow)
    );
    let bad = soft.replace(r#""out_of_order": "warn""#, r#""out_of_order": "never""#);
    let err = seed::dialects::load_text("soft.json", &bad, &|_| None).expect_err("refused");
    assert_eq!(
        (err.line, err.message.as_str()),
        (
            1,
            "`out_of_order` must be \"observe\", \"warn\" or \"deny\""
        )
    );
}
