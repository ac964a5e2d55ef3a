//! The one pass over a payload before any of it is used: every string of every field seed
//! keeps, known or not, keys included, is redacted and bounded (`store::redact::scrub_*`).
//! The event the engine steps, the record, `session.json`, `state.log` and the answers are all
//! made of the scrubbed payload, so none of them holds what the pass took out, and a fold of
//! the log steps exactly what the hook stepped. Fields seed keeps nowhere are dropped.

use serde_json::{Value, json};

use super::MAX_INPUT_STRING;
use super::answer::EXTRA_KEYS;
use crate::protocol::HookInput;
use crate::protocol::input::LIFECYCLE_KEYS;
use crate::store::redact::{Cut, MAX_FIELD, scrub_str, scrub_value};

/// A payload after the pass, and what the pass cut (for the record's `extra.truncated`).
pub struct Scrubbed {
    pub input: HookInput,
    pub cuts: Vec<Cut>,
}

/// Scrub `h` (see [`scrub_in_place`]).
pub fn scrub(mut h: HookInput) -> Scrubbed {
    let cuts = scrub_in_place(&mut h);
    Scrubbed { input: h, cuts }
}

/// Scrub `h` in place; returns what was cut. The tool input and the prompt are content,
/// bounded at [`MAX_INPUT_STRING`] per string; a tool's result is redacted here and bounded
/// as a whole later (`response_limit`); every other string at [`MAX_FIELD`]. The session id
/// names the session's directory: it is never altered (an over-long one is refused when the
/// payload is read).
pub fn scrub_in_place(h: &mut HookInput) -> Vec<Cut> {
    let mut cuts = Vec::new();
    let c = &mut cuts;
    scrub_value(&mut h.tool_input, MAX_INPUT_STRING, "tool_input", c);
    if let Some(p) = &mut h.prompt {
        scrub_str(p, MAX_INPUT_STRING, "prompt", c);
    }
    if let Some(r) = &mut h.tool_response {
        scrub_value(r, usize::MAX, "tool_response", c);
    }
    scrub_str(&mut h.event, MAX_FIELD, "hook_event_name", c);
    let fields = [
        ("transcript_path", &mut h.transcript_path),
        ("cwd", &mut h.cwd),
        ("permission_mode", &mut h.permission_mode),
        ("agent_id", &mut h.agent_id),
        ("agent_type", &mut h.agent_type),
        ("tool_name", &mut h.tool_name),
        ("tool_use_id", &mut h.tool_use_id),
        ("error", &mut h.error),
        ("source", &mut h.source),
    ];
    for (name, field) in fields {
        if let Some(s) = field {
            scrub_str(s, MAX_FIELD, name, c);
        }
    }
    h.rest.retain(|k, v| {
        let kept = LIFECYCLE_KEYS.contains(&k.as_str()) || EXTRA_KEYS.contains(&k.as_str());
        kept && (v.is_string() || v.is_number() || v.is_boolean())
    });
    for (k, v) in h.rest.iter_mut() {
        if let Value::String(s) = v {
            scrub_str(s, MAX_FIELD, k, c);
        }
    }
    cuts
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
        let cuts = scrub_in_place(&mut h);
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
