//! A sequence that names a tool the session does not have: Claude Code answers "No such tool
//! available" without any hook, so seed never hears of it; `seed doctor` must say so before.

use serde_json::json;

use crate::harness::{Scenario, Turn};

/// Check the project with starlog first.
const STARLOG_FIRST: &str = r#"{
  "name": "starlog_first",
  "description": "Check the project with starlog, then work.",
  "enforcement": "enforce",
  "off_path": "deny",
  "start": ["starlog.check"],
  "tool_transitions": {
    "starlog.check": { "next_allowed": ["Bash"] }
  }
}"#;

#[test]
fn doctor_names_the_server_a_sequence_needs_that_claude_code_does_not_have() {
    let Some(s) = Scenario::new() else { return };
    let run = s
        .file(".seed/sequences/starlog_first.json", STARLOG_FIRST)
        .sequence("starlog_first")
        .prompt("Check the project.")
        .model([
            Turn::tool("mcp__starlog__check", json!({})),
            Turn::text("There is no starlog here."),
        ])
        .run();

    // The dead end, as the live CLI shows it: an error without any hook event.
    let missing = run.result(0);
    assert!(
        missing.is_error && missing.text.contains("No such tool available"),
        "{missing:?}"
    );
    assert!(run.records_of("PreToolUse").is_empty());

    // What seed can do: say so before the session.
    let (_, out, err) = run.seed(&["doctor"]);
    let said = format!("{out}{err}");
    let names_server = said
        .lines()
        .any(|l| l.replace("starlog_first", "").contains("starlog"));
    assert!(
        names_server,
        "doctor does not name the missing server:\n{said}"
    );
}
