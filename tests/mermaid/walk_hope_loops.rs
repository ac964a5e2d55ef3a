//! `hope` (seed 004): the cycles and side trips a hook can observe — the intent echo / refine
//! loop, "proceed anyway", the loop's pause, approvals answered with edits or a cancel, bond's
//! adjust loop, consults run beside the current state and soul on every turn — and the
//! validation that leaves only the states no hook event can lead to.

use crate::support::mermaid as mermaid_common;

use mermaid_common::{Walk, skill, tool};
use seed::dialects;
use seed::engine::{Event, Machine, VerdictKind};
use serde_json::{Value, json};

fn at_clarify() -> Walk {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("add a caching layer"));
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance);
    w.expect("intent.clarify", 18.3, Some("hope:shape"));
    w
}

fn visited(w: &Walk, key: &str) -> bool {
    w.snap.visited.contains(&w.m.chart.find(key).expect(key))
}

fn in_waves() -> Walk {
    let mut w = at_clarify();
    for e in [
        skill("hope:shape"),
        skill("hope:consult"),
        skill("hope:consult"),
        skill("hope:loop"),
        tool("AskUserQuestion", json!({})),
        tool("TodoWrite", json!({})),
        tool("Task", json!({})),
    ] {
        w.advance(&e);
    }
    assert_eq!(w.at(), vec!["loop.wave_exec"]);
    w
}

#[test]
fn intent_echo_check_edits_refine_and_yes_locks_the_brief() {
    let mut w = at_clarify();
    // Score 5–7 (ITERATE): the agent echoes the brief and ends its turn for YES / EDITS.
    // The chart waits for the user's answer: no call of the agent's moves it.
    w.advance(&Event::lifecycle("Stop"))
        .expect("intent.echo_check", 18.3, Some("hope:intent"));
    assert_eq!(w.snap.vars.get("spec_route"), Some(&json!("ITERATE")));
    w.advance(&Event::prompt("EDITS: it must also cache errors"))
        .expect("intent.refine", 18.3, Some("hope:shape"));
    // Refine re-scores: still 5–7, echoed again; this time the user locks it.
    w.advance(&Event::lifecycle("Stop"))
        .expect("intent.echo_check", 18.3, Some("hope:intent"));
    w.advance(&Event::prompt("YES"))
        .expect("shape.extract", 25.0, Some("hope:consult"));
    assert!(visited(&w, "intent.emit_brief"));
    // The agent then starts the shape skill: no further move.
    w.call(&skill("hope:shape"), VerdictKind::Neutral).expect(
        "shape.extract",
        25.0,
        Some("hope:consult"),
    );
}

#[test]
fn intent_refine_can_go_back_to_clarify_or_straight_on() {
    let mut w = at_clarify();
    w.advance(&Event::lifecycle("Stop"));
    w.advance(&Event::prompt("no, the scope is the admin API only"));
    // Refine → re-score < 5 → clarify: another MCQ round.
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance)
        .expect("intent.clarify", 18.3, Some("hope:shape"));
    w.advance(&Event::lifecycle("Stop"));
    w.advance(&Event::prompt("edit: read-only endpoints"));
    w.call(&skill("hope:shape"), VerdictKind::Advance).expect(
        "shape.extract",
        25.0,
        Some("hope:consult"),
    );
}

#[test]
fn proceed_anyway_breaks_the_clarify_loop() {
    let mut w = at_clarify();
    w.advance(&Event::prompt("just proceed anyway, label the assumptions"))
        .expect("shape.extract", 25.0, Some("hope:consult"));
    assert!(visited(&w, "intent.emit_brief"));
    assert!(!visited(&w, "intent.score_check"));
}

#[test]
fn the_loop_pauses_and_continues_or_stops() {
    let mut w = in_waves();
    // The agent's turn ends mid-waves: a circuit breaker (or a checkpoint) pauses the loop.
    w.advance(&Event::lifecycle("Stop"))
        .expect("loop.paused", 67.0, Some("Task"));
    assert!(visited(&w, "loop.circuit_break"));
    w.advance(&Event::prompt("continue with the next wave"))
        .expect("loop.wave_exec", 67.0, Some("Task"));
    w.advance(&Event::lifecycle("Stop"));
    w.call(&tool("Task", json!({})), VerdictKind::Advance)
        .expect("loop.wave_exec", 67.0, Some("Task"));
    w.advance(&Event::lifecycle("Stop"));
    w.advance(&Event::prompt("stop here"))
        .expect("completed", 95.0, Some("hope:intent"));
}

#[test]
fn shape_approval_takes_edits_and_cancels() {
    let mut w = at_clarify();
    for e in [
        skill("hope:shape"),
        skill("hope:consult"),
        skill("hope:consult"),
        skill("hope:loop"),
        tool("AskUserQuestion", json!({})),
    ] {
        w.advance(&e);
    }
    assert_eq!(w.at(), vec!["loop.shape_approval"]);
    w.advance(&Event::prompt("yes"));
    assert_eq!(
        w.at(),
        vec!["loop.shape_approval"],
        "a Yes waits for TodoWrite"
    );
    w.advance(&Event::prompt("use Redis, not an in-process map"));
    assert_eq!(w.at(), vec!["loop.spec_scoring"], "Edit (re-shape)");
    w.advance(&tool("AskUserQuestion", json!({})));
    w.advance(&Event::prompt("Cancel"));
    assert_eq!(w.at(), vec!["completed"]);
}

#[test]
fn bond_adjusts_until_approved_or_cancelled() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("/hope:bond split the migration"));
    assert_eq!(w.at(), vec!["bond.design"]);
    assert!(visited(&w, "bond.sources.user_cmd"));
    w.advance(&tool("AskUserQuestion", json!({})));
    assert_eq!(w.at(), vec!["bond.confirm"]);
    w.advance(&Event::prompt("two reviewers, not one"));
    assert_eq!(w.at(), vec!["bond.design"], "Adjust");
    w.advance(&tool("AskUserQuestion", json!({})));
    w.advance(&Event::prompt("cancel that"));
    assert_eq!(w.at(), vec!["bond.__final"]);
    // From shape, the bond skill is shape's own trigger (§6 "shape detects …").
    let mut w = at_clarify();
    w.advance(&skill("hope:shape"));
    w.advance(&skill("hope:bond"));
    assert!(visited(&w, "bond.sources.shape_trigger"));
    assert_eq!(w.at(), vec!["bond.design"]);
}

#[test]
fn panel_runs_beside_the_waves_and_comes_back() {
    let mut w = in_waves();
    // The panel takes the user's turn (the session shows consult), then the waves go on.
    w.advance(&Event::prompt("/hope:panel caching strategy"));
    assert_eq!(w.at(), ["consult.sources.user_cmd"]);
    w.advance(&Event::lifecycle("Stop"))
        .expect("loop.wave_exec", 67.0, Some("Task"));
    assert!(visited(&w, "consult.panel.synthesize") || visited(&w, "consult.__final"));
    assert_eq!(w.snap.vars.get("consult_return"), Some(&Value::Null));
}

#[test]
fn soul_runs_on_every_prompt_and_asks_type_and_engagement_once() {
    let mut w = at_clarify();
    w.advance(&Event::prompt("also, the cache must be per-tenant"))
        .expect("intent.clarify", 18.3, Some("hope:shape"));
    for k in [
        "soul.hook",
        "soul.check_marker",
        "soul.detect_type",
        "soul.ask_engagement",
        "soul.footer",
    ] {
        assert!(visited(&w, k), "{k}");
    }
    assert_eq!(w.snap.flags.get("session_marker"), Some(&true));
    // The next turn finds the [SESSION] marker and goes straight to the audit.
    w.snap.visited.clear();
    w.advance(&Event::prompt("and TTLs of five minutes"));
    assert!(visited(&w, "soul.audit") && !visited(&w, "soul.detect_type"));
    assert_eq!(w.at(), vec!["intent.clarify"]);
    assert_eq!(w.snap.vars.get("soul_return"), Some(&Value::Null));
}

#[test]
fn validate_finds_the_chart_whole() {
    let l = dialects::builtin("hope").expect("builtin").expect("loads");
    let mut lints = l.warnings.clone();
    lints.extend(Machine::new(l.chart).lint());
    let found: Vec<String> = lints
        .iter()
        .map(|x| format!("{}: {}", x.code, x.message))
        .collect();
    // Every state of §1–§7 can be entered (consult's shape_step, loop_stall and loop_review
    // sources are side trips from shape and loop) but three, whose way in is a judgement of
    // the model that no hook event shows: reported, each with why.
    let unreachable: Vec<&str> = found
        .iter()
        .filter_map(|f| f.strip_prefix("unreachable: state `"))
        .filter_map(|f| f.split('`').next())
        .collect();
    assert_eq!(
        unreachable,
        [
            "soul.intent_interrupt",
            "soul.explore_interrupt",
            "consult.single.refuse"
        ],
        "{found:#?}"
    );
    assert_eq!(found.len(), 3, "{found:#?}");
    for f in &found {
        assert!(
            f.contains("is switched off: ") && f.contains("the model's"),
            "{f}"
        );
    }
}
