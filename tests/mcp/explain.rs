//! The MCP `explain` tool: the agent asks why a call would be refused and gets what
//! `seed explain` prints for the same session — text by default, the `--json` object with
//! `json: true` — and a call it cannot read is an invalid-params error naming why.

use crate::support::mcp as mcp_common;

use mcp_common::{Client, SESSION, hook_call, seed, stdout_of, text};
use serde_json::{Value, json};

#[test]
fn explain_answers_what_the_cli_prints() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    let mut c = Client::start(home.path(), Some(SESSION));

    let answer = c.call("explain", json!({"call": "mcp__starship__fly"}));
    let cli =
        stdout_of(seed(home.path()).args(["explain", "mcp__starship__fly", "--session", SESSION]));
    assert_eq!(text(&answer).trim_end(), cli.trim_end());
    assert!(
        cli.starts_with("compound_intelligence — mcp__starship__fly: deny"),
        "{cli}"
    );
    assert!(cli.contains("way: mcp__seed__what_do_i_do → "), "{cli}");

    let answer = c.call_json("explain", json!({"call": "mcp__starship__fly"}));
    let cli: Value = serde_json::from_str(&stdout_of(seed(home.path()).args([
        "explain",
        "mcp__starship__fly",
        "--session",
        SESSION,
        "--json",
    ])))
    .unwrap();
    assert_eq!(answer["result"]["structuredContent"], cli);
    assert_eq!(cli["sequences"][0]["decision"], "deny");
}

#[test]
fn a_call_the_tool_cannot_read_is_an_error_result_naming_why() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    let mut c = Client::start(home.path(), Some(SESSION));
    let huge = format!("Bash(command=\"{}\")", "x".repeat(2 << 20));
    for bad in [
        json!({}),
        json!({"call": ""}),
        json!({"call": "Bash(command="}),
        json!({"call": huge}),
    ] {
        let answer = c.call("explain", bad.clone());
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        let msg = text(&answer);
        assert!(
            msg.starts_with("seed: invalid arguments for `explain`: "),
            "{msg}"
        );
        assert!(!msg.contains('\n') && !msg.is_empty(), "{msg}");
    }
}
