//! One pass over every payload before anything of it is written or answered: secrets
//! redacted and every string bounded, whatever field it came in (known or not). Nothing seed
//! writes (the log, `session.json`, snapshots, `state.log`, `allowed_tools.seed`, the errors
//! log) nor anything it prints holds a secret of the payload, and no field makes a record,
//! `session.json` or an answer big.

use crate::support::hook as hook_common;

use std::path::Path;

use hook_common::{Run, Sandbox, payload};
use serde_json::{Value, json};

const TOKEN: &str = "ghp_Zq9xW2vB7nM4kL1pR8tY3uI6oA5sD0fG2hJ4";
const PASSWORD: &str = "password=hunter2";

/// Both secrets, as a field would carry them.
fn secret(field: &str) -> String {
    format!("{field}: {PASSWORD} {TOKEN} end")
}

fn leaks(text: &str) -> bool {
    text.contains("hunter2") || text.contains(&TOKEN[4..])
}

/// Every file under `dir`, with its text.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            out.push((p.display().to_string(), text));
        }
    }
    out
}

/// A payload with a secret in every field it has, known or not.
fn laden(event: &str, session: &str) -> String {
    let mut v = json!({
        "session_id": session,
        "hook_event_name": event,
        "cwd": format!("/home/dev/{}", secret("cwd")),
        "transcript_path": format!("/home/dev/{}.jsonl", secret("transcript")),
        "permission_mode": secret("mode"),
        "agent_id": secret("agent"),
        "agent_type": secret("agent_type"),
        "tool_name": format!("mcp__x__{}", secret("tool").replace(' ', "_")),
        "tool_use_id": secret("id"),
        "tool_input": { "command": secret("command"), "api_key": "plain", TOKEN: 1 },
        "tool_response": { "stdout": secret("stdout"), "nested": [secret("deep")] },
        "prompt": secret("prompt"),
        "source": secret("source"),
        "reason": secret("reason"),
        "error": secret("error"),
        "message": secret("message"),
        "title": secret("title"),
        "trigger": secret("trigger"),
        "notification_type": secret("notification"),
        "custom_instructions": secret("custom"),
        "last_assistant_message": secret("last"),
        "a_field_of_a_newer_version": { "x": [secret("newer")] },
        "duration_ms": 5,
    });
    if event.starts_with("Stop") {
        v["stop_hook_active"] = json!(false);
    }
    format!("{v}\n")
}

const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionDenied",
    "PermissionRequest",
    "Notification",
    "PreCompact",
    "StopFailure",
    "SubagentStop",
    "Stop",
    "SessionEnd",
    "SomeFutureEvent",
];

fn assert_clean(s: &Sandbox, r: &Run, what: &str) {
    assert!(!leaks(&r.stdout), "{what}: stdout {}", r.stdout);
    assert!(!leaks(&r.stderr), "{what}: stderr {}", r.stderr);
    for (path, text) in files(&s.home()) {
        assert!(!leaks(&text), "{what}: {path} holds a secret:\n{text}");
    }
}

#[test]
fn no_secret_of_any_field_reaches_a_file_or_an_answer() {
    for mode in ["enforce", "advise"] {
        let s = Sandbox::new();
        s.write_config(&format!(
            "sequences = [\"starlog_initialization\", \"giint_workflow\"]\nenforcement = \"{mode}\"\noff_path = \"deny\"\n"
        ));
        for event in EVENTS {
            let r = s.hook(&[], laden(event, "s-secret"));
            assert_eq!(r.code, 0, "{event}");
            assert_clean(&s, &r, &format!("{mode} {event}"));
        }
        // The records say where secrets were: the field is there, redacted.
        let lines = s.log_lines("s-secret");
        assert_eq!(lines.len(), EVENTS.len(), "{mode}: one record each");
        let denied = &lines[5];
        assert_eq!(denied["hook"], "PermissionDenied");
        assert!(
            denied["event"]["input"]["reason"]
                .as_str()
                .unwrap()
                .starts_with("reason: password=[REDACTED] [REDACTED]"),
            "{denied}"
        );
        // A payload seed cannot use: the failure record holds no secret either.
        let broken = laden("PreToolUse", "s-secret").replace("\"tool_name\"", "\"tool\"");
        let r = s.hook_env(&[], broken, &[("SEED_FAIL", "closed")]);
        assert_eq!(r.json()["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_clean(&s, &r, &format!("{mode} failure"));
    }
}

/// 10 MB in one field of a payload, each field in turn.
fn huge_in(field: &str, event: &str) -> String {
    let mut v: Value = serde_json::from_str(&payload(
        event,
        "s-huge",
        json!({ "tool_name": "Bash", "tool_input": { "command": "ls" }, "tool_use_id": "t" }),
    ))
    .unwrap();
    let big = "x".repeat(10 << 20);
    v[field] = json!(match field {
        "tool_name" => format!("mcp__x__{big}"),
        _ => big,
    });
    v.to_string()
}

#[test]
fn a_huge_value_in_any_field_is_bounded_everywhere() {
    let cases = [
        ("reason", "PermissionDenied"),
        ("source", "SessionStart"),
        ("trigger", "PreCompact"),
        ("notification_type", "Notification"),
        ("error", "PostToolUseFailure"),
        ("tool_name", "PreToolUse"),
        ("tool_use_id", "PreToolUse"),
        ("agent_id", "PreToolUse"),
        ("agent_type", "SubagentStop"),
        ("permission_mode", "UserPromptSubmit"),
        ("cwd", "PreToolUse"),
        ("transcript_path", "PreToolUse"),
        ("hook_event_name", "PreToolUse"),
        ("a_field_of_a_newer_version", "PreToolUse"),
    ];
    for mode in ["enforce", "advise"] {
        for (field, event) in cases {
            let s = Sandbox::new();
            s.write_config(&format!(
                "sequence = \"starlog_initialization\"\nenforcement = \"{mode}\"\noff_path = \"deny\"\n"
            ));
            let r = s.hook(&[], huge_in(field, event));
            let what = format!("{mode} {field}");
            assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{what}");
            // Answers echo names and reasons, bounded: a few KiB at most.
            assert!(
                r.stdout.len() < 16 << 10,
                "{what}: {} bytes",
                r.stdout.len()
            );
            for (path, text) in files(&s.home()) {
                assert!(
                    text.len() < 64 << 10,
                    "{what}: {path} is {} bytes",
                    text.len()
                );
            }
            // The record says which field was cut and how big it was.
            let rec = &s.log_lines("s-huge")[0];
            let cuts = rec["extra"]["truncated"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let kept = cuts.iter().find(|c| c["field"] == field);
            let big = if field == "tool_name" { 8 } else { 0 } + (10 << 20);
            let gone = field == "a_field_of_a_newer_version";
            assert_eq!(
                kept.map(|c| c["size"].clone()),
                (!gone).then(|| json!(big)),
                "{what}: {rec}"
            );
        }
    }
}

/// A session id longer than any real one names nothing: refused, like a missing one, and
/// recorded without it.
#[test]
fn a_huge_session_id_is_refused() {
    let s = Sandbox::new();
    let id = "s".repeat(10 << 20);
    let p = json!({ "session_id": id, "hook_event_name": "PreToolUse", "tool_name": "Bash" });
    let p = p.to_string();
    let r = s.hook_env(&[], p, &[("SEED_FAIL", "closed")]);
    assert_eq!(r.json()["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(
        r.stderr.contains("`session_id` is longer than 4096 bytes"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.len() < 4096);
    for (path, text) in files(&s.home()) {
        assert!(text.len() < 4096, "{path} is {} bytes", text.len());
    }
}

/// Secrets that hide in the call itself: a token glued to an MCP tool's name, a password given
/// as a command's flag, docker's `auth`. None reaches a file or the answer; a port given with
/// the same flag to another command is kept.
#[test]
fn secrets_in_the_way_a_tool_is_called_are_redacted() {
    let s = Sandbox::new();
    let token = "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz0123";
    let calls = [
        json!({ "tool_name": format!("mcp__x__{token}"), "tool_input": {} }),
        json!({ "tool_name": "Bash", "tool_input": {
            "command": "mysql -u root -pHunter2zz app; sshpass -p Hunter3zz ssh -p 2222 db" } }),
        json!({ "tool_name": "Write", "tool_input": { "file_path": "/home/dev/.docker/config.json",
            "content": "{\"auths\":{\"r\":{\"auth\":\"Ym9iOkh1bnRlcjR6eg==\"}}}" } }),
    ];
    for call in &calls {
        let r = s.hook(
            &["--sequence", "starlog_initialization"],
            payload("PreToolUse", "s-calls", call.clone()),
        );
        for secret in [&token[11..], "Hunter2zz", "Hunter3zz", "Ym9iOkh1bnRlcjR6eg"] {
            assert!(
                !r.stdout.contains(secret),
                "{secret} answered: {}",
                r.stdout
            );
        }
    }
    let log = std::fs::read_to_string(s.session_dir("s-calls").join("log.jsonl")).unwrap();
    for (path, text) in files(&s.home()) {
        for secret in [&token[11..], "Hunter2zz", "Hunter3zz", "Ym9iOkh1bnRlcjR6eg"] {
            assert!(!text.contains(secret), "{secret} in {path}");
        }
    }
    assert!(log.contains("mcp__x__[REDACTED]"), "{log}");
    assert!(log.contains("ssh -p 2222 db"), "the port is kept: {log}");
}
