//! Facts are quoted to the model (a refusal says what the deep state is now): only as scalars,
//! on one line, at most 80 characters, and with secrets redacted. A reader of a whole file
//! that holds credentials (Docker's `config.json`) never puts them in a reason or the record.

use crate::support::hook as hook_common;

use std::fs;

use hook_common::{Sandbox, payload};
use serde_json::json;

const DOCKER_AUTH: &str = "ZGV2OnMzY3JldC1wYXNzd29yZA==";
const TOKEN: &str = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";

/// A sandbox whose sequence refuses Bash while reader `r` (`spec`) says `when` holds, and
/// whose refusal quotes `{r}`.
fn sandbox(spec: &str, when: &str) -> Sandbox {
    let s = Sandbox::new();
    let seqs = s.project().join(".seed/sequences");
    fs::create_dir_all(&seqs).unwrap();
    let text = json!({
        "name": "quote",
        "tool_transitions": {"a.x": {"next_allowed": ["b.y"]}},
        "neutral_tools": ["Bash"],
        "state_readers": {"r": spec},
        "state_constraints": {"held": {
            "when": serde_json::from_str::<serde_json::Value>(when).unwrap(),
            "disallowed_tools": ["Bash"]
        }}
    });
    fs::write(seqs.join("quote.json"), text.to_string()).unwrap();
    s.write_config("sequence = \"quote\"\nenforcement = \"enforce\"\n");
    s
}

/// The reason the hook gives for refusing Bash, and the facts it recorded.
fn refuse_bash(s: &Sandbox) -> (String, serde_json::Value) {
    let run = s.hook(
        &["PreToolUse"],
        payload(
            "PreToolUse",
            "quote",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
        ),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = run.json();
    let reason = out["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_else(|| panic!("denied: {out}"))
        .to_string();
    let record = s.log_lines("quote").pop().expect("a record");
    (reason, record["facts"].clone())
}

#[test]
fn a_whole_credentials_file_is_named_not_quoted() {
    let s = sandbox(
        "json:${HOME}/.docker/config.json#",
        r#"{"reader": "r", "op": "contains", "value": "auths"}"#,
    );
    let docker = s.dir.path().join(".docker");
    fs::create_dir_all(&docker).unwrap();
    fs::write(
        docker.join("config.json"),
        json!({"auths": {"https://index.docker.io/v1/": {"auth": DOCKER_AUTH}}}).to_string(),
    )
    .unwrap();
    let (reason, facts) = refuse_bash(&s);
    assert!(
        reason.contains("(now r is an object (not shown))"),
        "{reason}"
    );
    assert!(
        !reason.contains(DOCKER_AUTH) && !reason.contains("{\"auths\""),
        "{reason}"
    );
    // The record keeps the document, with the credential redacted.
    assert_eq!(
        facts["r"]["auths"]["https://index.docker.io/v1/"]["auth"],
        "[REDACTED]"
    );
    assert!(!facts.to_string().contains(DOCKER_AUTH), "{facts}");
}

#[test]
fn a_quoted_scalar_is_redacted_one_line_and_short() {
    let cases = [
        // A token-shaped value: redacted before it reaches the engine.
        (format!("token {TOKEN}"), "token [REDACTED]".to_string()),
        // A long one: cut to 80 characters.
        ("x".repeat(500), format!("{}…", "x".repeat(79))),
        // Line breaks and escape sequences (whole, not just their ESC) do not reach the reason.
        ("one\ntwo\u{1b}[31m".to_string(), "one two".to_string()),
    ];
    for (value, shown) in cases {
        let s = sandbox(
            "json:${HOME}/state.json#/status",
            r#"{"reader": "r", "op": "!=", "value": "idle"}"#,
        );
        fs::write(
            s.dir.path().join("state.json"),
            json!({"status": value}).to_string(),
        )
        .unwrap();
        let (reason, _) = refuse_bash(&s);
        assert!(
            reason.contains(&format!("(now r is {shown})")),
            "{value:?}: {reason}"
        );
        assert!(!reason.contains(TOKEN), "{reason}");
    }
}
