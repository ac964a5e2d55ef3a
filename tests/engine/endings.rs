//! Where a sequence ends and what it says there: a finished sequence stops gating, a failed
//! one is not "done" and says what to do, a choice left with no branch raises `error.choice`
//! and is no longer failed once the session moves on; and the status shows the flags, what
//! is left to wait for, and only the refusals that hold.

use crate::support::mermaid as mermaid_common;

use mermaid_common::{Walk, tool};
use seed::dialects::load_text;
use seed::engine::ir::{Enforcement, Outcome};
use seed::engine::{Decision, Event, Facts, Machine, Phase, VerdictKind};
use seed::report::{recovery_text, status_json, status_text};
use serde_json::{Value, json};

fn finished_compound_intelligence() -> Walk {
    let mut w = Walk::new("compound_intelligence");
    for t in [
        "mcp__seed__who_am_i",
        "mcp__seed__what_do_i_do",
        "mcp__starlog__check",
        "mcp__starlog__orient",
        "mcp__starship__fly",
        "mcp__heaven-subagent__spawn",
        "mcp__heaven-subagent__collect_results",
    ] {
        w.call(&tool(t, json!({})), VerdictKind::Advance);
    }
    w
}

#[test]
fn a_finished_sequence_gates_no_call_any_more() {
    let mut w = finished_compound_intelligence();
    let p = w.m.progress(&w.snap);
    assert!(p.done && p.overall == 100.0, "{p:?}");
    assert_eq!(p.ended.as_ref().map(|e| e.outcome), Some(Outcome::Success));
    // Edits after the work is done: allowed, however often, never escalated to the user.
    for _ in 0..5 {
        for t in ["Edit", "Write", "Bash"] {
            let v = w.gate(&tool(t, json!({"file_path": "src/lib.rs"})));
            assert_eq!(
                (v.decision, v.warning.as_deref()),
                (Decision::Allow, None),
                "{t}: {v:?}"
            );
        }
    }
    let st = w.m.status(&w.snap);
    assert_eq!(st.allowed, seed::engine::Allowed::Any);
    let text = status_text(&st);
    assert!(
        text.contains("next:    — (sequence finished; it gates no call any more)")
            && text.contains("allowed: any tool\n"),
        "{text}"
    );
    assert!(
        recovery_text(&st)
            .contains("nothing to recover: the sequence is finished, and any tool is allowed"),
        "{}",
        recovery_text(&st)
    );
    assert!(
        w.m.guidance_line(&w.snap)
            .ends_with("next: done · 100% done")
    );
}

fn hiivmind(facts: &[(&str, Value)]) -> (Machine, seed::engine::Snapshot, Facts) {
    let l = seed::dialects::builtin("hiivmind_add_source")
        .expect("builtin")
        .expect("loads");
    let m = Machine::new(l.chart);
    let facts: Facts = facts
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let snap = m.start(&facts);
    (m, snap, facts)
}

const CONFIG: &str = "/home/me/corpus/data/config.yaml";

/// The Read of the corpus config, as PostToolUse reports it.
fn read_config() -> Event {
    Event::tool("Read", json!({"file_path": CONFIG})).with_response(json!({
        "type": "text",
        "file": {"filePath": CONFIG, "content": "corpus: acme\nsources: []\n"}
    }))
}

fn answer(label: &str) -> Event {
    Event::tool(
        "AskUserQuestion",
        json!({"questions": [{"question": "q?", "options": []}], "answers": {"q?": label}}),
    )
}

#[test]
fn a_failed_ending_is_not_done_and_says_what_to_do() {
    let (m, mut snap, facts) = hiivmind(&[("config_exists", json!(true))]);
    // The corpus config cannot be read after all: a failed Read ends the workflow in error.
    let read = Event::tool_error("Read", json!({"file_path": CONFIG}));
    m.step(&mut snap, Phase::Advance, &read, &facts);
    let st = m.status(&snap);
    let p = &st.progress;
    assert!(!p.done, "{p:?}");
    let ended = p.ended.as_ref().expect("ended");
    assert_eq!(
        (
            ended.outcome,
            ended.ending.as_str(),
            ended.recovery.as_deref()
        ),
        (
            Outcome::Error,
            "error_no_config",
            Some("hiivmind-corpus-init")
        )
    );
    assert_eq!((p.overall, p.highest, p.steps_remaining), (0.0, 0.0, None));
    let text = status_text(&st);
    assert!(
        text.contains("highest 0%  ended: error — error_no_config")
            && text.contains("ended:   error at \"error_no_config\": No config.yaml found — recovery: hiivmind-corpus-init"),
        "{text}"
    );
    assert!(!text.contains("100%"), "{text}");
    let j = status_json(&st);
    assert_eq!(j["progress"]["ended"]["outcome"], json!("error"));
    assert_eq!(j["progress"]["done"], json!(false));
    assert_eq!(
        m.guidance_line(&snap),
        "[SEED SEQUENCE] \"hiivmind_add_source\" · at: error_no_config · ended in error at \"error_no_config\" · recovery: hiivmind-corpus-init · next: Skill(skill=\"hiivmind-corpus-init\") · highest 0%"
    );
    // Stopping is not held up: the workflow is over.
    let mut snap2 = snap.clone();
    let v = m
        .step(&mut snap2, Phase::Stop, &Event::lifecycle("Stop"), &facts)
        .verdict
        .expect("a verdict");
    assert_eq!(v.decision, Decision::Allow);
}

#[test]
fn an_error_ending_keeps_the_highest_point_reached() {
    let (m, mut snap, facts) = hiivmind(&[("config_exists", json!(true))]);
    for e in [read_config(), answer("Web pages")] {
        m.step(&mut snap, Phase::Advance, &e, &facts);
    }
    let before = m.progress(&snap).overall;
    assert!(before > 0.0);
    // Cancelled instead of naming the site.
    m.step(&mut snap, Phase::Advance, &answer("Cancel"), &facts);
    let p = m.progress(&snap);
    assert_eq!(p.ended.map(|e| e.ending), Some("cancelled".to_string()));
    assert_eq!((p.overall, p.highest), (before, before));
    assert!(p.layers.iter().all(|l| l.value <= before), "{:?}", p.layers);
}

#[test]
fn a_permit_that_only_waits_for_the_session_to_end_has_no_steps_left() {
    let mut w = Walk::new("odyssean_anchor");
    let anchor = |stage: &str| tool("mcp__hestai__odyssean_anchor", json!({"stage": stage}));
    for stage in ["init", "commit_identity"] {
        w.call(&anchor(stage), VerdictKind::Advance);
    }
    // Seed 001: bound when the bind "Returns: SUCCESS + WORK_PERMIT".
    let bind = anchor("bind").with_response(json!("SUCCESS\nWORK_PERMIT: granted"));
    w.call(&bind, VerdictKind::Advance);
    let st = w.m.status(&w.snap);
    assert_eq!(st.progress.waiting_for.as_deref(), Some("SessionEnd"));
    let text = status_text(&st);
    assert!(
        text.contains("highest 100%  no call left to make; waiting for SessionEnd"),
        "{text}"
    );
    assert!(!text.contains("steps to go"), "{text}");
    assert!(w.m.guidance_line(&w.snap).contains("next: any tool"));
}

#[test]
fn one_step_left_is_one_step() {
    let mut w = Walk::new("odyssean_anchor");
    let anchor = |stage: &str| tool("mcp__hestai__odyssean_anchor", json!({"stage": stage}));
    for stage in ["init", "commit_identity"] {
        w.call(&anchor(stage), VerdictKind::Advance);
    }
    let text = status_text(&w.m.status(&w.snap));
    assert!(text.contains("≥ 2 steps to go"), "{text}");
    let m = machine("stateDiagram-v2\n    [*] --> a\n    a --> b : tool:Go\n    b --> [*]\n");
    let text = status_text(&m.status(&m.start(&Facts::new())));
    assert!(text.contains("≥ 1 step to go"), "{text}");
}

#[test]
fn the_calls_a_session_made_through_a_server_are_suggested_that_way() {
    let mut w = Walk::new("odyssean_anchor");
    let anchor = |stage: &str| tool("mcp__hestai__odyssean_anchor", json!({"stage": stage}));
    w.call(&anchor("init"), VerdictKind::Advance);
    assert_eq!(
        w.m.status(&w.snap).next.map(|n| n.tool),
        Some("mcp__hestai__odyssean_anchor(stage=\"commit_identity\")".to_string())
    );
    // A stage out of order names itself and the stage that is due, on the same server.
    let v = w.gate(&anchor("bind"));
    assert_eq!(v.decision, Decision::Deny);
    assert!(
        v.reason.starts_with("seed: mcp__hestai__odyssean_anchor(stage=\"bind\") is not allowed now — \"IDENTIFYING\" allows only mcp__hestai__odyssean_anchor(stage=\"commit_identity\"), mcp__hestai__odyssean_anchor(stage=\"init\"), Read"),
        "{}",
        v.reason
    );
    assert!(
        v.reason.ends_with("First call mcp__hestai__odyssean_anchor(stage=\"commit_identity\"); after that, mcp__hestai__odyssean_anchor(stage=\"bind\") is allowed."),
        "{}",
        v.reason
    );
    assert!(
        w.m.guidance_line(&w.snap)
            .contains("next: mcp__hestai__odyssean_anchor(stage=\"commit_identity\")")
    );
}

#[test]
fn skills_are_listed_as_the_skill_tool_is_called() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("add a caching layer"));
    let st = w.m.status(&w.snap);
    assert!(
        st.allowed
            .calls()
            .contains(&"Skill(skill=\"hope:consult\", args=\"*explore*\")".to_string()),
        "{:?}",
        st.allowed
    );
    assert!(
        st.allowed.calls().iter().all(|a| !a.starts_with("hope:")),
        "{:?}",
        st.allowed
    );
    assert!(
        w.m.guidance_line(&w.snap).contains("next: AskUserQuestion"),
        "{}",
        w.m.guidance_line(&w.snap)
    );
}

#[test]
fn flags_are_shown_beside_the_variables() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("rename `foo` to `bar` in src/lib.rs"));
    w.advance(&Event::tool("Skill", json!({"skill": "hope:shape"})));
    let st = w.m.status(&w.snap);
    assert_eq!(st.flags.get("intent_brief"), Some(&true));
    assert_eq!(st.flags.get("shape_done"), Some(&false));
    let text = status_text(&st);
    let line = text
        .lines()
        .find(|l| l.starts_with("flags:"))
        .expect("a flags line");
    assert!(
        line.contains("coverage_done = false")
            && line.contains("intent_brief = true")
            && line.contains("shape_done = false"),
        "{line}"
    );
    let j = status_json(&st);
    assert_eq!(j["flags"]["intent_brief"], json!(true));
    assert_eq!(j["flags"]["coverage_done"], json!(false));
}

#[test]
fn a_gate_speaks_only_after_its_call_was_denied_and_only_for_the_first_missing_artifact() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("plan the migration"));
    let rec = w.m.recovery(&w.snap, None);
    assert!(
        rec.suggestions.iter().all(|s| !s.contains("is missing")),
        "no ExitPlanMode attempt yet: {:?}",
        rec.suggestions
    );
    let exit = tool("ExitPlanMode", json!({"plan": "p"}));
    assert_eq!(w.gate(&exit).decision, Decision::Deny);
    let st = w.m.status(&w.snap);
    let missing: Vec<&String> = st
        .recovery
        .suggestions
        .iter()
        .filter(|s| s.contains("is missing"))
        .collect();
    assert_eq!(missing.len(), 1, "{:?}", st.recovery.suggestions);
    assert!(
        missing[0].starts_with("The intent brief is missing"),
        "{missing:?}"
    );
}

#[test]
fn observe_mode_allows_any_tool() {
    let mut m = Walk::new("compound_intelligence").m;
    m.chart.settings.enforcement = Enforcement::Observe;
    let snap = m.start(&Facts::new());
    let text = status_text(&m.status(&snap));
    assert!(
        text.contains("allowed: any tool (observe mode: calls are recorded, not judged; the sequence expects mcp__seed__who_am_i"),
        "{text}"
    );
}

fn machine(diagram: &str) -> Machine {
    Machine::new(
        load_text("chart.mmd", diagram, &|_| None)
            .expect("loads")
            .chart,
    )
}

#[test]
fn a_livelock_is_named_with_what_to_do() {
    let m = machine(
        "stateDiagram-v2\n    [*] --> a\n    a --> b\n    b --> a\n    a --> c : Write\n    c --> [*]\n",
    );
    let snap = m.start(&Facts::new());
    let st = m.status(&snap);
    assert!(st.livelock);
    let first = &st.recovery.suggestions[0];
    assert!(
        first.starts_with("The sequence is in a livelock at ")
            && first.contains("`seed validate`")
            && first.contains("observe"),
        "{first}"
    );
    assert!(!recovery_text(&st).contains("waiting for the next event"));
}

const PICK: &str = "stateDiagram-v2
    [*] --> flow
    state flow {
        [*] --> start
        state pick <<choice>>
        start --> pick : tool:Go
        pick --> a : [reader(route) == \"a\"]
        pick --> b : [reader(route) == \"b\"]
        a --> [*] : tool:Done
        b --> [*] : tool:Done
    }
    flow --> [*]
";

#[test]
fn a_stuck_choice_is_failed_only_until_the_session_moves_on() {
    let m = machine(PICK);
    let mut facts = Facts::new();
    let mut snap = m.start(&facts);
    let r = m.step(
        &mut snap,
        Phase::Advance,
        &Event::tool("Go", Value::Null),
        &facts,
    );
    assert_eq!(r.stuck_choice.as_deref(), Some("flow.pick"));
    let st = m.status(&snap);
    assert_eq!(st.failed.as_deref(), Some("pick"));
    assert!(
        st.recovery
            .suggestions
            .iter()
            .any(|s| s.starts_with("Choice \"pick\" has no branch")),
        "{:?}",
        st.recovery.suggestions
    );
    // The fact the choice waits for arrives: it moves on, and nothing is failed any more.
    facts.insert("route".into(), json!("a"));
    m.step(&mut snap, Phase::Advance, &Event::prompt("go on"), &facts);
    let st = m.status(&snap);
    assert_eq!(st.current, ["flow.a"]);
    assert_eq!(st.failed, None);
    assert!(
        st.recovery
            .suggestions
            .iter()
            .all(|s| !s.contains("Choice")),
        "{:?}",
        st.recovery.suggestions
    );
    assert_eq!(status_json(&st)["failed"], Value::Null);
}

#[test]
fn a_stuck_choice_raises_error_choice_which_a_transition_can_take() {
    // The choice's composite catches its error (a choice's own branches take no event).
    let m = machine(&format!(
        "{PICK}    flow --> fallback : error.choice:*\n    fallback --> [*] : tool:Retry\n"
    ));
    let facts = Facts::new();
    let mut snap = m.start(&facts);
    let r = m.step(
        &mut snap,
        Phase::Advance,
        &Event::tool("Go", Value::Null),
        &facts,
    );
    let st = m.status(&snap);
    assert_eq!(st.current, ["fallback"], "{r:?}");
    assert_eq!(st.failed, None);
    assert!(
        r.microsteps
            .iter()
            .any(|s| s.event == "error.choice:flow.pick"),
        "{:?}",
        r.microsteps
    );
}
