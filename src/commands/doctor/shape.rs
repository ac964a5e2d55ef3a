//! Whether a hook's reply has the shape Claude Code accepts for its event: exit 0, nothing
//! or one JSON object; only the universal fields at the top; `decision` only where an event
//! takes one (and `block` with its `reason`); `hookSpecificOutput` only for an event that has
//! one, naming that event and holding only its fields, with the right types.

use serde_json::{Map, Value};

/// Top-level fields every event accepts.
const UNIVERSAL: &[&str] = &[
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "decision",
    "reason",
    "terminalSequence",
    "hookSpecificOutput",
];

/// Events a top-level `decision` means something for.
const TAKE_DECISION: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
];

/// Events Claude Code knows but accepts no `hookSpecificOutput` for.
const NO_SPECIFIC: &[&str] = &[
    "SessionEnd",
    "StopFailure",
    "PreCompact",
    "PostCompact",
    "ConfigChange",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "InstructionsLoaded",
    "WorktreeRemove",
    "DirectoryAdded",
];

/// The `hookSpecificOutput` fields an event accepts (besides `hookEventName`); `None`: an
/// event this table does not know, whose fields are not checked.
fn specific_fields(event: &str) -> Option<&'static [&'static str]> {
    Some(match event {
        "PreToolUse" => &[
            "permissionDecision",
            "permissionDecisionReason",
            "updatedInput",
            "additionalContext",
        ],
        "PermissionRequest" => &["decision"],
        "PermissionDenied" => &["retry"],
        "PostToolUse" => &[
            "additionalContext",
            "updatedToolOutput",
            "updatedMCPToolOutput",
            "classifierContext",
        ],
        "PostToolUseFailure" | "PostToolBatch" | "Notification" | "Setup" | "SubagentStart"
        | "PostModelSwitch" | "Stop" | "SubagentStop" => &["additionalContext"],
        "UserPromptSubmit" => &[
            "additionalContext",
            "sessionTitle",
            "suppressOriginalPrompt",
        ],
        "UserPromptExpansion" => &["additionalContext", "suppressOriginalPrompt"],
        "SessionStart" => &[
            "additionalContext",
            "initialUserMessage",
            "sessionTitle",
            "watchPaths",
            "reloadSkills",
        ],
        "PreModelSwitch" => &["permissionDecision", "permissionDecisionReason"],
        "Elicitation" | "ElicitationResult" => &["action", "content"],
        "CwdChanged" | "FileChanged" => &["watchPaths"],
        "WorktreeCreate" => &["worktreePath"],
        "MessageDisplay" => &["displayContent"],
        e if NO_SPECIFIC.contains(&e) => &[],
        _ => return None,
    })
}

/// Fields that must be strings, or booleans, wherever they appear.
const STRINGS: &[&str] = &[
    "stopReason",
    "systemMessage",
    "reason",
    "terminalSequence",
    "permissionDecisionReason",
    "additionalContext",
    "sessionTitle",
];
const BOOLS: &[&str] = &["continue", "suppressOutput", "suppressOriginalPrompt"];

fn check_types(obj: &Map<String, Value>, at: &str, problems: &mut Vec<String>) {
    for (k, v) in obj {
        let want = if STRINGS.contains(&k.as_str()) && !v.is_string() {
            "a string"
        } else if BOOLS.contains(&k.as_str()) && !v.is_boolean() {
            "true or false"
        } else {
            continue;
        };
        problems.push(format!("{at}{k} is {v}, not {want}"));
    }
}

/// Problems with a reply to `event`, per the protocol (empty: valid).
pub fn check_reply(event: &str, exit: Option<i32>, stdout: &str) -> Vec<String> {
    let mut problems = Vec::new();
    match exit {
        Some(0) => {}
        Some(code) => problems.push(format!("exit code {code}, expected 0")),
        // No code: a signal ended it (or it never ran: its stderr says why).
        None => problems.push("killed by a signal (no exit code), expected exit code 0".into()),
    }
    let out = stdout.trim();
    if out.is_empty() {
        return problems;
    }
    let Ok(v) = serde_json::from_str::<Value>(out) else {
        problems.push("stdout is not one JSON object".into());
        return problems;
    };
    let Some(top) = v.as_object() else {
        problems.push("stdout JSON is not an object".into());
        return problems;
    };
    for k in top.keys().filter(|k| !UNIVERSAL.contains(&k.as_str())) {
        problems.push(format!("unknown top-level field `{k}`"));
    }
    check_types(top, "", &mut problems);
    if let Some(d) = top.get("decision") {
        if !matches!(d.as_str(), Some("block" | "approve")) {
            problems.push(format!("decision {d} is not block/approve"));
        } else if !TAKE_DECISION.contains(&event) {
            problems.push(format!("{event} takes no decision"));
        } else if d == "block"
            && top
                .get("reason")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
        {
            problems.push("decision \"block\" without a reason".into());
        }
    }
    if let Some(spec) = top.get("hookSpecificOutput") {
        check_specific(event, spec, &mut problems);
    }
    problems
}

fn check_specific(event: &str, spec: &Value, problems: &mut Vec<String>) {
    let Some(spec) = spec.as_object() else {
        problems.push("hookSpecificOutput is not an object".into());
        return;
    };
    if spec.get("hookEventName").and_then(Value::as_str) != Some(event) {
        problems.push(format!(
            "hookSpecificOutput.hookEventName is not \"{event}\""
        ));
    }
    check_types(spec, "hookSpecificOutput.", problems);
    let Some(fields) = specific_fields(event) else {
        return;
    };
    if fields.is_empty() {
        problems.push(format!("{event} takes no hookSpecificOutput"));
        return;
    }
    for k in spec.keys() {
        if k != "hookEventName" && !fields.contains(&k.as_str()) {
            problems.push(format!("hookSpecificOutput.{k} is not a field of {event}"));
        }
    }
    if let Some(d) = spec.get("permissionDecision") {
        if !matches!(d.as_str(), Some("allow" | "deny" | "ask" | "defer")) {
            problems.push(format!(
                "permissionDecision {d} is not allow/deny/ask/defer"
            ));
        } else if matches!(d.as_str(), Some("deny" | "ask"))
            && spec
                .get("permissionDecisionReason")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
        {
            problems.push(format!("permissionDecision {d} without a reason"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(event: &str, out: &str) -> Vec<String> {
        check_reply(event, Some(0), out)
    }

    #[test]
    fn valid_replies_of_each_kind_pass() {
        for (event, out) in [
            ("PreToolUse", ""),
            (
                "PreToolUse",
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#,
            ),
            (
                "PreToolUse",
                r#"{"systemMessage":"w","hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"w"}}"#,
            ),
            ("Stop", r#"{"decision":"block","reason":"keep going"}"#),
            (
                "SessionStart",
                r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"[SEED SEQUENCE] x"}}"#,
            ),
            (
                "UserPromptSubmit",
                r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"x"}}"#,
            ),
            ("SessionEnd", ""),
            (
                "SomeFutureEvent",
                r#"{"hookSpecificOutput":{"hookEventName":"SomeFutureEvent","newField":1}}"#,
            ),
        ] {
            assert_eq!(problems(event, out), Vec::<String>::new(), "{event}: {out}");
        }
    }

    #[test]
    fn replies_of_the_wrong_shape_for_their_event_are_named() {
        for (event, out, want) in [
            (
                "Stop",
                r#"{"decision":"block"}"#,
                "decision \"block\" without a reason",
            ),
            (
                "SessionStart",
                r#"{"decision":"block","reason":"x"}"#,
                "SessionStart takes no decision",
            ),
            (
                "Stop",
                r#"{"decision":"deny","reason":"x"}"#,
                "decision \"deny\" is not block/approve",
            ),
            (
                "PreCompact",
                r#"{"hookSpecificOutput":{"hookEventName":"PreCompact"}}"#,
                "PreCompact takes no hookSpecificOutput",
            ),
            (
                "PostToolUse",
                r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"allow"}}"#,
                "hookSpecificOutput.permissionDecision is not a field of PostToolUse",
            ),
            (
                "PreToolUse",
                r#"{"hookSpecificOutput":{"hookEventName":"Stop"}}"#,
                "hookSpecificOutput.hookEventName is not \"PreToolUse\"",
            ),
            (
                "PreToolUse",
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}"#,
                "permissionDecision \"maybe\" is not allow/deny/ask/defer",
            ),
            (
                "PreToolUse",
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#,
                "permissionDecision \"deny\" without a reason",
            ),
            (
                "UserPromptSubmit",
                r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":5}}"#,
                "hookSpecificOutput.additionalContext is 5, not a string",
            ),
            (
                "Stop",
                r#"{"continue":"no"}"#,
                "continue is \"no\", not true or false",
            ),
            (
                "Stop",
                r#"{"allow":true}"#,
                "unknown top-level field `allow`",
            ),
            ("Stop", r#"[1]"#, "stdout JSON is not an object"),
            (
                "Stop",
                "{\"a\":1}\n{\"b\":2}",
                "stdout is not one JSON object",
            ),
            ("Stop", "hello", "stdout is not one JSON object"),
        ] {
            assert_eq!(
                problems(event, out),
                vec![want.to_string()],
                "{event}: {out}"
            );
        }
        assert_eq!(
            check_reply("PreToolUse", Some(2), ""),
            vec!["exit code 2, expected 0".to_string()]
        );
        assert_eq!(
            check_reply("Stop", Some(127), ""),
            vec!["exit code 127, expected 0".to_string()]
        );
        assert_eq!(
            check_reply("Stop", None, ""),
            vec!["killed by a signal (no exit code), expected exit code 0".to_string()]
        );
    }
}
