//! Folding a log of denials: a fold reaches exactly the state the hook's steps reached (it
//! only leaves out the words of each refusal, which the record holds), and the deadlock
//! breaker's counts stay bounded however many distinct calls are refused.

use crate::support::walk as common;

use common::Walk;
use proptest::prelude::*;
use seed::dialects;
use seed::engine::{Decision, Event, Facts, Machine, Phase};
use serde_json::{Value, json};

fn machine(name: &str) -> Machine {
    Machine::new(
        dialects::builtin(name)
            .expect("built-in")
            .expect("loads")
            .chart,
    )
}

/// Calls that compound_intelligence and hope move on, refuse, or hold neutral; strays of a
/// server no step knows; and the ExitPlanMode chain hope's gate counts.
const CALLS: &[&str] = &[
    "mcp__seed__who_am_i",
    "mcp__seed__what_do_i_do",
    "mcp__starlog__check",
    "mcp__starlog__orient",
    "mcp__starship__fly",
    "mcp__waypoint__start_waypoint_journey",
    "mcp__waypoint__navigate_to_next_waypoint",
    "Read",
    "Write",
    "Bash",
    "ExitPlanMode",
    "AskUserQuestion",
    "mcp__stray__a",
    "mcp__stray__b",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The hook steps each call with its full verdict; `status` and the hook's catch-up fold
    /// the records. Both reach the same snapshot, denials, counts and escalations included.
    #[test]
    fn a_fold_reaches_the_snapshot_the_hooks_steps_reached(
        name in prop::sample::select(vec!["compound_intelligence", "hope"]),
        calls in prop::collection::vec((0..CALLS.len(), any::<bool>(), any::<bool>()), 1..80),
    ) {
        let m = machine(name);
        let mut facts = Facts::new();
        let mut log: Vec<(Phase, Event, Facts)> = Vec::new();
        let mut snap = m.start(&facts);
        for (i, advance, active) in calls {
            facts.insert("waypoint_status".into(), if active { json!("active") } else { Value::Null });
            let ev = Event::tool(CALLS[i], json!({}));
            let v = m.step(&mut snap, Phase::Gate, &ev, &facts).verdict.expect("a verdict");
            log.push((Phase::Gate, ev.clone(), facts.clone()));
            if advance && v.decision == Decision::Allow {
                m.step(&mut snap, Phase::Advance, &ev, &facts);
                log.push((Phase::Advance, ev, facts.clone()));
            }
        }
        let folded = m.fold(log.iter().map(|(p, e, f)| (*p, e, f)));
        prop_assert_eq!(folded, snap);
    }
}

#[test]
fn a_replayed_refusal_has_the_decision_without_the_advice() {
    let m = machine("compound_intelligence");
    let ev = Event::tool("mcp__starship__fly", json!({}));
    let facts = Facts::new();
    let mut hook = m.start(&facts);
    let mut fold = m.start(&facts);
    let told = m.step(&mut hook, Phase::Gate, &ev, &facts).verdict.unwrap();
    let replayed = m
        .replay_step(&mut fold, Phase::Gate, &ev, &facts)
        .verdict
        .unwrap();
    assert_eq!(
        (replayed.decision, replayed.repeat, replayed.denied_by),
        (told.decision, told.repeat, told.denied_by)
    );
    assert!(
        told.reason.contains("after 4 more calls"),
        "{}",
        told.reason
    );
    assert_eq!(told.next.as_deref(), Some("mcp__seed__who_am_i"));
    assert_eq!(replayed.next, None, "the way is not searched");
    assert_eq!(hook, fold);
}

#[test]
fn the_breaker_counts_a_bounded_number_of_calls_and_keeps_the_retried_ones() {
    let mut w = Walk::builtin("compound_intelligence");
    // Write is refused twice, then a thousand calls no step knows are refused once each.
    for n in 1..=2 {
        assert_eq!(w.gate("Write").repeat, n);
    }
    for i in 0..1_000 {
        assert_eq!(
            w.gate(&format!("mcp__stray__t{i}")).decision,
            Decision::Deny
        );
    }
    assert!(
        w.snap.denials.len() <= 256,
        "the snapshot keeps {} counts",
        w.snap.denials.len()
    );
    // Write's count outlived the strays': its third refusal is the third, and the next
    // attempt escalates to asking the user, as compound_intelligence says.
    let third = w.gate("Write");
    assert_eq!((third.repeat, third.decision), (3, Decision::Deny));
    let fourth = w.gate("Write");
    assert_eq!((fourth.escalated, fourth.decision), (true, Decision::Ask));
    // The newest stray is counted too: its second refusal is its second.
    assert_eq!(w.gate("mcp__stray__t999").repeat, 2);
}
