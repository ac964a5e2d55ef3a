//! A call a PreToolUse hook refused never ran: Claude Code writes it as an `is_error` result
//! (`PreToolUse:<Tool> hook error: <reason>`, or the reason alone for Write and Edit) on a line
//! carrying `"permissionDecision": {"decision": "reject", "source": "hook"}`. Replay reads it as
//! the hook's `deny`, with no failure event; a call that ran and failed stays a failure.

use std::path::Path;
use std::process::{Command, Output};

use seed::engine::{Decision, VerdictKind};
use seed::protocol::transcript::parse_transcript_str;
use serde_json::{Value, json};

use crate::{fixture, read, timeline};

const BASH_REASON: &str = "seed [note_first]: Bash comes later in \"note_first\" (after 1 more call; now at step \"Plan\"). First call Write; after that, Bash is allowed.";
const EDIT_REASON: &str =
    "seed [note_first]: Edit is not part of \"note_first\" at step \"Plan\". Next: call Write.";

/// The recorded decision and reason of each gate, in order.
fn gates(t: &seed::protocol::transcript::Transcript) -> Vec<(String, Option<(Decision, String)>)> {
    t.records
        .iter()
        .filter(|r| r.hook == "PreToolUse")
        .map(|r| {
            let tool = r.event.as_ref().map(|e| e.key()).unwrap_or_default();
            (
                tool,
                r.verdict.as_ref().map(|v| (v.decision, v.reason.clone())),
            )
        })
        .collect()
}

#[test]
fn a_refused_call_is_the_hooks_deny_and_a_failed_run_stays_a_failure() {
    let t = read("hook-refusals.jsonl");
    assert_eq!(
        timeline(&t),
        [
            "SessionStart",
            "UserPromptSubmit prompt:write the note, then run the tests",
            "PreToolUse tool:Bash",
            "PreToolUse tool:Edit",
            "PreToolUse tool:Write",
            "PostToolUse tool:Write",
            "PreToolUse tool:Bash",
            "PostToolUseFailure error.tool:Bash",
            "Stop",
            "SessionEnd",
        ]
    );
    assert_eq!(
        gates(&t),
        [
            (
                "tool:Bash".to_string(),
                Some((Decision::Deny, BASH_REASON.to_string()))
            ),
            (
                "tool:Edit".to_string(),
                Some((Decision::Deny, EDIT_REASON.to_string()))
            ),
            ("tool:Write".to_string(), None),
            ("tool:Bash".to_string(), None),
        ]
    );
    let refused = t.records.iter().find_map(|r| r.verdict.as_ref()).unwrap();
    assert_eq!(refused.kind, VerdictKind::Deny);
    assert_eq!(t.tool_use_ids, 4, "a refused call is still a call");
}

/// One call and its result, as 2.1.x writes them; `extra` is merged into the result's line.
fn call_and_result(tool: &str, content: Value, is_error: bool, extra: Value) -> String {
    let call = json!({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "toolu_r", "name": tool, "input": {"command": "ls"}}
    ], "stop_reason": "tool_use"}});
    let mut result = json!({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "toolu_r", "content": content, "is_error": is_error}
    ]}});
    if let (Some(r), Value::Object(e)) = (result.as_object_mut(), extra) {
        r.extend(e);
    }
    format!("{call}\n{result}\n")
}

/// The recorded decision and reason of the one call, when it was refused before it ran.
fn recorded(text: &str) -> Option<(Decision, String)> {
    let t = parse_transcript_str(text);
    let gate = t.records.iter().find(|r| r.hook == "PreToolUse")?;
    let failed = t.records.iter().any(|r| r.hook == "PostToolUseFailure");
    let v = gate.verdict.as_ref()?;
    assert!(!failed, "a refusal is no failure: {:?}", timeline(&t));
    Some((v.decision, v.reason.clone()))
}

fn refusal_of(text: &str) -> Option<String> {
    recorded(text).map(|(decision, reason)| {
        assert_eq!(decision, Decision::Deny);
        reason
    })
}

#[test]
fn a_call_the_user_declined_when_asked_never_ran_and_is_the_recorded_ask() {
    // 2.1.328, interactive: a hook answered `ask` (or Claude Code asked on its own) and the
    // user said no.
    let declined = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
    for marks in [
        json!({"toolUseResult": "User rejected tool use", "toolDenialKind": "user-rejected", "toolDenialBeforeRun": true}),
        json!({"toolDenialBeforeRun": true}),
        json!({"permissionDecision": {"decision": "reject", "source": "user"}}),
    ] {
        let text = call_and_result("ExitPlanMode", json!(declined), true, marks.clone());
        assert_eq!(
            recorded(&text),
            Some((Decision::Ask, declined.to_string())),
            "{marks}"
        );
    }
}

#[test]
fn either_the_text_or_the_lines_decision_tells_a_refusal() {
    let hook = json!({"permissionDecision": {"decision": "reject", "source": "hook", "reasonCode": "hook:PreToolUse"}});
    // The text alone (no decision on the line, as older versions write it).
    let text = call_and_result(
        "Bash",
        json!("PreToolUse:Bash hook error: seed: no."),
        true,
        json!({}),
    );
    assert_eq!(refusal_of(&text).as_deref(), Some("seed: no."));
    // The decision alone (Write and Edit: the reason without the prefix).
    let text = call_and_result("Write", json!("seed: not yet."), true, hook.clone());
    assert_eq!(refusal_of(&text).as_deref(), Some("seed: not yet."));
    // Both, with the content as text blocks.
    let text = call_and_result(
        "Bash",
        json!([{"type": "text", "text": "PreToolUse:Bash hook error: seed: no."}]),
        true,
        hook,
    );
    assert_eq!(refusal_of(&text).as_deref(), Some("seed: no."));
}

#[test]
fn calls_that_ran_stay_results_whatever_their_text_says() {
    for text in [
        // Ran and failed: no hook decision on the line.
        call_and_result("Bash", json!("Exit code 1"), true, json!({})),
        call_and_result(
            "Bash",
            json!("Exit code 1"),
            true,
            json!({"permissionDecision": {"decision": "accept", "source": "config"}}),
        ),
        // The user's words without the line's marks (an older file): nothing tells it apart.
        call_and_result(
            "Bash",
            json!("The user doesn't want to proceed with this tool use."),
            true,
            json!({}),
        ),
        // A successful result that merely quotes the text.
        call_and_result(
            "Bash",
            json!("PreToolUse:Bash hook error: seed: no."),
            false,
            json!({}),
        ),
        // Another tool's prefix, and a decision of the wrong type.
        call_and_result(
            "Bash",
            json!("PreToolUse:Write hook error: x"),
            true,
            json!({"permissionDecision": "reject"}),
        ),
    ] {
        assert_eq!(refusal_of(&text), None, "{text}");
        let t = parse_transcript_str(&text);
        assert_eq!(
            t.records
                .iter()
                .filter(|r| r.hook.starts_with("PostToolUse"))
                .count(),
            1,
            "{text}"
        );
    }
}

#[test]
fn a_huge_or_hostile_reason_is_kept_bounded_and_empty_is_empty() {
    let huge = format!("PreToolUse:Bash hook error: {}", "é".repeat(100_000));
    let reason = refusal_of(&call_and_result("Bash", json!(huge), true, json!({}))).unwrap();
    assert_eq!(reason.chars().count(), 4096);
    let reason = refusal_of(&call_and_result(
        "Bash",
        json!("PreToolUse:Bash hook error: "),
        true,
        json!({}),
    ));
    assert_eq!(reason.as_deref(), Some(""));
    let reason = refusal_of(&call_and_result(
        "Bash",
        json!("PreToolUse:Bash hook error: \u{1b}]0;pwned\u{7}no"),
        true,
        json!({}),
    ));
    assert_eq!(
        reason.as_deref(),
        Some("\u{1b}]0;pwned\u{7}no"),
        "kept exact in the record (JSON); terminals get it cleaned"
    );
}

/// Plan → Noted (Write) → Tested (Bash, or Bash that failed) → done; a Bash failure at Plan
/// would break it. The live session ended done: the replay must too.
const DIAGRAM: &str = "stateDiagram-v2\n  [*] --> Plan\n  Plan --> Broken : error.tool:Bash\n  Plan --> Noted : Write\n  Noted --> Tested : Bash\n  Noted --> Tested : error.tool:Bash\n  Tested --> [*]\n  Broken --> [*]\n";
const MANIFEST: &str = "name = \"note_first\"\ndiagram = \"note_first.mmd\"\nenforcement = \"enforce\"\noff_path = \"deny\"\n";

fn replay(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_seed"))
        .arg("replay")
        .args(args)
        .current_dir(dir)
        .env("SEED_HOME", dir.join("state"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("SEED_SEQUENCE")
        .output()
        .expect("seed runs")
}

fn summary(dir: &Path, extra: &[&str]) -> Value {
    let source = fixture("hook-refusals.jsonl");
    let mut args = vec![source.to_str().unwrap(), "--json"];
    args.extend(extra);
    let out = replay(dir, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn replayed_through_the_sequence_the_refusals_are_the_recorded_denials() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("note_first.mmd"), DIAGRAM).unwrap();
    let manifest = dir.path().join("note_first.toml");
    std::fs::write(&manifest, MANIFEST).unwrap();
    let s = summary(dir.path(), &["--sequence", manifest.to_str().unwrap()]);

    assert_eq!(s["differing"], json!([]), "{s:#}");
    let denied: Vec<(&str, &str, &str)> = s["denied"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let f = |k: &str| d[k].as_str().unwrap_or_default();
            (f("tool"), f("recorded"), f("replayed"))
        })
        .collect();
    assert_eq!(
        denied,
        [("Bash", "deny", "deny"), ("Edit", "deny", "deny")],
        "{s:#}"
    );
    assert_eq!(
        s["events_by_kind"]["error.tool"], 1,
        "only the run that failed"
    );
    assert_eq!(s["final"]["done"], true, "{s:#}");
    assert_eq!(s["final"]["node"], "done", "never Broken: {s:#}");
}

#[test]
fn without_a_sequence_the_summary_reports_the_recorded_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let s = summary(dir.path(), &[]);
    assert_eq!(s["final"], Value::Null, "no sequence replays it");
    let refused: Vec<(&str, &str, &str)> = s["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let f = |k: &str| d[k].as_str().unwrap_or_default();
            (f("tool"), f("decision"), f("reason"))
        })
        .collect();
    assert_eq!(
        refused,
        [("Bash", "deny", BASH_REASON), ("Edit", "deny", EDIT_REASON)]
    );
    assert_eq!(s["events_by_kind"]["error.tool"], 1);

    let source = fixture("hook-refusals.jsonl");
    let out = replay(dir.path(), &[source.to_str().unwrap(), "--summary"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "refused:    2 calls (as recorded: denied, or asked and declined; none ran)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(&format!("Edit{}{EDIT_REASON}\n", " ".repeat(29))),
        "{text}"
    );
}
