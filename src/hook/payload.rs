//! A payload as the hook uses it: read in one pass (`HookInput::parse`) that redacts and
//! bounds every string of every field seed keeps, known or not, keys included
//! (`protocol::bounded`), and skips what it does not keep unread. The event the engine steps,
//! the record, `session.json`, `state.log` and the answers are all made of it, so none of
//! them holds what the pass took out, and a fold of the log steps exactly what the hook
//! stepped. Fields seed keeps nowhere are dropped.

use serde_json::{Value, json};

use crate::protocol::HookInput;
use crate::store::redact::Cut;

/// A payload after the pass, and what the pass cut (for the record's `extra.truncated`).
pub struct Scrubbed {
    pub input: HookInput,
    pub cuts: Vec<Cut>,
}

/// The parsed payload with its cuts apart.
pub fn scrub(mut h: HookInput) -> Scrubbed {
    let cuts = std::mem::take(&mut h.cuts);
    Scrubbed { input: h, cuts }
}

/// Cuts as the record lists them in `extra.truncated`.
pub fn entries(cuts: &[Cut]) -> Vec<Value> {
    cuts.iter()
        .map(|c| json!({ "field": c.path, "size": c.size, "kept": c.kept }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::redact::MAX_FIELD;

    fn parse(v: Value) -> HookInput {
        HookInput::parse(v.to_string().into_bytes(), None).unwrap()
    }

    /// Every field: a secret in it is redacted, a huge value is cut and listed, fields no
    /// record keeps are dropped.
    #[test]
    fn every_kept_field_is_scrubbed_and_the_rest_dropped() {
        let secret = "ghp_0123456789abcdefghijABCDEFGHIJ0123";
        let huge = "h".repeat(MAX_FIELD + 1);
        let mut h = parse(json!({
            "session_id": "s", "hook_event_name": "PermissionDenied",
            "cwd": format!("/p/{secret}"), "transcript_path": huge,
            "tool_name": format!("mcp__x__{huge}"), "tool_input": { "k": secret },
            "reason": format!("password=hunter2 {secret}"), "error": huge,
            "message": secret, "custom": { "deep": secret },
        }));
        let cuts = std::mem::take(&mut h.cuts);
        // The directory as sent is kept apart, only to find the project's configuration.
        assert_eq!(h.raw_cwd.take().as_deref(), Some(&*format!("/p/{secret}")));
        let kept = format!("{h:?}");
        assert!(
            !kept.contains("0123456789") && !kept.contains("hunter2"),
            "{kept}"
        );
        assert!(!kept.contains(&huge));
        let fields: Vec<&str> = cuts.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(fields, ["transcript_path", "tool_name", "error"]);
        assert_eq!(cuts[1].size, MAX_FIELD + 1 + 8);
        assert!(h.rest.contains_key("reason"));
        assert!(!h.rest.contains_key("message") && !h.rest.contains_key("custom"));
    }
}
