//! Walks through `hope` (seed 004): the hook events an agent following the seed produces, with
//! the node, verdict, progress and recovery expected after each.

use crate::support::mermaid as mermaid_common;

use mermaid_common::{Walk, skill, tool};
use seed::engine::{Decision, Event, Facts, Phase, VerdictKind};
use serde_json::{Value, json};

#[test]
fn hope_build_session_from_need_to_done() {
    let mut w = Walk::new("hope");
    w.expect("user_need", 0.0, Some("hope:intent"));
    w.advance(&Event::lifecycle("SessionStart"))
        .expect("user_need", 0.0, Some("hope:intent"));
    w.advance(&Event::prompt("add a caching layer to the API"))
        .expect("intent.acknowledge", 16.7, Some("AskUserQuestion"));
    w.call(&skill("hope:intent"), VerdictKind::Advance).expect(
        "intent.acknowledge",
        16.7,
        Some("AskUserQuestion"),
    );
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance)
        .expect("intent.clarify", 18.3, Some("hope:shape"));
    // Another MCQ round: the spec scored < 5 (CLARIFY), back to clarify.
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance)
        .expect("intent.clarify", 18.3, Some("hope:shape"));
    assert_eq!(w.snap.vars.get("spec_route"), Some(&json!("CLARIFY")));
    w.call(&skill("hope:shape"), VerdictKind::Advance).expect(
        "shape.extract",
        25.0,
        Some("hope:consult"),
    );
    w.call(&skill("hope:consult"), VerdictKind::Advance).expect(
        "shape.__final",
        45.0,
        Some("hope:consult"),
    );
    w.call(&skill("hope:consult"), VerdictKind::Advance).expect(
        "consult.__final",
        55.0,
        Some("hope:loop"),
    );
    // Intent, shape and coverage exist: leaving plan mode starts the loop.
    w.call(&tool("ExitPlanMode", json!({})), VerdictKind::Advance)
        .expect("loop.spec_scoring", 55.0, Some("AskUserQuestion"));
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance)
        .expect("loop.shape_approval", 59.0, Some("TodoWrite"));
    w.call(&tool("TodoWrite", json!({})), VerdictKind::Advance)
        .expect("loop.decompose", 63.0, Some("Task"));
    w.call(
        &tool("Task", json!({"prompt": "wave 1"})),
        VerdictKind::Advance,
    )
    .expect("loop.wave_exec", 67.0, Some("Task"));
    w.call(
        &tool("Edit", json!({"file_path": "src/cache.rs"})),
        VerdictKind::Neutral,
    );
    w.call(
        &tool("Task", json!({"prompt": "wave 2"})),
        VerdictKind::Neutral,
    )
    .expect("loop.wave_exec", 67.0, Some("Task"));
    // The loop's body is one retry loop (review feedback leads back to scoring), marked as
    // such; its steps are pinned to their shares of the loop, so progress moves through it.
    assert!(w.m.progress(&w.snap).in_loop);
    // No blockers is the way on: verify (Bash), not another wave (Task).
    w.call(&skill("hope:consult"), VerdictKind::Advance).expect(
        "loop.expert_review",
        79.0,
        Some("Bash"),
    );
    w.call(
        &tool("Bash", json!({"command": "cargo test"})),
        VerdictKind::Advance,
    )
    .expect("loop.verify_gate", 85.0, Some("AskUserQuestion"));
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance)
        .expect("loop.review_feedback", 91.0, Some("hope:loop"));
    let stop = w.m.step(
        &mut w.snap,
        Phase::Stop,
        &Event::lifecycle("Stop"),
        &Facts::new(),
    );
    assert_eq!(stop.verdict.map(|v| v.kind), Some(VerdictKind::StopAllowed));
    w.expect("completed", 95.0, Some("hope:intent"));
    // Done; /hope:intent could still start a new intent from here.
    w.advance(&Event::lifecycle("SessionEnd"))
        .expect("__final", 100.0, Some("hope:intent"));
    assert!(w.m.progress(&w.snap).done);
    assert!(
        w.m.guidance_line(&w.snap)
            .contains("next: done · 100% done")
    );
}

/// ExitPlanMode as an agent really retries it: the plan text is revised between attempts.
fn exit_plan(draft: u32) -> Event {
    tool(
        "ExitPlanMode",
        json!({ "plan": format!("Plan, draft {draft}: migrate the schema, then the data") }),
    )
}

/// The calls of the way to a denied call, canonical (`hope:intent`, not how it is spelled).
fn way_to(w: &Walk, denied: &Event) -> Vec<String> {
    w.m.recovery(&w.snap, Some(denied))
        .path_to_denied
        .expect("a way to the call")
        .iter()
        .map(|n| n.call.clone())
        .collect()
}

#[test]
fn hope_exit_plan_mode_is_a_sequential_deny_chain_with_max_three_denials() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("plan the migration"));
    let v = w.gate(&exit_plan(1));
    assert_eq!((v.kind, v.decision), (VerdictKind::Deny, Decision::Deny));
    assert!(
        v.reason.contains("The intent brief is missing"),
        "{}",
        v.reason
    );
    assert!(v.reason.contains(r#"First call AskUserQuestion, then Skill(skill="hope:shape"), then Skill(skill="hope:consult") twice; after that, ExitPlanMode is allowed."#), "{}", v.reason);
    // The chain is the sequence's own (a policy of the root): named once, in the reason and
    // in the status, however many of its links deny the call now.
    assert!(
        v.reason
            .starts_with("seed: ExitPlanMode is not allowed now — \"hope\" denies ExitPlanMode."),
        "{}",
        v.reason
    );
    let denied = w.m.status(&w.snap).denied;
    assert_eq!(
        denied
            .iter()
            .filter(|d| d.pattern == "ExitPlanMode" && d.by == "hope")
            .count(),
        1,
        "{denied:?}"
    );
    // "max 3 denials": three revised plans are denied by the same check…
    for draft in 2..=3 {
        let v = w.gate(&exit_plan(draft));
        assert_eq!(
            (v.decision, v.repeat, v.escalated),
            (Decision::Deny, draft, false),
            "draft {draft}"
        );
    }
    // …and the fourth attempt goes to the user, who owns the decision, however the plan
    // was reworded; so does every later one while the brief is still missing.
    for draft in 4..=5 {
        let v = w.gate(&exit_plan(draft));
        assert_eq!(
            (v.decision, v.escalated, v.repeat),
            (Decision::Ask, true, draft),
            "draft {draft}"
        );
        assert!(
            v.reason.contains(
                "ExitPlanMode was denied 3 times by the \"exit_plan\" checks: stop retrying it and ask the user"
            ),
            "{}",
            v.reason
        );
    }
}

#[test]
fn hope_exit_plan_denials_count_across_the_chain_and_the_fourth_goes_to_the_user() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("plan the migration"));
    // Link 1: no brief yet.
    let v = w.gate(&exit_plan(1));
    assert_eq!((v.decision, v.repeat), (Decision::Deny, 1));
    assert!(
        v.reason.contains("The intent brief is missing"),
        "{}",
        v.reason
    );
    // The brief is emitted (spec ≥ 8: on to shape); link 2: no shape yet.
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance);
    w.call(&skill("hope:shape"), VerdictKind::Advance);
    assert_eq!(w.snap.flags.get("intent_brief"), Some(&true));
    let v = w.gate(&exit_plan(2));
    assert_eq!((v.decision, v.repeat), (Decision::Deny, 2), "{}", v.reason);
    assert!(v.reason.contains("The shape is missing"), "{}", v.reason);
    assert!(
        v.reason
            .contains(r#"First call Skill(skill="hope:consult") twice; after that"#),
        "{}",
        v.reason
    );
    // Shape's output exists; link 3: coverage.
    w.call(&skill("hope:consult"), VerdictKind::Advance);
    assert_eq!(w.at(), ["shape.__final"]);
    let v = w.gate(&exit_plan(3));
    assert_eq!((v.decision, v.repeat), (Decision::Deny, 3));
    assert!(v.reason.contains("Coverage is missing"), "{}", v.reason);
    assert_eq!(v.denied_by.and_then(|d| d.gate), Some("exit_plan".into()));
    // Three denials across the chain: the fourth attempt is the user's to decide.
    let v = w.gate(&exit_plan(4));
    assert_eq!((v.decision, v.escalated), (Decision::Ask, true));
    assert!(v.reason.contains("Coverage is missing"), "{}", v.reason);
    // With coverage, the plan leaves plan mode: the gate let it through and counts afresh.
    w.call(&skill("hope:consult"), VerdictKind::Advance);
    assert_eq!(w.snap.flags.get("coverage_done"), Some(&true));
    w.call(&exit_plan(5), VerdictKind::Advance);
    assert_eq!(w.at(), ["loop.spec_scoring"]);
    // §9 wrong intent: /hope:intent re-enters intent and the brief is to be redone.
    w.advance(&Event::prompt("/hope:intent"));
    assert_eq!(w.at(), ["intent.acknowledge"]);
    let v = w.gate(&exit_plan(6));
    assert_eq!((v.decision, v.repeat), (Decision::Deny, 1));
    assert!(
        v.reason.contains("The intent brief is missing"),
        "{}",
        v.reason
    );
}

#[test]
fn hope_exit_plan_mode_cannot_bypass_the_chain_through_bond() {
    let mut w = Walk::new("hope");
    // /hope:bond straight from the need: no brief, no shape, no coverage.
    w.advance(&Event::prompt("/hope:bond split the work"));
    assert_eq!(w.at(), ["bond.design"]);
    let v = w.gate(&exit_plan(1));
    assert_eq!((v.kind, v.decision), (VerdictKind::Deny, Decision::Deny));
    assert!(
        v.reason.contains("The intent brief is missing"),
        "{}",
        v.reason
    );
    // The way there produces the artifacts in order: intent's brief first (re-entering intent
    // from here), then shape's output, then coverage; not through the loop, which makes none.
    let way = way_to(&w, &exit_plan(1));
    assert_eq!(
        way[..way.len() - 1],
        [
            "hope:intent",
            "AskUserQuestion",
            "hope:shape",
            "hope:consult",
            "hope:consult"
        ],
        "then the call itself: {way:?}"
    );
    assert!(!v.reason.contains("First call hope:loop"), "{}", v.reason);
    // The team is confirmed and created: still no artifact, still denied (the chain is checked
    // by artifact, not by where the session is).
    w.advance(&tool("AskUserQuestion", json!({})));
    w.advance(&tool("Task", json!({})));
    assert_eq!(w.at(), ["bond.__final"]);
    let v = w.gate(&exit_plan(2));
    assert_eq!((v.decision, v.repeat), (Decision::Deny, 2));
    assert!(
        v.reason.contains("The intent brief is missing"),
        "{}",
        v.reason
    );
    // The loop the team runs makes no artifact either.
    w.advance(&skill("hope:loop"));
    assert_eq!(w.at(), ["loop.spec_scoring"]);
    assert_eq!(w.gate(&exit_plan(3)).decision, Decision::Deny);
    assert_eq!(w.gate(&exit_plan(4)).decision, Decision::Ask);
}

#[test]
fn hope_off_path_calls_are_advised_with_a_concrete_recovery() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("fix the login bug"));
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance);
    // Editing before intent and shape: "gates advise, never prevent".
    let v = w.gate(&tool("Edit", json!({"file_path": "src/login.rs"})));
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::OffPath, Decision::Allow)
    );
    let warning = v.warning.expect("advised");
    // Edit comes later in the pipeline: the warning says so, and how far.
    assert!(
        warning.starts_with(
            "seed: Edit comes later in \"hope\" (after 4 more calls; at: \"clarify\")."
        ),
        "{warning}"
    );
    assert!(warning.contains(r#"First call Skill(skill="hope:shape"), then Skill(skill="hope:consult") twice, then Skill(skill="hope:loop"); after that, Edit is allowed."#), "{warning}");
    // Skipping ahead to the loop is advised too, and the recovery names the next stage. The
    // call is named by its skill, not by the `Skill` tool every skill shares.
    let v = w.gate(&skill("hope:loop"));
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::OffPath, Decision::Allow)
    );
    let warning = v.warning.clone().expect("advised");
    assert!(
        warning.starts_with("seed: Skill(skill=\"hope:loop\") comes later in \"hope\""),
        "{warning}"
    );
    assert_eq!(v.next.as_deref(), Some(r#"Skill(skill="hope:shape")"#));
    let rec = w.m.recovery(&w.snap, None);
    assert_eq!(
        rec.suggestions.last().map(String::as_str),
        Some(
            r#"Next: call Skill(skill="hope:shape") (or AskUserQuestion, Skill(skill="hope:intent"), Skill(skill="hope:bond"))."#
        )
    );
    assert_eq!(w.at(), vec!["intent.clarify"], "nothing moved");
}

#[test]
fn hope_commands_and_back_transitions() {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("/hope:full build a CLI"));
    // /hope:full runs soul (detect type → engagement → audit → footer) and hands off to intent.
    assert_eq!(w.at(), vec!["intent.acknowledge"]);
    assert!(
        w.snap
            .visited
            .contains(&w.m.chart.find("soul.audit").expect("audit"))
    );
    w.advance(&Event::prompt("/hope:block some-expert"));
    assert_eq!(
        w.at(),
        vec!["intent.acknowledge"],
        "/hope:block changes no state"
    );
    for e in [
        tool("AskUserQuestion", json!({})),
        skill("hope:shape"),
        skill("hope:consult"),
        skill("hope:consult"),
        skill("hope:loop"),
    ] {
        w.advance(&e);
    }
    assert_eq!(w.at(), vec!["loop.spec_scoring"]);
    // §9: wrong intent → intent.acknowledge, from anywhere.
    w.advance(&Event::prompt("/hope:intent"));
    assert_eq!(w.at(), vec!["intent.acknowledge"]);
    for e in [
        tool("AskUserQuestion", json!({})),
        skill("hope:shape"),
        skill("hope:consult"),
        skill("hope:consult"),
        skill("hope:loop"),
    ] {
        w.advance(&e);
    }
    // §9: reshape needed → shape.
    w.advance(&skill("hope:shape"));
    assert_eq!(w.at(), vec!["shape.extract"]);
    // /hope:summon runs consult beside the current state (§8 "parallel to current state"):
    // the turn is consult's (the session shows it, and the consult skill may run), then
    // through load_blocklist and the single expert back to where the session was.
    w.advance(&Event::prompt("/hope:summon Kent Beck"));
    assert_eq!(w.at(), vec!["consult.sources.user_cmd"]);
    assert!(w.m.status(&w.snap).breadcrumb.contains("consult"));
    w.call(&skill("hope:consult"), VerdictKind::Neutral);
    assert_eq!(w.at(), vec!["consult.sources.user_cmd"]);
    w.advance(&Event::lifecycle("Stop"));
    assert_eq!(w.at(), vec!["shape.extract"]);
    for k in [
        "consult.sources.user_cmd",
        "consult.blocklist",
        "consult.single.generate",
        "consult.__final",
    ] {
        assert!(w.visited(k), "{k}");
    }
    assert_eq!(w.snap.vars.get("consult_return"), Some(&Value::Null));
    w.advance(&skill("hope:consult"));
    w.advance(&skill("hope:consult"));
    assert_eq!(w.at(), vec!["consult.__final"]);
    // /hope:bond: team composition; the chart waits for the blueprint question.
    w.advance(&Event::prompt("/hope:bond split the work"));
    assert_eq!(w.at(), vec!["bond.design"]);
    w.advance(&tool("AskUserQuestion", json!({})));
    w.advance(&tool("Task", json!({})));
    assert_eq!(w.at(), vec!["bond.__final"]);
    w.advance(&skill("hope:loop"));
    assert_eq!(w.at(), vec!["loop.spec_scoring"]);
}

#[test]
fn hope_recovery_at_user_need_starts_with_a_call_that_is_legal_there() {
    // user_need waits for a prompt; the agent's own way in is hope:intent, bound on the root.
    for denied in [
        tool("ExitPlanMode", json!({"plan": "p"})),
        tool("Bash", json!({"command": "cargo build"})),
    ] {
        let mut w = Walk::new("hope");
        assert_eq!(w.at(), ["user_need"]);
        w.gate(&denied);
        let st = w.m.status(&w.snap);
        let path =
            w.m.recovery(&w.snap, Some(&denied))
                .path_to_denied
                .expect("reachable");
        let first = &path[0];
        assert_eq!(first.tool, r#"Skill(skill="hope:intent")"#, "{path:?}");
        assert!(st.allowed.calls().contains(&first.tool), "{:?}", st.allowed);
        let mut probe = w.snap.clone();
        let r =
            w.m.step(&mut probe, Phase::Gate, &skill("hope:intent"), &w.facts);
        assert_eq!(r.verdict.map(|v| v.kind), Some(VerdictKind::Advance));
        assert_eq!(
            st.next.map(|n| n.tool).as_deref(),
            Some(r#"Skill(skill="hope:intent")"#)
        );
    }
}
