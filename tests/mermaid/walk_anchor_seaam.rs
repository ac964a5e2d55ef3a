//! Walks through `odyssean_anchor` (seed 001): the hook events along the way, with the node,
//! verdict, progress and recovery expected after each (`seaam_organ_lifecycle` is walked
//! through real `dna.json` files in `seaam_dna.rs`).

use crate::support::mermaid as mermaid_common;

use mermaid_common::{Walk, tool};
use seed::engine::{Decision, Event, VerdictKind};
use serde_json::json;

/// The bind's answer when the server grants the permit (seed 001, STEP_3_BINDING_PROOF:
/// "Returns: SUCCESS + WORK_PERMIT"), as an MCP tool's result reaches PostToolUse.
const PERMIT: &str = "SUCCESS\nWORK_PERMIT: granted";

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
    )
    .with_response(json!(PERMIT));
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
            // FULL: the bind carries TENSIONS and COMMIT.
            json!({"stage": stage, "role": "implementation-lead", "tier": "FULL", "topic": "t",
                "payload": "===IDENTITY=== BIND ARM TENSIONS COMMIT ===END==="}),
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
    w.call(
        &anchor("bind").with_response(json!(PERMIT)),
        VerdictKind::Advance,
    )
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
    w.advance(&anchor("bind").with_response(json!(PERMIT)));
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

/// An anchor call with `input`, `stage` added.
fn staged(stage: &str, mut input: serde_json::Value) -> Event {
    input["stage"] = json!(stage);
    tool("mcp__hestai__odyssean_anchor", input)
}

/// A walk to CONTEXTUALIZING under `tier`.
fn identified(tier: &str) -> Walk {
    let mut w = Walk::new("odyssean_anchor");
    w.call(
        &staged("init", json!({"role": "impl", "tier": tier, "topic": "t"})),
        VerdictKind::Advance,
    );
    w.call(
        &staged(
            "commit_identity",
            json!({"payload": "===IDENTITY=== BIND ===END==="}),
        ),
        VerdictKind::Advance,
    );
    assert_eq!(w.at(), ["CONTEXTUALIZING"]);
    w
}

/// STEP_3_BINDING_PROOF: "TRANSITION::CONTEXTUALIZING → BOUND" when the tool "Returns:
/// SUCCESS + WORK_PERMIT". A bind the server rejects (an answer without SUCCESS, or a failed
/// call) leaves the agent at CONTEXTUALIZING, still without a permit, told to bind again.
#[test]
fn bound_only_when_the_binds_answer_says_success() {
    let mut w = identified("LITE");
    let full = json!({"payload": "===IDENTITY=== BIND ARM TENSIONS COMMIT ===END==="});
    let bind = staged("bind", full.clone());
    w.call(
        &bind.clone().with_response(
            json!([{"type": "text", "text": "REJECTED: TENSIONS do not cite the ARM context"}]),
        ),
        VerdictKind::Advance,
    );
    assert_eq!(w.at(), ["CONTEXTUALIZING"], "the call alone grants nothing");
    w.advance(&Event::tool_error(
        "mcp__hestai__odyssean_anchor",
        bind.input.clone(),
    ));
    assert_eq!(w.at(), ["CONTEXTUALIZING"], "nor does a failed call");
    let v = w.gate(&tool("Edit", json!({"file_path": "src/main.rs"})));
    assert_eq!(v.decision, Decision::Deny);
    assert!(
        v.reason.contains("The permit comes with the answer SUCCESS: after a rejected bind, correct what the server named and bind again."),
        "{}",
        v.reason
    );
    assert_eq!(
        v.next.as_deref(),
        Some("mcp__hestai__odyssean_anchor(stage=\"bind\")")
    );
    w.call(
        &bind.with_response(json!([{"type": "text", "text": PERMIT}])),
        VerdictKind::Advance,
    )
    .expect("BOUND", 100.0, None);
}

/// TIERS::[FULL, LITE, UNTRACKED]: an init with any other tier is refused, and the refusal
/// names the three. One without a tier leaves it to the server's default.
#[test]
fn an_unknown_tier_is_refused_naming_the_valid_ones() {
    let mut w = Walk::new("odyssean_anchor");
    for input in [
        json!({"role": "impl", "tier": "MEDIUM", "topic": "t"}),
        json!({"role": "impl", "tier": "lite", "topic": "t"}),
        json!({"role": "impl", "tier": "", "topic": "t"}),
    ] {
        let v = w.gate(&staged("init", input.clone()));
        assert_eq!(
            (v.kind, v.decision),
            (VerdictKind::Deny, Decision::Deny),
            "{input}"
        );
        assert!(
            v.reason.contains("The tier is one of FULL (production work), LITE (quick tasks) or UNTRACKED (one-off questions, dry runs)"),
            "{}",
            v.reason
        );
        assert_eq!(w.at(), ["LOBBY"]);
    }
    // The status does not count the rule against the calls it allows.
    assert!(
        w.m.status(&w.snap)
            .allowed
            .calls()
            .iter()
            .any(|a| a.contains("odyssean_anchor(stage=\"init\")")),
        "{:?}",
        w.m.status(&w.snap).allowed
    );
    let v = w.gate(&staged("init", json!({"role": "impl", "topic": "t"})));
    assert_eq!(v.decision, Decision::Allow, "{}", v.reason);
    // Restarting later with an unknown tier is refused too.
    let mut w = identified("LITE");
    let v = w.gate(&staged(
        "init",
        json!({"role": "impl", "tier": "MAX", "topic": "t"}),
    ));
    assert_eq!(v.decision, Decision::Deny, "{}", v.reason);
}

/// FULL: "REQ::[Strict_Constitution_Read, Full_Session_Creation, Deep_Context_Injection,
/// Tension_Validation]", its bind "Validates full schema (BIND+ARM+TENSIONS+COMMIT)"; LITE:
/// "Minimal_Validation". A FULL bind without TENSIONS and COMMIT is refused; LITE's is not.
#[test]
fn full_requires_tensions_and_commit_in_the_bind_beyond_lite() {
    let thin = json!({"payload": "===IDENTITY=== BIND ARM ===END==="});
    let mut full = identified("FULL");
    let v = full.gate(&staged("bind", thin.clone()));
    assert_eq!(v.decision, Decision::Deny);
    assert!(
        v.reason
            .contains("TENSIONS and COMMIT are what FULL requires beyond LITE"),
        "{}",
        v.reason
    );
    let whole = json!({"payload": "===IDENTITY=== BIND ARM TENSIONS::[L1] COMMIT::[a] ===END==="});
    assert_eq!(full.gate(&staged("bind", whole)).decision, Decision::Allow);
    let mut lite = identified("LITE");
    assert_eq!(lite.gate(&staged("bind", thin)).decision, Decision::Allow);
}

/// UNTRACKED: "REQ::[Identity_Check, No_Session_Disk_Write, No_Git_Tracking]", "STATE::
/// Ephemeral (Memory Only)". Bound UNTRACKED, the agent reads and runs but writes no file and
/// commits nothing.
#[test]
fn untracked_binds_for_work_that_writes_nothing() {
    let mut w = identified("UNTRACKED");
    w.call(
        &staged("bind", json!({"payload": "x"})).with_response(json!(PERMIT)),
        VerdictKind::Advance,
    );
    assert_eq!(w.at(), ["BOUND"]);
    for (name, input) in [
        ("Write", json!({"file_path": "notes.md", "content": "x"})),
        ("Edit", json!({"file_path": "src/main.rs"})),
        ("Bash", json!({"command": "git commit -am wip"})),
        ("Bash", json!({"command": "cd repo && git push"})),
    ] {
        let v = w.gate(&tool(name, input.clone()));
        assert_eq!(v.decision, Decision::Deny, "{name} {input}");
        assert!(v.reason.contains("Bound UNTRACKED (memory only: one-off questions, dry runs): nothing is written to disk or committed."), "{}", v.reason);
    }
    for (name, input) in [
        ("Read", json!({"file_path": "src/main.rs"})),
        ("Bash", json!({"command": "cargo test"})),
    ] {
        assert_eq!(
            w.gate(&tool(name, input)).decision,
            Decision::Allow,
            "{name}"
        );
    }
    // LITE and FULL bound: writing is the work.
    let mut lite = identified("LITE");
    lite.call(
        &staged("bind", json!({"payload": "x"})).with_response(json!(PERMIT)),
        VerdictKind::Advance,
    );
    let v = lite.gate(&tool("Write", json!({"file_path": "notes.md"})));
    assert_eq!(v.decision, Decision::Allow, "{}", v.reason);
}
