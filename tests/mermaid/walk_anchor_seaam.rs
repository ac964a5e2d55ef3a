//! Walks through `odyssean_anchor` (seed 001): the hook events along the way, with the node,
//! verdict, progress and recovery expected after each (`seaam_organ_lifecycle` is walked
//! through real `dna.json` files in `seaam_dna.rs`).

use crate::support::mermaid as mermaid_common;

use mermaid_common::{Walk, tool};
use seed::engine::{Decision, Event, VerdictKind};
use serde_json::json;

#[test]
fn odyssean_anchor_binds_in_three_stages_with_no_work_before_the_permit() {
    let mut w = Walk::new("odyssean_anchor");
    w.expect("LOBBY", 0.0, Some("odyssean_anchor(stage=\"init\")"));
    let edit = tool("Edit", json!({"file_path": "src/main.rs"}));
    let v = w.gate(&edit);
    assert_eq!((v.kind, v.decision), (VerdictKind::Deny, Decision::Deny));
    assert!(v.reason.contains("No work permit yet: start the binding with odyssean_anchor(stage=\"init\", role=\"<role>\", tier=\"FULL|LITE|UNTRACKED\", topic=\"<topic>\")."), "{}", v.reason);
    assert!(v.reason.contains("First call odyssean_anchor(stage=\"init\"), then odyssean_anchor(stage=\"commit_identity\"), then odyssean_anchor(stage=\"bind\"); after that, Edit is allowed."), "{}", v.reason);
    assert_eq!(v.next.as_deref(), Some("odyssean_anchor(stage=\"init\")"));
    w.call(
        &tool(
            "Read",
            json!({"file_path": ".hestai-sys/agents/impl.oct.md"}),
        ),
        VerdictKind::Neutral,
    );
    // The anchor tool is matched on any MCP server; the stage is in its input.
    let init = tool(
        "mcp__hestai__odyssean_anchor",
        json!({"stage": "init", "role": "implementation-lead", "tier": "LITE", "topic": "cache"}),
    );
    w.call(&init, VerdictKind::Advance).expect(
        "IDENTIFYING",
        33.3,
        Some("odyssean_anchor(stage=\"commit_identity\")"),
    );
    assert_eq!(w.snap.vars.get("tier"), Some(&json!("LITE")));
    assert_eq!(w.snap.vars.get("role"), Some(&json!("implementation-lead")));
    let v = w.gate(&tool("Bash", json!({"command": "cargo build"})));
    assert_eq!(v.decision, Decision::Deny);
    assert!(
        v.reason.contains("stage=\"commit_identity\", payload="),
        "{}",
        v.reason
    );
    let commit = tool(
        "mcp__other_server__odyssean_anchor",
        json!({"stage": "commit_identity", "payload": "===IDENTITY===…"}),
    );
    w.call(&commit, VerdictKind::Advance).expect(
        "CONTEXTUALIZING",
        66.7,
        Some("odyssean_anchor(stage=\"bind\")"),
    );
    let bind = tool(
        "mcp__hestai__odyssean_anchor",
        json!({"stage": "bind", "payload": "===IDENTITY===…"}),
    );
    w.call(&bind, VerdictKind::Advance)
        .expect("BOUND", 100.0, None);
    // With the work permit, work is neutral.
    w.call(&edit, VerdictKind::Neutral)
        .expect("BOUND", 100.0, None);
    w.advance(&Event::lifecycle("SessionEnd"));
    assert!(w.m.progress(&w.snap).done);
}

#[test]
fn odyssean_anchor_off_path_calls_are_denied_and_escalate() {
    let mut w = Walk::new("odyssean_anchor");
    let write = tool("Write", json!({"file_path": "notes.md"}));
    // Three denials, whatever file the agent tries next…
    for file in ["notes.md", "todo.md", "plan.md"] {
        let v = w.gate(&tool("Write", json!({ "file_path": file })));
        assert_eq!((v.decision, v.escalated), (Decision::Deny, false), "{file}");
    }
    // …then the breaker tells it to stop and ask (enforce keeps denying).
    let fourth = w.gate(&write);
    assert_eq!((fourth.decision, fourth.escalated), (Decision::Deny, true));
    assert!(
        fourth
            .reason
            .contains("Write was denied 3 times here: stop retrying it and ask the user"),
        "{}",
        fourth.reason
    );
    let rec = w.m.recovery(&w.snap, Some(&write));
    assert!(
        rec.suggestions[0].starts_with("No work permit yet"),
        "{:?}",
        rec.suggestions
    );
    assert_eq!(rec.path_to_denied.map(|p| p.len()), Some(4));
}

#[test]
fn odyssean_anchor_stages_run_in_order_and_init_starts_over() {
    let anchor = |stage: &str| {
        tool(
            "mcp__hestai__odyssean_anchor",
            json!({"stage": stage, "role": "implementation-lead", "tier": "FULL", "topic": "t"}),
        )
    };
    let mut w = Walk::new("odyssean_anchor");
    // Before init, neither later stage runs; the recovery names the init call.
    for stage in ["commit_identity", "bind"] {
        let v = w.gate(&anchor(stage));
        assert_eq!(
            (v.kind, v.decision),
            (VerdictKind::Deny, Decision::Deny),
            "{stage}"
        );
        assert!(
            v.reason.contains("odyssean_anchor(stage=\"init\""),
            "{}",
            v.reason
        );
    }
    w.call(&anchor("init"), VerdictKind::Advance).expect(
        "IDENTIFYING",
        33.3,
        Some("odyssean_anchor(stage=\"commit_identity\")"),
    );
    // bind before commit_identity: denied, naming the stage refused, the exact next call
    // and the stage after it, on the server the session calls the anchor through.
    let v = w.gate(&anchor("bind"));
    assert_eq!((v.kind, v.decision), (VerdictKind::Deny, Decision::Deny));
    assert!(
        v.reason
            .starts_with("seed: mcp__hestai__odyssean_anchor(stage=\"bind\") is not allowed now"),
        "{}",
        v.reason
    );
    assert!(
        v.reason.ends_with(
            "First call mcp__hestai__odyssean_anchor(stage=\"commit_identity\"); after that, mcp__hestai__odyssean_anchor(stage=\"bind\") is allowed."
        ),
        "{}",
        v.reason
    );
    assert_eq!(
        v.next.as_deref(),
        Some("mcp__hestai__odyssean_anchor(stage=\"commit_identity\")")
    );
    assert_eq!(w.at(), vec!["IDENTIFYING"], "a denied call moves nothing");
    // A repeated init while identifying takes the new tier and stays put.
    let lite = tool(
        "mcp__hestai__odyssean_anchor",
        json!({"stage": "init", "role": "implementation-lead", "tier": "LITE", "topic": "t"}),
    );
    w.call(&lite, VerdictKind::Neutral).expect(
        "IDENTIFYING",
        33.3,
        Some("odyssean_anchor(stage=\"commit_identity\")"),
    );
    assert_eq!(w.snap.vars.get("tier"), Some(&json!("LITE")));
    w.call(&anchor("commit_identity"), VerdictKind::Advance)
        .expect(
            "CONTEXTUALIZING",
            66.7,
            Some("odyssean_anchor(stage=\"bind\")"),
        );
    // commit_identity again is out of order too; init starts the binding over.
    assert_eq!(w.gate(&anchor("commit_identity")).decision, Decision::Deny);
    w.call(&anchor("init"), VerdictKind::Advance).expect(
        "IDENTIFYING",
        33.3,
        Some("odyssean_anchor(stage=\"commit_identity\")"),
    );
    assert_eq!(w.snap.vars.get("tier"), Some(&json!("FULL")));
    // A call with no stage at all is no stage: denied.
    let bare = tool("mcp__hestai__odyssean_anchor", json!({}));
    assert_eq!(w.gate(&bare).decision, Decision::Deny);
    w.call(&anchor("commit_identity"), VerdictKind::Advance);
    w.call(&anchor("bind"), VerdictKind::Advance)
        .expect("BOUND", 100.0, None);
    // Bound: every stage (and every tool) is in scope.
    w.call(&anchor("init"), VerdictKind::Neutral)
        .expect("BOUND", 100.0, None);
}

#[test]
fn refusals_name_calls_as_the_agent_makes_them_and_status_shows_the_tier() {
    let mut w = Walk::new("odyssean_anchor");
    let v = w.gate(&tool("Edit", json!({"file_path": "src/main.rs"})));
    let by = v.denied_by.expect("a policy refused it");
    assert_eq!(
        by.rule,
        "allows only odyssean_anchor(stage=\"init\"), Read, Grep, Glob, LS"
    );
    assert!(
        v.reason
            .starts_with("seed: Edit is not allowed now — \"LOBBY\" allows only odyssean_anchor(stage=\"init\"), Read"),
        "a top-level state is its own tier, named once: {}",
        v.reason
    );
    assert!(!v.reason.contains("*."), "{}", v.reason);
    let init = tool(
        "mcp__hestai__odyssean_anchor",
        json!({"stage": "init", "role": "implementation-lead", "tier": "LITE", "topic": "cache"}),
    );
    w.call(&init, VerdictKind::Advance);
    let st = w.m.status(&w.snap);
    assert_eq!(st.vars.get("tier"), Some(&json!("LITE")));
    let text = seed::report::status_text(&st);
    assert!(
        text.contains(
            "vars:    role = \"implementation-lead\", tier = \"LITE\", topic = \"cache\""
        ),
        "{text}"
    );
    // Hostile values are shown escaped and clipped.
    w.snap.vars.insert(
        "topic".into(),
        json!(format!("\u{1b}[2J{}", "x".repeat(500))),
    );
    let text = seed::report::status_text(&w.m.status(&w.snap));
    let line = text
        .lines()
        .find(|l| l.starts_with("vars:"))
        .expect("vars line");
    assert!(
        !line.contains('\u{1b}') && line.chars().count() < 200,
        "{line}"
    );
}

fn anchor(stage: &str) -> Event {
    tool("mcp__hestai__odyssean_anchor", json!({ "stage": stage }))
}

#[test]
fn odyssean_anchor_status_names_each_allowed_call_once_and_any_tool_once_bound() {
    let mut w = Walk::new("odyssean_anchor");
    w.advance(&anchor("init"));
    let st = w.m.status(&w.snap);
    // As the session calls the anchor: through the server it used.
    assert_eq!(
        st.allowed.calls(),
        [
            "mcp__hestai__odyssean_anchor(stage=\"commit_identity\")",
            "mcp__hestai__odyssean_anchor(stage=\"init\")",
            "Read",
            "Grep",
            "Glob",
            "LS"
        ]
    );
    w.advance(&anchor("commit_identity"));
    w.advance(&anchor("bind"));
    // Bound: `BOUND --> BOUND : *` lets every call through, and the status says so.
    let st = w.m.status(&w.snap);
    assert_eq!(st.allowed, seed::engine::Allowed::Any);
    assert!(
        seed::report::status_text(&st).contains("allowed: any tool\n"),
        "{}",
        seed::report::status_text(&st)
    );
    // Not finished (the session has not ended), and nothing to recover from.
    assert!(!st.progress.done);
    let rec = seed::report::recovery_text(&st);
    assert!(
        rec.contains("nothing to recover: any tool is allowed here") && !rec.contains("finished"),
        "{rec}"
    );
}

#[test]
fn odyssean_anchor_out_of_order_stages_are_told_the_stage_that_comes_next() {
    let mut w = Walk::new("odyssean_anchor");
    // The anchor as the agent may call it, by its own name: the name every suggestion uses.
    let bare = |stage: &str| tool("odyssean_anchor", json!({ "stage": stage }));
    let v = w.gate(&bare("commit_identity"));
    assert_eq!(v.decision, Decision::Deny);
    assert!(
        v.reason.contains("First call odyssean_anchor(stage=\"init\"); after that, odyssean_anchor(stage=\"commit_identity\") is allowed."),
        "{}",
        v.reason
    );
    w.call(&bare("init"), VerdictKind::Advance);
    w.call(&bare("commit_identity"), VerdictKind::Advance);
    assert_eq!(w.at(), ["CONTEXTUALIZING"]);
    // The identity is committed: committing it again is refused, naming the stage that is due
    // (not the permit's "anything goes" after it).
    // Each is told the call as it makes it: by its own name, or (once the session called it
    // through a server) through that server.
    for (again, due) in [
        (bare("commit_identity"), "odyssean_anchor(stage=\"bind\")"),
        (
            anchor("commit_identity"),
            "mcp__hestai__odyssean_anchor(stage=\"bind\")",
        ),
    ] {
        let v = w.gate(&again);
        assert_eq!(v.decision, Decision::Deny);
        assert!(
            v.reason
                .ends_with(&format!("is allowed only as {due}, not with this input.")),
            "{}",
            v.reason
        );
    }
}

#[test]
fn a_denied_stage_is_named_with_its_stage_in_status_and_recovery() {
    let mut w = Walk::new("odyssean_anchor");
    let init = tool(
        "mcp__hestai__odyssean_anchor",
        json!({"stage": "init", "role": "impl", "tier": "LITE", "topic": "cache"}),
    );
    w.call(&init, VerdictKind::Advance);
    w.expect(
        "IDENTIFYING",
        33.3,
        Some("odyssean_anchor(stage=\"commit_identity\")"),
    );
    // Binding before the identity is committed: the hook refuses this stage, not the tool.
    let bind = tool(
        "mcp__hestai__odyssean_anchor",
        json!({"stage": "bind", "payload": "x".repeat(5_000)}),
    );
    let v = w.gate(&bind);
    assert_eq!(v.decision, Decision::Deny);
    let named = "mcp__hestai__odyssean_anchor(stage=\"bind\")";
    assert!(v.reason.contains(named), "{}", v.reason);
    let st = w.m.status(&w.snap);
    assert_eq!(st.denied_call.as_deref(), Some(named));
    let way = format!(
        "{named} becomes legal after: mcp__hestai__odyssean_anchor(stage=\"commit_identity\")."
    );
    assert!(
        st.recovery.suggestions.contains(&way),
        "{:?}",
        st.recovery.suggestions
    );
    // Every face says it so: the CLI text and JSON (the large payload is not quoted).
    let text = seed::report::recovery_text(&st);
    assert!(
        text.contains(&format!("last denied call: {named}\n")),
        "{text}"
    );
    assert!(!text.contains("xxxx"), "{text}");
    assert_eq!(seed::report::status_json(&st)["denied_call"], named);
    assert_eq!(seed::report::recovery_json(&st)["denied_call"], named);
    // The snapshot keeps a bounded part of a huge input, whatever its shape.
    let mut many = serde_json::Map::new();
    for i in 0..10_000 {
        many.insert(format!("k{i}"), json!("y".repeat(300)));
    }
    many.insert("stage".into(), json!("bind"));
    for input in [
        serde_json::Value::Object(many),
        json!(vec!["x"; 10_000]),
        json!("z".repeat(100_000)),
    ] {
        w.gate(&tool("mcp__hestai__odyssean_anchor", input));
        let kept = &w.snap.denied.as_ref().expect("denied").input;
        assert!(kept.to_string().len() <= 4096, "{:.80}", kept.to_string());
    }
}
