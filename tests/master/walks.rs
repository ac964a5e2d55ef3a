//! Walks through compound_intelligence, seed 000's master sequence: each call with the verdict
//! it gets, then the node, progress and next step the sequence is at. The subchain sequences
//! have their walks in `walks_master_subchains.rs`.

use crate::support::walk as common;

use common::Walk;
use seed::engine::{Decision, VerdictKind};
use serde_json::json;

/// compound_intelligence's base and context layers, in order.
const UP_TO_THE_FLIGHT: &[&str] = &[
    "mcp__seed__who_am_i",
    "mcp__seed__what_do_i_do",
    "mcp__starlog__check",
    "mcp__starlog__orient",
    "mcp__starship__fly",
];

/// Calls each tool in turn; every one must be allowed.
fn walk_allowed(w: &mut Walk, tools: &[&str]) {
    for t in tools {
        assert_eq!(w.call(t).decision, Decision::Allow, "{t}");
    }
}

#[test]
fn compound_intelligence_happy_path_fills_the_three_layers() {
    let mut w = Walk::builtin("compound_intelligence");
    assert_eq!(w.step(), "start");
    assert_eq!(w.overall(), 0.0);
    assert_eq!(w.next_tool().as_deref(), Some("mcp__seed__who_am_i"));

    // Base layer: who_am_i, what_do_i_do.
    assert_eq!(w.call("mcp__seed__who_am_i").kind, VerdictKind::Advance);
    assert_eq!(
        (w.step(), w.overall(), w.layer("base")),
        ("seed.who_am_i".into(), 25.0, 50.0)
    );
    assert_eq!(w.next_tool().as_deref(), Some("mcp__seed__what_do_i_do"));
    assert_eq!(w.call("mcp__seed__what_do_i_do").kind, VerdictKind::Advance);
    assert_eq!(
        (w.overall(), w.layer("base"), w.layer("context")),
        (50.0, 100.0, 0.0)
    );

    // Context layer: check, orient, fly.
    assert_eq!(w.call("mcp__starlog__check").kind, VerdictKind::Advance);
    assert_eq!(w.layer("context"), 25.0);
    let next = w
        .status()
        .recovery
        .next
        .iter()
        .map(|n| n.tool.clone())
        .collect::<Vec<_>>();
    assert_eq!(next, ["mcp__starlog__orient", "mcp__starlog__init_project"]);
    assert_eq!(w.call("mcp__starlog__orient").kind, VerdictKind::Advance);
    assert_eq!(w.layer("context"), 75.0);
    assert_eq!(w.call("mcp__starship__fly").kind, VerdictKind::Advance);
    assert_eq!(
        (w.overall(), w.layer("context"), w.layer("execution")),
        (75.0, 100.0, 0.0)
    );
    assert_eq!(
        w.status().progress.steps_remaining,
        Some(2),
        "the shortest subchain has two calls"
    );

    // Execution layer: the HEAVEN subchain finishes the sequence.
    assert_eq!(
        w.call("mcp__heaven-subagent__spawn").kind,
        VerdictKind::Advance
    );
    assert!(w.overall() > 75.0 && w.overall() < 100.0);
    assert_eq!(
        w.call("mcp__heaven-subagent__collect_results").kind,
        VerdictKind::Advance
    );
    let st = w.status();
    assert!(st.progress.done);
    assert_eq!((st.progress.overall, st.progress.highest), (100.0, 100.0));
    assert_eq!(st.next, None);
}

#[test]
fn compound_intelligence_denies_off_path_calls_with_the_next_tool() {
    let mut w = Walk::builtin("compound_intelligence");
    w.call("mcp__seed__who_am_i");

    let v = w.gate("mcp__starship__fly");
    assert_eq!((v.kind, v.decision), (VerdictKind::OffPath, Decision::Deny));
    assert!(
        v.reason.contains("mcp__seed__what_do_i_do"),
        "names the next legal tool: {}",
        v.reason
    );
    assert!(
        v.reason.contains("mcp__starlog__check") && v.reason.contains("mcp__starlog__orient"),
        "names the path to the denied tool: {}",
        v.reason
    );
    assert_eq!(w.step(), "seed.who_am_i", "a gate never moves the sequence");

    // Neutral tools are allowed without moving the sequence.
    let v = w.gate("Read");
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::Neutral, Decision::Allow)
    );
    let v = w.gate("Bash");
    assert_eq!(v.decision, Decision::Deny, "the railroad cannot be left");
}

#[test]
fn deadlock_breaker_asks_the_user_after_three_denials() {
    let mut w = Walk::builtin("compound_intelligence");
    for n in 1..=3 {
        let v = w.gate("Write");
        assert_eq!(
            (v.decision, v.repeat, v.escalated),
            (Decision::Deny, n, false)
        );
    }
    let fourth = w.gate("Write");
    assert!(fourth.escalated);
    assert_eq!(
        fourth.decision,
        Decision::Ask,
        "compound_intelligence falls back to asking the user"
    );
    assert!(fourth.reason.contains("ask the user"), "{}", fourth.reason);
    // Progress resets the breaker.
    w.call("mcp__seed__who_am_i");
    assert_eq!(w.gate("Write").repeat, 1);
}

#[test]
fn deep_state_constraints_intersect_with_the_railroad() {
    let mut w = Walk::builtin("compound_intelligence");
    walk_allowed(&mut w, UP_TO_THE_FLIGHT);
    assert_eq!(
        w.call("mcp__waypoint__start_waypoint_journey").decision,
        Decision::Allow
    );

    // A waypoint journey is active (deep state): tier 2 takes over.
    w.fact("waypoint_status", json!("active"));
    let v = w.gate("mcp__heaven-subagent__spawn");
    assert_eq!(v.decision, Decision::Deny);
    let by = v.denied_by.expect("names who denies");
    assert_eq!(
        (by.state.as_str(), by.tier.as_str()),
        ("waypoint_active_learning", "context")
    );
    assert!(w.status().breadcrumb.contains("waypoint_active_learning"));
    // Only tools allowed by both tiers. Bash: the journey's steps allow it and so does the
    // constraint. Edit: the journey allows it, the constraint's list does not. TodoWrite:
    // neutral on the railroad, not on the constraint's list.
    let v = w.gate("Bash");
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::Neutral, Decision::Allow)
    );
    for tool in ["Edit", "TodoWrite"] {
        let v = w.gate(tool);
        assert_eq!(
            (v.kind, v.decision),
            (VerdictKind::Deny, Decision::Deny),
            "{tool}"
        );
        assert!(
            v.reason.contains("waypoint_active_learning") && v.reason.contains("allows only"),
            "{}",
            v.reason
        );
    }
    // Reading and seed's own status and recovery are on both lists.
    for tool in [
        "Read",
        "Grep",
        "Glob",
        "mcp__seed__status",
        "mcp__seed__recovery",
    ] {
        assert_eq!(w.gate(tool).decision, Decision::Allow, "{tool}");
    }
    let allowed: Vec<String> = w.status().allowed.into();
    for tool in [
        "mcp__waypoint__navigate_to_next_waypoint",
        "Read",
        "Grep",
        "Bash",
        "Write",
        "mcp__seed__recovery",
    ] {
        assert!(allowed.contains(&tool.to_string()), "{tool}: {allowed:?}");
    }
    for tool in ["TodoWrite", "Edit"] {
        assert!(!allowed.contains(&tool.to_string()), "{tool}: {allowed:?}");
    }
    // Every face says what the hook does: neutral calls the constraint refuses are not listed
    // as neutral, and denied rules are named as the calls they refuse.
    let st = w.status();
    for tool in ["TodoWrite", "mcp__seed__how_do_i"] {
        assert!(
            !st.neutral.contains(&tool.to_string()),
            "{tool}: {:?}",
            st.neutral
        );
    }
    let denied: Vec<&str> = st.denied.iter().map(|d| d.pattern.as_str()).collect();
    assert!(
        denied.contains(&"mcp__heaven-subagent__*") && denied.contains(&"mcp__starship__fly"),
        "{denied:?}"
    );
    // seed's own tools pass the railroad anywhere (neutral), but a constraint's list still
    // narrows them: who_am_i is not on it, so the context tier (tier 2) refuses it.
    let v = w.gate("mcp__seed__who_am_i");
    assert_eq!(v.decision, Decision::Deny);
    assert_eq!(v.denied_by.map(|b| b.tier), Some("context".to_string()));
    // Allowed by both tiers: advances.
    assert_eq!(
        w.call("mcp__waypoint__navigate_to_next_waypoint").kind,
        VerdictKind::Advance
    );
    assert!(w.status().progress.in_loop, "navigate loops on itself");

    // A debugging flight forbids waypoint tools, whatever the railroad says.
    w.fact("waypoint_status", json!(null))
        .fact("flight_status", json!("debugging"));
    let v = w.gate("mcp__waypoint__complete_journey");
    assert_eq!(v.decision, Decision::Deny);
    assert_eq!(
        v.denied_by.map(|b| b.state),
        Some("flight_active_debugging".to_string())
    );

    // The constraint lifts when the deep state changes.
    w.fact("flight_status", json!("done"));
    assert_eq!(
        w.call("mcp__waypoint__complete_journey").kind,
        VerdictKind::Advance
    );
    assert!(w.status().progress.done);
}

#[test]
fn a_constraint_that_refuses_every_next_step_leaves_no_legal_step() {
    let mut w = Walk::builtin("compound_intelligence");
    walk_allowed(&mut w, UP_TO_THE_FLIGHT);
    walk_allowed(&mut w, &["mcp__waypoint__start_waypoint_journey"]);
    // The railroad's only next step is a waypoint tool; a debugging flight forbids them all.
    w.fact("flight_status", json!("debugging"));
    assert_eq!(
        w.gate("Read").decision,
        Decision::Allow,
        "facts are sampled on a step"
    );
    let st = w.status();
    let next = st.next.expect("the railroad still has a next step");
    assert_eq!(next.tool, "mcp__waypoint__navigate_to_next_waypoint");
    let by = next.blocked_by.expect("marked as refused");
    assert!(
        by.contains("flight_active_debugging") && by.contains("mcp__waypoint__*"),
        "{by}"
    );
    assert!(
        !st.allowed.is_any() && !st.allowed.calls().contains(&next.tool),
        "a refused step is not allowed: {:?}",
        st.allowed
    );
    assert!(
        st.recovery.suggestions[0].starts_with("No legal step now"),
        "{:?}",
        st.recovery.suggestions
    );
    assert!(
        w.guidance().contains("blocked by deep state"),
        "{}",
        w.guidance()
    );

    let v = w.gate("mcp__waypoint__navigate_to_next_waypoint");
    assert_eq!(v.decision, Decision::Deny);
    assert_eq!(v.next, None, "no call to suggest");
    assert!(v.reason.contains("No legal step now"), "{}", v.reason);

    // When the flight ends, the step is legal again and is suggested plainly.
    w.fact("flight_status", json!("done"));
    assert_eq!(w.gate("Read").decision, Decision::Allow);
    let st = w.status();
    assert_eq!(st.next.and_then(|n| n.blocked_by), None);
    assert!(
        st.recovery
            .suggestions
            .iter()
            .all(|s| !s.starts_with("No legal step"))
    );
}

#[test]
fn guidance_line_is_short_and_names_the_next_tool() {
    let mut w = Walk::builtin("compound_intelligence");
    w.call("mcp__seed__who_am_i");
    let line = w.machine.guidance_line(&w.snap);
    // The next call as the agent makes it, as every refusal names it.
    assert_eq!(
        line,
        "[SEED SEQUENCE] \"compound_intelligence\" · last call: seed.who_am_i · next: mcp__seed__what_do_i_do · 25% done"
    );
    assert!(line.chars().count() <= 300);
}

/// The railroad up to the flight, with a waypoint journey left active by an earlier session.
#[test]
fn a_journey_left_active_does_not_block_identity_or_context() {
    let mut w = Walk::builtin("compound_intelligence");
    w.fact("waypoint_status", json!("active"))
        .fact("flight_status", json!("debugging"));
    // The constraints are about the execution subchains: before them, the railroad alone.
    for tool in UP_TO_THE_FLIGHT {
        let v = w.gate(tool);
        assert_eq!(
            (v.kind, v.decision),
            (VerdictKind::Advance, Decision::Allow),
            "{tool}: {}",
            v.reason
        );
        for read in [
            "Read",
            "Grep",
            "Glob",
            "LS",
            "mcp__seed__status",
            "mcp__seed__recovery",
        ] {
            assert_eq!(
                w.gate(read).decision,
                Decision::Allow,
                "{read} before {tool}"
            );
        }
        let st = w.status();
        assert!(
            !st.breadcrumb.contains("waypoint_active_learning"),
            "{}",
            st.breadcrumb
        );
        assert!(
            st.allowed.calls().contains(&tool.to_string()),
            "{tool}: {:?}",
            st.allowed
        );
        w.call(tool);
    }
    // The journey starts the execution layer: now the first constraint whose `when` holds
    // narrows the railroad.
    w.fact("flight_status", json!(null));
    assert_eq!(
        w.call("mcp__waypoint__start_waypoint_journey").kind,
        VerdictKind::Advance
    );
    let st = w.status();
    assert!(
        st.breadcrumb.contains("waypoint_active_learning"),
        "{}",
        st.breadcrumb
    );
    assert_eq!(w.gate("Edit").decision, Decision::Deny);
}

#[test]
fn a_refusal_names_the_constraint_and_what_lifts_it() {
    let mut w = Walk::builtin("compound_intelligence");
    walk_allowed(&mut w, UP_TO_THE_FLIGHT);
    walk_allowed(&mut w, &["mcp__waypoint__start_waypoint_journey"]);
    w.fact("waypoint_status", json!("active"));
    let lift = "\"waypoint_active_learning\" applies while waypoint_status == \"active\" and the railroad is in layer execution (now waypoint_status is active); it lifts when that no longer holds.";
    // The hook's reason and `seed recovery` say the same: the deep state forbids Edit here,
    // although the journey's step allows it.
    let v = w.gate("Edit");
    assert_eq!(v.decision, Decision::Deny);
    assert!(v.reason.contains(lift), "{}", v.reason);
    assert_eq!(v.reason.matches("applies while").count(), 1, "{}", v.reason);
    let st = w.status();
    assert_eq!(st.denied_call.as_deref(), Some("Edit"));
    assert_eq!(
        st.recovery.suggestions[..2],
        [
            lift.to_string(),
            "Edit is not allowed now: \"waypoint_active_learning\" (context) allows only Read, Grep, Glob, LS, mcp__seed__status, mcp__seed__recovery, Bash, Write, mcp__waypoint__navigate_to_next_waypoint, mcp__waypoint__complete_journey.".to_string(),
        ],
    );
    assert!(
        st.recovery
            .suggestions
            .iter()
            .all(|s| !s.contains("not reachable")),
        "{:?}",
        st.recovery.suggestions
    );

    // An empty intersection: the one next step is refused. The suggestion names the
    // constraint, the value it reads now and what lifts it.
    w.fact("waypoint_status", json!(null))
        .fact("flight_status", json!("debugging"));
    let v = w.gate("mcp__waypoint__navigate_to_next_waypoint");
    assert_eq!(v.decision, Decision::Deny);
    let st = w.status();
    let stuck = &st.recovery.suggestions[0];
    assert!(stuck.starts_with("No legal step now: the next step of \"compound_intelligence\" is mcp__waypoint__navigate_to_next_waypoint, but \"flight_active_debugging\" (context) denies mcp__waypoint__*"), "{stuck}");
    assert!(
        stuck.ends_with("\"flight_active_debugging\" applies while flight_status == \"debugging\" and the railroad is in layer execution (now flight_status is debugging); it lifts when that no longer holds. Until then, ask the user."),
        "{stuck}"
    );
    assert_eq!(
        st.recovery.suggestions.len(),
        1,
        "{:?}",
        st.recovery.suggestions
    );
    assert_eq!(v.reason.matches("applies while").count(), 1, "{}", v.reason);
}
