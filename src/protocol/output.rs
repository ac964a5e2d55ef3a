//! Answers, exactly as Claude Code validates them (reference §4): JSON on stdout with exit 0,
//! or nothing at all. seed never answers with exit 2, so it can never mix the two and never
//! blocks by accident; `hookEventName` always equals the event being run.

use serde_json::{Value, json};

use crate::engine::Decision;

/// What the hook prints. `None`: print nothing (no decision). The exit code is always 0.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answer {
    pub json: Option<Value>,
}

impl Answer {
    pub fn none() -> Answer {
        Answer { json: None }
    }

    /// Every answer's text is shown to the user or the model: its control and bidi
    /// characters (quoted from a tool's input, a sequence's file) are shown as escapes.
    fn some(mut v: Value) -> Answer {
        crate::engine::sanitize::visible_json(&mut v);
        Answer { json: Some(v) }
    }

    /// The bytes for stdout: one line of compact JSON, or nothing.
    pub fn stdout(&self) -> String {
        match &self.json {
            Some(v) => format!("{v}\n"),
            None => String::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.json.is_none()
    }
}

/// Events whose `hookSpecificOutput` accepts `additionalContext` (reference §4.4).
pub fn accepts_context(event: &str) -> bool {
    matches!(
        event,
        "PreToolUse"
            | "PostToolUse"
            | "PostToolUseFailure"
            | "PostToolBatch"
            | "Notification"
            | "Setup"
            | "SubagentStart"
            | "PostModelSwitch"
            | "Stop"
            | "SubagentStop"
            | "UserPromptSubmit"
            | "UserPromptExpansion"
            | "SessionStart"
    )
}

/// A PreToolUse answer. A plain allow prints nothing unless `emit_allow` is set: an explicit
/// `allow` would skip the user's own permission prompt, and seed constrains, it never grants.
pub fn pre_tool_use(
    decision: Decision,
    reason: &str,
    warning: Option<&str>,
    emit_allow: bool,
) -> Answer {
    let mut specific = serde_json::Map::new();
    specific.insert("hookEventName".into(), json!("PreToolUse"));
    match decision {
        Decision::Deny | Decision::Block => {
            specific.insert("permissionDecision".into(), json!("deny"));
            specific.insert("permissionDecisionReason".into(), json!(reason));
        }
        Decision::Ask => {
            specific.insert("permissionDecision".into(), json!("ask"));
            specific.insert("permissionDecisionReason".into(), json!(reason));
        }
        Decision::Allow => {
            if emit_allow {
                specific.insert("permissionDecision".into(), json!("allow"));
                if !reason.is_empty() {
                    specific.insert("permissionDecisionReason".into(), json!(reason));
                }
            }
            if let Some(w) = warning {
                specific.insert("additionalContext".into(), json!(w));
                return Answer::some(json!({
                    "systemMessage": w,
                    "hookSpecificOutput": Value::Object(specific),
                }));
            }
            if !emit_allow {
                return Answer::none();
            }
        }
    }
    Answer::some(json!({ "hookSpecificOutput": Value::Object(specific) }))
}

/// Context for the model (`additionalContext`), for events that accept it.
pub fn context(event: &str, text: &str) -> Answer {
    if text.is_empty() || !accepts_context(event) {
        return Answer::none();
    }
    Answer::some(json!({
        "hookSpecificOutput": { "hookEventName": event, "additionalContext": text }
    }))
}

/// A message for the user only (any event takes it).
pub fn system_message(text: &str) -> Answer {
    Answer::some(json!({ "systemMessage": text }))
}

/// Stop / SubagentStop: keep the agent working, with `reason` as its instruction.
pub fn stop_block(reason: &str) -> Answer {
    Answer::some(json!({ "decision": "block", "reason": reason }))
}

/// Fail-closed answer for seed's own error: deny what can be denied (tool calls and
/// permission requests); every other event gets no decision.
pub fn fail_closed(event: &str, reason: &str) -> Answer {
    match event {
        "PreToolUse" => pre_tool_use(Decision::Deny, reason, None, false),
        "PermissionRequest" => Answer::some(json!({
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": { "behavior": "deny", "message": reason }
            }
        })),
        _ => Answer::none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(
            pre_tool_use(Decision::Deny, "no", None, false).stdout(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}}\n"
        );
        assert!(pre_tool_use(Decision::Allow, "", None, false).is_empty());
        let a = pre_tool_use(Decision::Allow, "", Some("careful"), false);
        assert_eq!(a.json.as_ref().unwrap()["systemMessage"], "careful");
        assert!(context("SessionEnd", "x").is_empty());
        assert_eq!(
            stop_block("go on").stdout(),
            "{\"decision\":\"block\",\"reason\":\"go on\"}\n"
        );
        assert!(fail_closed("Stop", "x").is_empty());
    }
}
