//! `hope` (seed 004, §9 "gates advise, never prevent"): progress moves through the loop's
//! steps and never falls back on a side trip, the agent's ordinary housekeeping is never
//! warned about, and the loop skill called inside the loop goes on where it is.

use crate::support::mermaid as mermaid_common;

use mermaid_common::{Walk, skill, tool};
use seed::engine::{Event, VerdictKind};
use serde_json::json;

fn overall(w: &Walk) -> f64 {
    w.m.progress(&w.snap).overall
}

/// Intent, shape and coverage done: the loop has just started.
fn in_loop() -> Walk {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("add a caching layer"));
    for e in [
        tool("AskUserQuestion", json!({})),
        skill("hope:shape"),
        skill("hope:consult"),
        skill("hope:consult"),
        skill("hope:loop"),
    ] {
        w.advance(&e);
    }
    assert_eq!(w.at(), ["loop.spec_scoring"]);
    w
}

/// Advance through `events`, checking that progress never falls; returns each value.
fn climb(w: &mut Walk, events: &[Event]) -> Vec<f64> {
    let mut seen = vec![overall(w)];
    for e in events {
        w.advance(e);
        let now = overall(w);
        let before = *seen.last().unwrap_or(&0.0);
        assert!(
            now >= before - 1e-9,
            "{} took progress from {before:.1}% to {now:.1}% at {:?}",
            e.key(),
            w.at()
        );
        seen.push(now);
    }
    seen
}

#[test]
fn progress_moves_through_a_wave_step_by_step() {
    let mut w = in_loop();
    let seen = climb(
        &mut w,
        &[
            tool("AskUserQuestion", json!({})),
            tool("TodoWrite", json!({})),
            tool("Task", json!({"prompt": "wave 1"})),
            skill("hope:consult"),
            tool("Bash", json!({"command": "cargo test"})),
            tool("AskUserQuestion", json!({})),
        ],
    );
    assert_eq!(w.at(), ["loop.review_feedback"]);
    // Each forward step of the loop is a step forward, inside the loop's band (55–95).
    for pair in seen.windows(2) {
        assert!(pair[1] > pair[0], "{seen:?}");
    }
    assert!(seen[0] >= 55.0 && *seen.last().unwrap() < 95.0, "{seen:?}");
    let loop_bar = w.m.progress(&w.snap).layers;
    let bar = loop_bar
        .iter()
        .find(|l| l.name == "loop")
        .expect("loop band");
    assert!(bar.current && bar.value.round() >= 90.0, "{bar:?}");
    // New work from the feedback starts the loop over: a new round, not a side trip. The
    // highest value reached stays shown.
    w.advance(&skill("hope:loop"));
    assert_eq!(w.at(), ["loop.spec_scoring"]);
    let p = w.m.progress(&w.snap);
    assert_eq!((p.overall.round(), p.highest.round()), (55.0, 91.0));
}

#[test]
fn a_stall_and_its_unblock_consult_never_set_progress_back() {
    let mut w = in_loop();
    climb(
        &mut w,
        &[
            tool("AskUserQuestion", json!({})),
            tool("TodoWrite", json!({})),
            tool("Task", json!({"prompt": "wave 1"})),
        ],
    );
    let wave = overall(&w);
    climb(
        &mut w,
        &[
            Event::tool_error("Task", json!({"prompt": "wave 2"})),
            skill("hope:consult"),
            Event::tool_error("Task", json!({"prompt": "wave 2, retry"})),
        ],
    );
    // Consult runs beside the loop (a top-level state in an earlier band): progress holds.
    assert_eq!(w.at(), ["consult.unblock.recommend"]);
    assert_eq!(overall(&w), wave);
    climb(&mut w, &[tool("Task", json!({"prompt": "wave 2, retry"}))]);
    assert_eq!(w.at(), ["loop.wave_exec"]);
    assert_eq!(overall(&w), wave);
}

#[test]
fn the_users_panel_and_the_pause_hold_progress_too() {
    let mut w = in_loop();
    climb(
        &mut w,
        &[
            tool("AskUserQuestion", json!({})),
            tool("TodoWrite", json!({})),
            tool("Task", json!({})),
        ],
    );
    let wave = overall(&w);
    climb(
        &mut w,
        &[
            Event::prompt("/hope:panel is the cache key right?"),
            Event::lifecycle("Stop"),
        ],
    );
    assert_eq!(w.at(), ["loop.wave_exec"], "back from the panel");
    climb(
        &mut w,
        &[
            Event::lifecycle("Stop"),
            Event::prompt("continue"),
            Event::prompt("what did the last wave change?"),
        ],
    );
    assert_eq!(overall(&w), wave);
}

#[test]
fn ordinary_housekeeping_is_neutral_and_real_work_before_the_shape_is_advised() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("add a caching layer"));
    assert_eq!(w.at(), ["intent.acknowledge"]);
    for e in [
        tool("TodoWrite", json!({"todos": []})),
        tool("EnterPlanMode", json!({})),
        tool(
            "Task",
            json!({"subagent_type": "Explore", "prompt": "find the cache"}),
        ),
        tool(
            "Agent",
            json!({"subagent_type": "Plan", "prompt": "plan it"}),
        ),
        tool("Bash", json!({"command": "git status --short"})),
        tool("Bash", json!({"command": "ls -la src"})),
        tool("Bash", json!({"command": "rg cache src"})),
        tool("Read", json!({"file_path": "/p/src/lib.rs"})),
    ] {
        let v = w.gate(&e);
        assert_eq!(v.kind, VerdictKind::Neutral, "{}: {}", e.key(), v.reason);
        assert!(v.warning.is_none(), "{}: {:?}", e.key(), v.warning);
        w.advance(&e);
        assert_eq!(w.at(), ["intent.acknowledge"], "{} moved nothing", e.key());
    }
    // Writing code, or a subagent that does, before intent and shape: advised (never denied).
    for e in [
        tool("Edit", json!({"file_path": "/p/src/cache.rs"})),
        tool("Bash", json!({"command": "cargo add moka"})),
        tool(
            "Task",
            json!({"subagent_type": "general-purpose", "prompt": "write it"}),
        ),
    ] {
        let v = w.gate(&e);
        assert_eq!(v.kind, VerdictKind::OffPath, "{}", e.key());
        assert!(v.warning.is_some() && !v.blocks(), "{}: {v:?}", e.key());
    }
    // Where the pipeline waits for one of them, it still takes it: TodoWrite after the
    // loop's approval, Bash at the review.
    let mut w = in_loop();
    w.advance(&tool("AskUserQuestion", json!({})));
    w.call(&tool("TodoWrite", json!({})), VerdictKind::Advance);
    assert_eq!(w.at(), ["loop.decompose"]);
}

#[test]
fn the_loop_skill_inside_the_loop_goes_on_where_it_is() {
    let mut w = in_loop();
    w.advance(&tool("AskUserQuestion", json!({})));
    w.advance(&tool("TodoWrite", json!({})));
    w.advance(&tool("Task", json!({})));
    let before = overall(&w);
    w.snap.visited.clear();
    for _ in 0..2 {
        let v = w.gate(&skill("hope:loop"));
        assert_eq!(v.kind, VerdictKind::Neutral, "{}", v.reason);
        assert!(v.warning.is_none());
        w.advance(&skill("hope:loop"));
        assert_eq!(
            w.at(),
            ["loop.wave_exec"],
            "no detour through shape or consult"
        );
    }
    assert_eq!(overall(&w), before);
    for detour in ["shape", "consult", "loop.spec_scoring"] {
        assert!(!w.visited(detour), "{detour}");
    }
}
