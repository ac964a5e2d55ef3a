//! A call refused before it ran, as Claude Code writes it into a transcript. A PreToolUse
//! hook's refusal is a `tool_result` with `is_error` whose text is `PreToolUse:<Tool> hook
//! error: <reason>` (the reason alone in some versions for Write and Edit), on a line that
//! carries `"permissionDecision": {"decision": "reject", "source": "hook", …}` in 2.1.x: a
//! recorded `deny`. A call put to the user who declined it (a hook's `ask`, or Claude Code's own
//! prompt) is marked on its line (`"toolDenialKind": "user-rejected"`, `"toolDenialBeforeRun":
//! true`, or a `reject` from the `user`): a recorded `ask`. Neither ran, so neither is a failure.

use serde_json::Value;

use super::super::line::{self, flag, str_at};
use crate::engine::ir::Enforcement;
use crate::engine::{Decision, Verdict, VerdictKind};

/// Longest refusal reason kept: the hook's own answers carry at most 4 KiB of text.
const REASON_LIMIT: usize = 4096;

/// The verdict recorded for a call that never ran, when `block` (the result of a call to
/// `tool`) says so. `line` is the result's line, when it holds this result alone (its marks
/// belong to the line).
pub(super) fn refused(block: &Value, line: Option<&Value>, tool: &str) -> Option<Verdict> {
    if !flag(block, "is_error") {
        return None;
    }
    let text = line::content_text(block.get("content")).unwrap_or_default();
    let prefix = format!("PreToolUse:{tool} hook error: ");
    let decision = line.and_then(|l| l.get("permissionDecision"));
    let rejected_by = |source: &str| {
        decision.is_some_and(|d| {
            str_at(d, "decision") == Some("reject") && str_at(d, "source") == Some(source)
        })
    };
    if let Some(reason) = text.strip_prefix(prefix.as_str()) {
        return Some(verdict(Decision::Deny, reason));
    }
    if rejected_by("hook") {
        return Some(verdict(Decision::Deny, &text));
    }
    let declined = line.is_some_and(|l| {
        str_at(l, "toolDenialKind") == Some("user-rejected") || flag(l, "toolDenialBeforeRun")
    });
    (declined || rejected_by("user")).then(|| verdict(Decision::Ask, &text))
}

/// The answer as far as the transcript tells: denied (a hook), or asked and declined (the user).
fn verdict(decision: Decision, reason: &str) -> Verdict {
    Verdict {
        kind: VerdictKind::Deny,
        decision,
        mode: Enforcement::Enforce,
        reason: line::bounded(reason.trim(), REASON_LIMIT),
        warning: None,
        denied_by: None,
        next: None,
        repeat: 0,
        escalated: false,
        rule: None,
    }
}
