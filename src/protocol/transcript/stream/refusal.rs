//! A call a PreToolUse hook refused, as Claude Code writes it: a `tool_result` with `is_error`
//! whose text is `PreToolUse:<Tool> hook error: <reason>` (the reason alone in some versions
//! for Write and Edit), on a line that carries `"permissionDecision": {"decision": "reject",
//! "source": "hook", …}` in 2.1.x. Such a call never ran: it is a recorded `deny`, not a failure.

use serde_json::Value;

use super::super::line::{self, flag, str_at};
use crate::engine::ir::Enforcement;
use crate::engine::{Decision, Verdict, VerdictKind};

/// Longest refusal reason kept: the hook's own answers carry at most 4 KiB of text.
const REASON_LIMIT: usize = 4096;

/// The refusal's reason when `block` (the result of a call to `tool`) is a hook's refusal.
/// `decision` is the line's `permissionDecision`, when the line holds this result alone.
pub(super) fn hook_refusal(block: &Value, decision: Option<&Value>, tool: &str) -> Option<String> {
    if !flag(block, "is_error") {
        return None;
    }
    let text = line::content_text(block.get("content")).unwrap_or_default();
    let prefix = format!("PreToolUse:{tool} hook error: ");
    let by_text = text.strip_prefix(prefix.as_str());
    let by_line = decision.is_some_and(|d| {
        str_at(d, "decision") == Some("reject") && str_at(d, "source") == Some("hook")
    });
    if by_text.is_none() && !by_line {
        return None;
    }
    let reason = by_text.unwrap_or(&text).trim();
    Some(line::bounded(reason, REASON_LIMIT))
}

/// The verdict the hook gave, as far as the transcript tells: the call was denied, for `reason`.
pub(super) fn denied(reason: String) -> Verdict {
    Verdict {
        kind: VerdictKind::Deny,
        decision: Decision::Deny,
        mode: Enforcement::Enforce,
        reason,
        warning: None,
        denied_by: None,
        next: None,
        repeat: 0,
        escalated: false,
    }
}
