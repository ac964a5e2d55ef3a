//! Walks through compound_intelligence's execution layer (75–100%): each subchain (GIINT,
//! waypoint, Carton, HEAVEN) from the flight to its ending, with the progress after each call.

use crate::support::walk as common;

use common::Walk;
use seed::engine::{Decision, VerdictKind};

/// compound_intelligence's base and context layers, in order.
const UP_TO_THE_FLIGHT: &[&str] = &[
    "mcp__seed__who_am_i",
    "mcp__seed__what_do_i_do",
    "mcp__starlog__check",
    "mcp__starlog__orient",
    "mcp__starship__fly",
];

fn walk_allowed(w: &mut Walk, tools: &[&str]) {
    for t in tools {
        assert_eq!(w.call(t).decision, Decision::Allow, "{t}");
    }
}

/// Each subchain of the execution layer (75–100%) fills it k of n along its own calls.
fn subchain(calls: &[(&str, f64, f64, bool)]) {
    let mut w = Walk::builtin("compound_intelligence");
    walk_allowed(&mut w, UP_TO_THE_FLIGHT);
    assert_eq!((w.overall(), w.layer("execution")), (75.0, 0.0));
    for &(tool, overall, execution, in_loop) in calls {
        assert_eq!(w.call(tool).kind, VerdictKind::Advance, "{tool}");
        let st = w.status();
        assert_eq!(
            (w.overall(), w.layer("execution"), st.progress.in_loop),
            (overall, execution, in_loop),
            "after {tool}"
        );
        let current: Vec<&str> = st
            .progress
            .layers
            .iter()
            .filter(|l| l.current)
            .map(|l| l.name.as_str())
            .collect();
        assert_eq!(current, ["execution"], "after {tool}");
    }
    let st = w.status();
    assert!(st.progress.done && st.next.is_none());
}

#[test]
fn the_giint_subchain_adds_features_and_tasks_then_responds() {
    subchain(&[
        ("mcp__giint__create_project", 80.0, 20.0, false),
        ("mcp__giint__add_feature", 85.0, 40.0, true),
        // A project has several features, a feature several tasks, as in giint_workflow.
        ("mcp__giint__add_feature", 85.0, 40.0, true),
        ("mcp__giint__add_task", 90.0, 60.0, true),
        ("mcp__giint__add_task", 90.0, 60.0, true),
        ("mcp__giint__respond", 95.0, 80.0, false),
        ("mcp__giint__update_task_status", 100.0, 100.0, false),
    ]);
}

#[test]
fn the_carton_subchain_captures_queries_and_syncs() {
    subchain(&[
        ("mcp__carton__add_concept", 83.3, 33.3, false),
        ("mcp__carton__query_wiki_graph", 91.7, 66.7, false),
        ("mcp__carton__sync_concepts", 100.0, 100.0, false),
    ]);
}

#[test]
fn the_heaven_and_waypoint_subchains_fill_the_layer_step_by_step() {
    subchain(&[
        ("mcp__heaven-subagent__spawn", 87.5, 50.0, false),
        ("mcp__heaven-subagent__collect_results", 100.0, 100.0, false),
    ]);
    subchain(&[
        ("mcp__waypoint__start_waypoint_journey", 83.3, 33.3, false),
        ("mcp__waypoint__navigate_to_next_waypoint", 91.7, 66.7, true),
        ("mcp__waypoint__navigate_to_next_waypoint", 91.7, 66.7, true),
        ("mcp__waypoint__complete_journey", 100.0, 100.0, false),
    ]);
}

#[test]
fn the_giint_chain_matches_giint_workflow() {
    // The same calls, the same order, the same loops as the subchain's own sequence.
    let sub = Walk::builtin("giint_workflow");
    let master = Walk::builtin("compound_intelligence");
    let edges = |w: &Walk| -> Vec<(String, String)> {
        let c = &w.machine.chart;
        let mut e: Vec<(String, String)> = c
            .transitions
            .iter()
            .filter(|t| c.state(t.source).name.starts_with("giint."))
            .flat_map(|t| {
                t.targets
                    .iter()
                    .map(|x| (c.state(t.source).name.clone(), c.state(*x).name.clone()))
            })
            .collect();
        e.sort();
        e
    };
    assert_eq!(edges(&master), edges(&sub));
}
