//! Every event: a hand-written payload in, the exact stdout and exit code out.

use crate::support::hook as hook_common;

use hook_common::{Sandbox, assert_snapshot_is_fold, payload};
use serde_json::{Value, json};

const CONFIG: &str = r#"
sequence = "starlog_initialization"
off_path = "deny"
inject_every = 3

[stop]
block_until_final = true
max_blocks = 2
"#;

fn tool(name: &str) -> Value {
    json!({ "tool_name": name, "tool_input": { "path": "." }, "tool_use_id": "toolu_01" })
}

fn ctx(event: &str, text: &str) -> String {
    format!(
        "{}\n",
        json!({ "hookSpecificOutput": { "hookEventName": event, "additionalContext": text } })
    )
}

const LINE_START: &str =
    "[SEED SEQUENCE] \"starlog_initialization\" · at: start · next: mcp__starlog__check · 0% done";
const LINE_CHECKED: &str = "[SEED SEQUENCE] \"starlog_initialization\" · last call: starlog.check · next: mcp__starlog__orient · 25% done";

#[test]
fn a_session_walks_through_every_answer() {
    let s = Sandbox::new();
    s.write_config(CONFIG);
    let sid = "0b6f1c2e-0000-4000-8000-000000000001";
    let ev = |event: &str, extra: Value| payload(event, sid, extra);

    // SessionStart: the guidance line, as context.
    let r = s.hook(&[], ev("SessionStart", json!({ "source": "startup" })));
    assert_eq!(
        (r.stdout.as_str(), r.code),
        (ctx("SessionStart", LINE_START).as_str(), 0)
    );

    // PreToolUse off the path: deny, naming the next legal tool.
    let r = s.hook(&[], ev("PreToolUse", tool("Bash")));
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        format!(
            "{}\n",
            json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "permissionDecision": "deny",
                "permissionDecisionReason": "seed [starlog_initialization]: Bash is not part of \"starlog_initialization\" now (at: \"start\"). Next: call mcp__starlog__check." } })
        )
    );
    assert!(r.stderr.is_empty());

    // A neutral tool and the expected tool: allowed, nothing printed (no permission granted).
    for t in ["Read", "mcp__starlog__check"] {
        let r = s.hook(&[], ev("PreToolUse", tool(t)));
        assert_eq!((r.stdout.as_str(), r.code), ("", 0), "{t}");
    }
    // PostToolUse advances the sequence; nothing printed.
    let mut post = tool("mcp__starlog__check");
    post["tool_response"] = json!([{ "type": "text", "text": "project ok" }]);
    let r = s.hook(&[], ev("PostToolUse", post));
    assert_eq!((r.stdout.as_str(), r.code), ("", 0));

    // The line changed: injected on the next prompt; then every 3rd prompt.
    let prompt = |p: &str| ev("UserPromptSubmit", json!({ "prompt": p }));
    let r = s.hook(&[], prompt("continue"));
    assert_eq!(r.stdout, ctx("UserPromptSubmit", LINE_CHECKED));
    assert_eq!(s.hook(&[], prompt("more")).stdout, "");
    assert_eq!(s.hook(&[], prompt("more")).stdout, "");
    assert_eq!(
        s.hook(&[], prompt("more")).stdout,
        ctx("UserPromptSubmit", LINE_CHECKED)
    );

    // A failed tool call raises the error event; nothing printed.
    let mut fail = tool("mcp__starlog__orient");
    fail["error"] = json!("connection refused");
    let r = s.hook(&[], ev("PostToolUseFailure", fail));
    assert_eq!((r.stdout.as_str(), r.code), ("", 0));

    // Stop: blocked while the sequence is unfinished, twice per prompt (max_blocks), whatever
    // stop_hook_active says (Claude Code keeps it true for the rest of the turn).
    let stop = |active: bool| ev("Stop", json!({ "stop_hook_active": active }));
    let block = "{\"decision\":\"block\",\"reason\":\"seed [starlog_initialization]: \\\"starlog_initialization\\\" is not finished (25% done, at \\\"starlog.check\\\"). Continue with mcp__starlog__orient.\"}\n";
    assert_eq!(s.hook(&[], stop(false)).stdout, block);
    assert_eq!(s.hook(&[], stop(true)).stdout, block);
    assert_eq!(
        s.hook(&[], stop(true)).stdout,
        "",
        "at most max_blocks times"
    );
    assert_eq!(s.hook(&[], stop(false)).stdout, "");

    // After compaction the line is injected again even though it did not change; it says
    // that the call it waits for failed, and with what.
    let r = s.hook(&[], ev("SessionStart", json!({ "source": "compact" })));
    let failed = LINE_CHECKED.replace(
        " · next: ",
        " · mcp__starlog__orient failed: connection refused · next: ",
    );
    assert_eq!(r.stdout, ctx("SessionStart", &failed));
    let r = s.hook(&[], ev("SessionStart", json!({ "source": "startup" })));
    assert_eq!(r.stdout, "", "unchanged on a plain start");

    // Lifecycle and other events: recorded, answered with nothing.
    for (event, extra) in [
        (
            "PreCompact",
            json!({ "trigger": "auto", "custom_instructions": null }),
        ),
        (
            "PostCompact",
            json!({ "trigger": "auto", "compact_summary": "…" }),
        ),
        (
            "Notification",
            json!({ "message": "Claude needs your permission", "notification_type": "permission_prompt" }),
        ),
        (
            "SubagentStart",
            json!({ "agent_id": "a4c19e07b2d85f316", "agent_type": "Explore" }),
        ),
        (
            "PermissionRequest",
            json!({ "tool_name": "Bash", "tool_input": { "command": "ls" } }),
        ),
        ("PostToolBatch", json!({ "tool_calls": [] })),
        ("StopFailure", json!({ "error": "rate_limit" })),
        ("SessionEnd", json!({ "reason": "other" })),
        ("FutureEvent", json!({ "anything": [1, 2] })),
    ] {
        let r = s.hook(&[], ev(event, extra));
        assert_eq!(
            (r.stdout.as_str(), r.code, r.stderr.as_str()),
            ("", 0, ""),
            "{event}"
        );
    }
    let lines = s.log_lines(sid);
    assert_eq!(lines.len(), 25);
    let unknown = lines.iter().find(|l| l["hook"] == "FutureEvent").unwrap();
    assert!(unknown.get("phase").is_none() && unknown["extra"]["unknown_event"] == true);
    let failure = lines
        .iter()
        .find(|l| l["hook"] == "PostToolUseFailure")
        .unwrap();
    assert_eq!(failure["event"]["kind"], "error.tool");
    assert_eq!(failure["extra"]["error"], "connection refused");
    assert_eq!(failure["event"]["response"], "connection refused");
    let sub = lines.iter().find(|l| l["hook"] == "SubagentStart").unwrap();
    assert_eq!(sub["agent"], "a4c19e07b2d85f316");
    assert_snapshot_is_fold(&s.home(), sid);

    // `status --session` and `recovery` read the state directory.
    let out = s
        .cmd()
        .args(["status", "--json", "--session", sid])
        .output()
        .unwrap();
    let mut st: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["current"], json!(["starlog.check"]));
    // A session's status names it; a file of events has no session to name.
    let named = st.as_object_mut().unwrap().remove("session").unwrap();
    assert_eq!(named["id"], sid);
    assert_eq!(named["project"], "/home/dev/work/p");
    let log = s.session_dir(sid).join("log.jsonl");
    let args = [
        "status",
        "--json",
        "--sequence",
        "starlog_initialization",
        "--events",
        log.to_str().unwrap(),
    ];
    let out = s.cmd().args(args).output().unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        st,
        "same output as --events"
    );
    let out = s
        .cmd()
        .args(["recovery", "--session", &sid[..8]])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("mcp__starlog__orient"));
}

#[test]
fn advise_mode_allows_with_a_warning() {
    let s = Sandbox::new();
    let r = s.hook_env(
        &["--sequence", "starlog_initialization"],
        payload("PreToolUse", "s-advise", tool("mcp__starship__fly")),
        &[("SEED_ENFORCEMENT", "advise"), ("SEED_OFF_PATH", "deny")],
    );
    let v = r.json();
    let w = "seed [starlog_initialization]: mcp__starship__fly comes later in \"starlog_initialization\" (after 2 more calls; at: \"start\"). First call mcp__starlog__check, then mcp__starlog__orient; after that, mcp__starship__fly is allowed.";
    assert_eq!(
        v,
        json!({ "systemMessage": w, "hookSpecificOutput": { "hookEventName": "PreToolUse", "additionalContext": w } })
    );
}

#[test]
fn repeated_denials_escalate() {
    let s = Sandbox::new();
    s.write_config(CONFIG);
    let mut last = String::new();
    // Three denials, then the fourth attempt escalates.
    for _ in 0..4 {
        last = s
            .hook(&[], payload("PreToolUse", "s-dead", tool("Bash")))
            .stdout;
    }
    let reason = serde_json::from_str::<Value>(&last).unwrap()["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        reason.contains("denied 3 times") && reason.contains("ask the user"),
        "{reason}"
    );
}

#[test]
fn several_sequences_most_restrictive_wins_and_names_the_denier() {
    let s = Sandbox::new();
    s.write_config(
        "sequences = [\"starlog_initialization\", \"giint_workflow\"]\noff_path = \"deny\"\n",
    );
    let r = s.hook(
        &[],
        payload("PreToolUse", "s-multi", tool("mcp__starlog__check")),
    );
    let v = r.json();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(reason.starts_with("seed [giint_workflow]: "), "{reason}");
    // Each sequence has its own snapshot.
    let snaps = std::fs::read_dir(s.session_dir("s-multi").join("snapshots"))
        .unwrap()
        .count();
    assert_eq!(snaps, 2);
    // The SessionStart line carries both sequences, in one line of at most 300 characters.
    let r = s.hook(
        &[],
        payload("SessionStart", "s-multi", json!({ "source": "startup" })),
    );
    let text = r.json()["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.chars().count() <= 300, "{text}");
    assert!(
        text.starts_with("[SEED SEQUENCE] \"starlog_initialization\"")
            && text.contains(" | \"giint_workflow\""),
        "{text}"
    );
    assert_snapshot_is_fold(&s.home(), "s-multi");
}

#[test]
fn no_sequence_records_and_stays_silent() {
    let s = Sandbox::new();
    let r = s.hook(&[], payload("PreToolUse", "s-none", tool("Bash")));
    assert_eq!((r.stdout.as_str(), r.code, r.stderr.as_str()), ("", 0, ""));
    assert_eq!(s.log_lines("s-none").len(), 1);
}

#[test]
fn secrets_are_redacted_and_responses_bounded() {
    let s = Sandbox::new();
    let mut p = tool("Bash");
    p["tool_input"] = json!({ "command": "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz' https://x", "api_key": "hunter2" });
    p["tool_response"] = json!({ "stdout": format!("{}ghp_0123456789abcdefghijABCDEFGHIJ0123", "y".repeat(40_000)), "stderr": "" });
    s.hook(
        &["--sequence", "starlog_initialization"],
        payload("PostToolUse", "s-red", p),
    );
    let text = std::fs::read_to_string(s.session_dir("s-red").join("log.jsonl")).unwrap();
    assert!(!text.contains("abcdefghijklmnopqrstuvwxyz") && !text.contains("hunter2"));
    let rec: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(rec["response"]["truncated"], true);
    assert!(rec["response"]["size"].as_u64().unwrap() > 40_000);
    assert!(text.len() < 20_000);
}

#[test]
fn every_known_event_is_answered_exactly() {
    let s = Sandbox::new();
    s.write_config(
        "sequence = \"starlog_initialization\"\n[stop]\nblock_until_final = true\nmax_blocks = 1\n",
    );
    let sid = "all-events";
    let first = s.hook(
        &[],
        payload("SessionStart", sid, json!({ "source": "startup" })),
    );
    assert_eq!(first.stdout, ctx("SessionStart", LINE_START));
    for event in seed::protocol::input::EVENTS {
        let extra = match event {
            "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "PermissionRequest"
            | "PermissionDenied" => tool("Read"),
            "UserPromptSubmit" | "UserPromptExpansion" => {
                json!({ "prompt": "/hope:intent x", "command_name": "hope:intent" })
            }
            "SessionStart" => json!({ "source": "clear" }),
            "SubagentStart" | "SubagentStop" => {
                json!({ "agent_id": "a1", "agent_type": "", "stop_hook_active": false })
            }
            "Stop" => json!({ "stop_hook_active": false }),
            _ => json!({}),
        };
        let r = s.hook(&[], payload(event, sid, extra));
        assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{event}");
        let expected = match event {
            // Context was cleared: the line again.
            "SessionStart" => ctx("SessionStart", LINE_START),
            // The sequence is unfinished: the first stop is blocked, the next (max 1) is not.
            "Stop" => "{\"decision\":\"block\",\"reason\":\"seed [starlog_initialization]: \\\"starlog_initialization\\\" is not finished (0% done, at \\\"start\\\"). Continue with mcp__starlog__check.\"}\n".to_string(),
            _ => String::new(),
        };
        assert_eq!(r.stdout, expected, "{event}");
    }
    assert_eq!(s.log_lines(sid).len(), 34);
    assert_snapshot_is_fold(&s.home(), sid);
}
