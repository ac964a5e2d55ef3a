//! The hook reads which MCP servers Claude Code's configuration gives the project: a refusal
//! names a tool the sequence calls on any server as the model calls it, and the refusal and
//! the guidance line say when the next call's server is missing, with how to add it (Claude
//! Code answers a call to it "No such tool available", and no hook hears that).

use crate::support::hook as hook_common;

use hook_common::{Sandbox, payload};
use serde_json::{Value, json};

fn refusal(s: &Sandbox, sequence: &str) -> String {
    let r = s.hook(
        &["--sequence", sequence],
        payload(
            "PreToolUse",
            "s1",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}),
        ),
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let v: Value = r.json();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn guidance(s: &Sandbox, sequence: &str) -> String {
    let r = s.hook(
        &["--sequence", sequence],
        payload("SessionStart", "s1", json!({"source": "startup"})),
    );
    r.json()["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_missing_server_is_named_with_its_fix_in_the_refusal_and_the_guidance() {
    let s = Sandbox::new().without_mcp_servers();
    let said = refusal(&s, "compound_intelligence");
    assert!(
        said.ends_with("mcp__seed__who_am_i cannot be called here: no MCP server \"seed\" is configured for this project (add it: seed install --mcp)."),
        "{said}"
    );
    let line = guidance(&s, "compound_intelligence");
    assert!(
        line.contains(
            "next: mcp__seed__who_am_i (no MCP server \"seed\" configured: seed install --mcp)"
        ),
        "{line}"
    );
}

#[test]
fn a_server_in_the_projects_approved_mcp_json_is_not_missing() {
    let s = Sandbox::new().without_mcp_servers();
    std::fs::write(
        s.project().join(".mcp.json"),
        r#"{"mcpServers": {"seed": {"command": "seed", "args": ["mcp"]}}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(s.project().join(".claude")).unwrap();
    std::fs::write(
        s.project().join(".claude/settings.local.json"),
        r#"{"enabledMcpjsonServers": ["seed"]}"#,
    )
    .unwrap();
    assert!(!refusal(&s, "compound_intelligence").contains("no MCP server"));
    assert!(!guidance(&s, "compound_intelligence").contains("no MCP server"));
}

#[test]
fn the_anchor_is_named_on_the_one_server_the_project_configures() {
    let s = Sandbox::new().without_mcp_servers();
    std::fs::write(
        s.project().join(".mcp.json"),
        r#"{"mcpServers": {"anchor": {"command": "anchor"}}}"#,
    )
    .unwrap();
    let said = refusal(&s, "odyssean_anchor");
    assert!(
        said.contains("First call mcp__anchor__odyssean_anchor(stage=\"init\")"),
        "{said}"
    );
}

#[test]
fn a_broken_claude_configuration_changes_no_answer() {
    let s = Sandbox::new();
    let before = refusal(&s, "compound_intelligence");
    std::fs::write(s.project().join(".mcp.json"), "{\"mcpServers\": ").unwrap();
    std::fs::write(s.dir.path().join(".claude.json"), vec![b'['; 1 << 20]).unwrap();
    let r = s.hook(
        &["--sequence", "compound_intelligence"],
        payload(
            "PreToolUse",
            "s2",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}),
        ),
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "no hook failure");
    let after = r.json()["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_ne!(before, after, "the servers are no longer known");
    assert!(
        after.contains("no MCP server \"seed\" is configured"),
        "{after}"
    );
}
