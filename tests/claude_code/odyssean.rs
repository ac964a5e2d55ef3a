//! The odyssean anchor against a small MCP server that offers `odyssean_anchor`: no work
//! before the binding, every refusal names a call the model can make, and the walk to BOUND.

use serde_json::json;

use crate::harness::anchor_mcp::{BIND_GRANTED, BIND_REJECTED};
use crate::harness::{Scenario, Turn, replay};

fn anchor(stage: &str) -> Turn {
    let payload = match stage {
        "bind" => "===IDENTITY=== BIND ARM TENSIONS COMMIT ===END===",
        _ => "===IDENTITY=== BIND ===END===",
    };
    anchor_with(stage, payload)
}

fn anchor_with(stage: &str, payload: &str) -> Turn {
    let input = match stage {
        "init" => json!({"stage": "init", "role": "tester", "tier": "LITE", "topic": "suite"}),
        _ => json!({"stage": stage, "payload": payload}),
    };
    Turn::tool("mcp__anchor__odyssean_anchor", input)
}

#[test]
fn the_anchor_walk_binds_the_agent_before_any_work() {
    let Some(s) = Scenario::new() else { return };
    let run = s
        .sequence("odyssean_anchor")
        .anchor_mcp()
        .prompt("Bind, then work.")
        .model([
            Turn::tool(
                "ToolSearch",
                json!({"query": "select:mcp__anchor__odyssean_anchor"}),
            ),
            anchor("init"),
            anchor("commit_identity"),
            anchor("bind"),
            Turn::tool("Bash", json!({"command": "echo working"})),
            Turn::text("Bound and working."),
        ])
        .run();

    assert!(!run.result(0).is_error, "ToolSearch: {:?}", run.result(0));
    for (turn, said) in [
        (1, "anchored: init"),
        (2, "anchored: commit_identity"),
        (3, BIND_GRANTED),
    ] {
        let r = run.result(turn);
        assert_eq!((r.text.as_str(), r.is_error), (said, false));
    }
    assert_eq!(run.result(4).text, "working");
    let calls = run
        .requests
        .iter()
        .filter(|r| r.conversation == "mcp" && r.body["method"] == "tools/call")
        .count();
    assert_eq!(calls, 3, "the server saw the three stages");
    let gates: Vec<_> = run
        .records_of("PreToolUse")
        .iter()
        .map(|r| {
            r["verdict"]["decision"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(gates, ["allow"; 5], "nothing refused on the way");
    // BOUND until the session ended, which completes the binding.
    let (_, status, _) = run.seed(&["status", "--session", &run.session_id(), "--json"]);
    let status: serde_json::Value = serde_json::from_str(&status).expect("status --json");
    assert_eq!(status["progress"]["done"], true, "{status:#}");

    replay::agrees_with_live(&run, "odyssean_anchor");
    insta::with_settings!({filters => replay::FRAME_FILTERS.to_vec()}, {
        insta::assert_snapshot!(replay::last_frame(&run, "odyssean_anchor"));
    });
}

#[test]
fn before_the_binding_a_refusal_names_the_anchor_as_the_model_calls_it() {
    let Some(s) = Scenario::new() else { return };
    let run = s
        .sequence("odyssean_anchor")
        // The server as a user configures it: in the project's .mcp.json, approved.
        .anchor_in_project_mcp_json()
        .prompt("Run the tests.")
        .model([
            Turn::tool("Bash", json!({"command": "echo working"})),
            Turn::text("I need a work permit first."),
        ])
        .run();

    let refused = run.result(0);
    assert!(refused.is_error, "{refused:?}");
    assert!(
        refused
            .text
            .contains("mcp__anchor__odyssean_anchor(stage=\"init\""),
        "the refusal must name the tool the session has: {}",
        refused.text
    );
}

/// Seed 001, STEP_3_BINDING_PROOF: CONTEXTUALIZING → BOUND when the tool "Returns: SUCCESS +
/// WORK_PERMIT". The server rejects the first bind: the model's next work is refused, and
/// what it is sent names the bind to make again; the second bind's SUCCESS lets work through.
#[test]
fn a_rejected_bind_grants_no_permit_and_the_refusal_says_bind_again() {
    let Some(s) = Scenario::new() else { return };
    let run = s
        .sequence("odyssean_anchor")
        .anchor_mcp()
        .prompt("Bind, then work.")
        .model([
            Turn::tool(
                "ToolSearch",
                json!({"query": "select:mcp__anchor__odyssean_anchor"}),
            ),
            anchor("init"),
            anchor("commit_identity"),
            anchor_with("bind", "===IDENTITY=== BIND ARM TENSIONS ===END==="),
            Turn::tool("Bash", json!({"command": "echo working"})),
            anchor("bind"),
            Turn::tool("Bash", json!({"command": "echo working"})),
            Turn::text("Bound and working."),
        ])
        .run();

    let rejected = run.result(3);
    assert_eq!(
        (rejected.text.as_str(), rejected.is_error),
        (BIND_REJECTED, false)
    );
    let refused = run.result(4);
    assert!(refused.is_error, "{refused:?}");
    for said in [
        "No work permit yet",
        "The permit comes with the answer SUCCESS: after a rejected bind, correct what the server named and bind again.",
        "mcp__anchor__odyssean_anchor(stage=\"bind\")",
    ] {
        assert!(refused.text.contains(said), "{said}: {}", refused.text);
    }
    assert_eq!(run.result(5).text, BIND_GRANTED);
    assert_eq!(run.result(6).text, "working");
    let gates: Vec<String> = run
        .records_of("PreToolUse")
        .iter()
        .map(|r| {
            r["verdict"]["decision"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(
        gates,
        ["allow", "allow", "allow", "allow", "deny", "allow", "allow"]
    );
    let (_, status, _) = run.seed(&["status", "--session", &run.session_id(), "--json"]);
    let status: serde_json::Value = serde_json::from_str(&status).expect("status --json");
    assert_eq!(status["progress"]["done"], true, "{status:#}");
    replay::agrees_with_live(&run, "odyssean_anchor");
}
