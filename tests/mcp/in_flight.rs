//! The content tools answer for the session as it will be once their own call completes:
//! Claude Code runs an MCP tool between PreToolUse (recorded) and PostToolUse (which advances
//! the sequence). `status` stays exactly the CLI's.

use crate::support::mcp as mcp_common;

use mcp_common::{Client, SESSION, cli_view, hook_call, hook_event, seed, text};
use serde_json::json;

#[test]
fn what_do_i_do_answers_as_if_its_own_call_had_completed() {
    for spelling in ["mcp__seed__", "mcp__plugin_seed_seed__"] {
        let home = tempfile::tempdir().unwrap();
        hook_call(home.path(), &format!("{spelling}who_am_i"), "toolu_1");
        // Claude Code has run PreToolUse and now calls the tool.
        let what = format!("{spelling}what_do_i_do");
        hook_event(home.path(), SESSION, "PreToolUse", &what, "toolu_2");

        let mut c = Client::start(home.path(), Some(SESSION));
        let answer = text(&c.call("what_do_i_do", json!({})));
        assert!(
            answer.contains("Do next: call mcp__starlog__check"),
            "{spelling}: {answer}"
        );
        assert!(!answer.contains("call mcp__seed__what_do_i_do"), "{answer}");

        // status and recovery show the log as it is, exactly as the CLI does.
        let status = c.call("status", json!({}));
        let cli = cli_view(seed(home.path()).args(["status", "--session", SESSION]));
        assert_eq!(text(&status).trim_end(), cli.trim_end());
        assert!(cli.contains(&format!("next:    {what}")), "{cli}");

        // Once PostToolUse is recorded, nothing is left to project: the same answer.
        hook_event(home.path(), SESSION, "PostToolUse", &what, "toolu_2");
        assert_eq!(text(&c.call("what_do_i_do", json!({}))), answer);
    }
}

#[test]
fn another_tool_in_flight_or_a_denied_call_is_not_projected() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    let mut c = Client::start(home.path(), Some(SESSION));
    let before = text(&c.call("what_do_i_do", json!({})));
    assert!(
        before.contains("Do next: call mcp__seed__what_do_i_do"),
        "{before}"
    );

    // who_am_i again, in flight: seed's own tools are neutral, so it changes nothing.
    hook_event(
        home.path(),
        SESSION,
        "PreToolUse",
        "mcp__seed__who_am_i",
        "toolu_2",
    );
    assert_eq!(text(&c.call("what_do_i_do", json!({}))), before);
    // A gate of what_do_i_do completed by a failure is not in flight either.
    hook_event(
        home.path(),
        SESSION,
        "PreToolUse",
        "mcp__seed__what_do_i_do",
        "toolu_3",
    );
    hook_event(
        home.path(),
        SESSION,
        "PostToolUseFailure",
        "mcp__seed__what_do_i_do",
        "toolu_3",
    );
    // The way on is the same; only the failure of the call it waits for is said.
    let failed = before.replace(" · next: ", " · mcp__seed__what_do_i_do failed · next: ");
    assert_eq!(text(&c.call("what_do_i_do", json!({}))), failed);
    // recovery says it first, as the CLI does.
    let recovery = text(&c.call("recovery", json!({})));
    let cli = cli_view(seed(home.path()).args(["recovery", "--session", SESSION]));
    assert_eq!(recovery.trim_end(), cli.trim_end());
    assert!(
        recovery.contains("1. mcp__seed__what_do_i_do failed. Make it work"),
        "{recovery}"
    );
}
