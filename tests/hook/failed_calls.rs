//! A call the sequence was waiting for that failed (`MCP server "starlog" is not connected`)
//! is not lost: status, recovery and the guidance line injected into the next prompt show the
//! call with its error before the way on, until the sequence moves; the log folds to the same
//! snapshot. A failure the sequence has an edge for, or of a call it was not waiting for, is
//! left to the sequence.

use crate::support::hook as hook_common;

use hook_common::{Sandbox, assert_snapshot_is_fold, payload};
use serde_json::{Value, json};

const SEQ: &[&str] = &["--sequence", "compound_intelligence"];

fn call(s: &Sandbox, sid: &str, tool: &str, id: &str, failed: Option<&str>) {
    let body = |extra: Value| {
        let mut v = json!({ "tool_name": tool, "tool_input": {}, "tool_use_id": id });
        if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
            o.extend(e);
        }
        v
    };
    s.hook(SEQ, payload("PreToolUse", sid, body(json!({}))));
    let post = match failed {
        Some(e) => payload("PostToolUseFailure", sid, body(json!({ "error": e }))),
        None => payload("PostToolUse", sid, body(json!({ "tool_response": {} }))),
    };
    let r = s.hook(SEQ, post);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
}

fn cli(s: &Sandbox, sid: &str, what: &str) -> String {
    let o = s.cmd().args([what, "--session", sid]).output().unwrap();
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn guidance(s: &Sandbox, sid: &str) -> String {
    let r = s.hook(
        SEQ,
        payload("UserPromptSubmit", sid, json!({ "prompt": "go on" })),
    );
    r.json()["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

const ERROR: &str = "MCP server \"starlog\" is not connected";

#[test]
fn a_required_call_that_failed_shows_its_error_with_the_recovery() {
    let s = Sandbox::new();
    let sid = "s-required";
    call(&s, sid, "mcp__seed__who_am_i", "t1", None);
    call(&s, sid, "mcp__seed__what_do_i_do", "t2", None);
    call(&s, sid, "mcp__starlog__check", "t3", Some(ERROR));
    assert_snapshot_is_fold(&s.home(), sid);

    let recovery = cli(&s, sid, "recovery");
    let first = recovery
        .lines()
        .find(|l| l.starts_with("  1. "))
        .unwrap_or_default();
    assert_eq!(
        first,
        format!(
            "  1. mcp__starlog__check failed: {ERROR}. Make it work (its MCP server `starlog` must be configured and connected: `claude mcp list`), then call it again."
        ),
        "{recovery}"
    );
    assert!(
        recovery.contains("  2. Next: call mcp__starlog__check."),
        "{recovery}"
    );
    let status = cli(&s, sid, "status");
    assert!(
        status.contains(&format!("\nfailed call: mcp__starlog__check: {ERROR}\n")),
        "{status}"
    );
    let line = guidance(&s, sid);
    assert!(
        line.contains(&format!(
            " · last call: seed.what_do_i_do · mcp__starlog__check failed: {ERROR} · next: mcp__starlog__check · "
        )),
        "{line}"
    );
    // A call off the way is refused with the failure, not a bare "call it".
    let r = s.hook(
        SEQ,
        payload(
            "PreToolUse",
            sid,
            json!({ "tool_name": "Bash", "tool_input": { "command": "ls" }, "tool_use_id": "t5" }),
        ),
    );
    let reason = r.json()["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        reason.ends_with(&format!(
            "mcp__starlog__check failed: {ERROR}. Make it work (its MCP server `starlog` must be configured and connected: `claude mcp list`), then call it again."
        )),
        "{reason}"
    );
    let o = s
        .cmd()
        .args(["status", "--session", sid, "--json"])
        .output()
        .unwrap();
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        j["failed_call"],
        json!({ "call": "mcp__starlog__check", "error": ERROR })
    );

    // Once the call goes through, the sequence moves on and the failure is history.
    call(&s, sid, "mcp__starlog__check", "t4", None);
    let after = cli(&s, sid, "recovery");
    assert!(!after.contains("failed"), "{after}");
    assert!(!guidance(&s, sid).contains("failed"));
    assert_snapshot_is_fold(&s.home(), sid);
}

#[test]
fn a_failure_of_a_call_nobody_waits_for_is_not_shown() {
    let s = Sandbox::new();
    let sid = "s-other";
    call(&s, sid, "mcp__seed__who_am_i", "t1", None);
    // Reading is neutral: its failure is the agent's business, not the sequence's.
    call(&s, sid, "Read", "t2", Some("File does not exist."));
    let recovery = cli(&s, sid, "recovery");
    assert!(!recovery.contains("failed"), "{recovery}");
    // A huge or hostile error is cut and cleaned where it is shown.
    let hostile = format!("boom\u{1b}[31m{}", "x".repeat(100_000));
    call(&s, sid, "mcp__seed__what_do_i_do", "t3", Some(&hostile));
    let recovery = cli(&s, sid, "recovery");
    let first = recovery
        .lines()
        .find(|l| l.starts_with("  1. "))
        .unwrap_or_default();
    assert!(
        first.starts_with("  1. mcp__seed__what_do_i_do failed: boom"),
        "{first}"
    );
    assert!(!first.contains('\u{1b}'), "{first:?}");
    assert!(first.chars().count() < 600, "{}", first.chars().count());
    assert_snapshot_is_fold(&s.home(), sid);
}
