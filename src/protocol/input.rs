//! Hook payloads (stdin JSON) read leniently, and normalized into engine events.
//!
//! Only `session_id` and the event name are required. Every other field may be missing or of
//! an unexpected type (old versions lack `cwd`, `permission_mode`, `tool_use_id`; new versions
//! add fields every release): a field of the wrong type counts as missing, unknown fields are
//! ignored, unknown events are recorded and answered with nothing.

use serde_json::{Map, Value, json};

use super::depth;
pub use super::events::{EVENTS, is_known_event};
use super::repair::{self, Repairs};
pub use super::tool_result::{MAX_ENGINE_RESPONSE, result_for_engine};
use crate::engine::{Event, Phase};
use crate::store::redact::MAX_FIELD;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InputError {
    #[error("empty input: expected one hook payload (a JSON object) on stdin")]
    Empty,
    #[error("input is not JSON: {0}")]
    NotJson(String),
    #[error("input is JSON but not an object (found {0})")]
    NotObject(&'static str),
    #[error("payload has no `{0}`")]
    Missing(&'static str),
    #[error("payload field `{0}` must be {1}")]
    WrongType(&'static str, &'static str),
    #[error("{event} payload has no `tool_name`")]
    NoToolName { event: String },
    #[error("payload field `{0}` is longer than {1} bytes")]
    TooLong(&'static str, usize),
}

/// One hook payload, with the fields seed uses pulled out and the rest kept.
#[derive(Debug, Clone, PartialEq)]
pub struct HookInput {
    /// The event being run (the CLI argument when given, else `hook_event_name`).
    pub event: String,
    pub session_id: String,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub permission_mode: Option<String>,
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    pub tool_name: Option<String>,
    pub tool_input: Value,
    /// Object, array or string, as the tool produced it.
    pub tool_response: Option<Value>,
    pub tool_use_id: Option<String>,
    /// PostToolUseFailure's error text (or StopFailure's error kind).
    pub error: Option<String>,
    pub prompt: Option<String>,
    pub source: Option<String>,
    pub stop_hook_active: bool,
    /// Every other field, untouched.
    pub rest: Map<String, Value>,
    pub repairs: Repairs,
}

/// A JSON value's type for messages: "a number", "an array"…
pub fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn take_str(m: &mut Map<String, Value>, key: &str) -> Option<String> {
    match m.remove(key) {
        Some(Value::String(s)) => Some(s),
        Some(other) if !other.is_null() => {
            // Wrong type: keep it visible in `rest`, treat the field as missing.
            m.insert(key.to_string(), other);
            None
        }
        _ => None,
    }
}

impl HookInput {
    /// Parse stdin bytes. `event_override` is the CLI's `EVENT` argument.
    pub fn parse(bytes: Vec<u8>, event_override: Option<&str>) -> Result<HookInput, InputError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(InputError::Empty);
        }
        let (text, mut repairs) = repair::decode(bytes);
        let text = text.trim_start_matches('\u{feff}');
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            // Nested past the parser's limit: judged with the deep part cut, never unjudged.
            Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
                let (flat, cut) = depth::flatten(text, depth::MAX_DEPTH)
                    .ok_or(InputError::NotJson(e.to_string()))?;
                repairs.flattened = cut;
                serde_json::from_str(&flat).map_err(|e| InputError::NotJson(e.to_string()))?
            }
            Err(e) => return Err(InputError::NotJson(e.to_string())),
        };
        let Value::Object(mut m) = value else {
            return Err(InputError::NotObject(kind_name(&value)));
        };
        let named = match m.remove("hook_event_name") {
            Some(Value::String(s)) => Some(s),
            None | Some(Value::Null) => None,
            Some(_) => return Err(InputError::WrongType("hook_event_name", "a string")),
        };
        let event = match (event_override, named) {
            (Some(e), _) => e.to_string(),
            (None, Some(e)) => e,
            (None, None) => return Err(InputError::Missing("hook_event_name")),
        };
        let session_id = match m.remove("session_id") {
            // The id names the session's directory and every record: never cut, so refused.
            Some(Value::String(s)) if s.len() > MAX_FIELD => {
                return Err(InputError::TooLong("session_id", MAX_FIELD));
            }
            Some(Value::String(s)) if !s.trim().is_empty() => s,
            None | Some(Value::Null) | Some(Value::String(_)) => {
                return Err(InputError::Missing("session_id"));
            }
            Some(_) => return Err(InputError::WrongType("session_id", "a string")),
        };
        let tool_input = m.remove("tool_input").unwrap_or(Value::Null);
        let tool_response = m.remove("tool_response").filter(|v| !v.is_null());
        let stop_hook_active = matches!(m.get("stop_hook_active"), Some(Value::Bool(true)));
        let error = match m.remove("error") {
            Some(Value::String(s)) => Some(s),
            Some(Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        };
        Ok(HookInput {
            event,
            session_id,
            transcript_path: take_str(&mut m, "transcript_path"),
            cwd: take_str(&mut m, "cwd"),
            permission_mode: take_str(&mut m, "permission_mode"),
            agent_id: take_str(&mut m, "agent_id").filter(|s| !s.is_empty()),
            agent_type: take_str(&mut m, "agent_type"),
            tool_name: take_str(&mut m, "tool_name"),
            tool_input,
            tool_response,
            tool_use_id: take_str(&mut m, "tool_use_id"),
            error,
            prompt: take_str(&mut m, "prompt"),
            source: take_str(&mut m, "source"),
            stop_hook_active,
            rest: m,
            repairs,
        })
    }

    pub fn is_known(&self) -> bool {
        is_known_event(&self.event)
    }

    /// A small string field from the rest of the payload.
    pub fn rest_str(&self, key: &str) -> Option<&str> {
        self.rest.get(key).and_then(Value::as_str)
    }
}

/// What the engine is asked to do with a payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Normalized {
    pub phase: Phase,
    pub event: Event,
}

/// Lifecycle payload fields worth matching on (`lifecycle:SessionStart` with `{"source":
/// "compact"}`); everything else stays out of the event so records stay small.
pub const LIFECYCLE_KEYS: &[&str] = &[
    "trigger",
    "reason",
    "notification_type",
    "expansion_type",
    "command_name",
    "teammate_name",
    "task_id",
];

/// The engine's view of a payload, `None` for events seed only records. The hook passes a
/// scrubbed payload (redacted and bounded, `hook::payload`): the same values go into the
/// record, so a fold of the log repeats the step exactly.
pub fn normalize(
    input: &HookInput,
    tool_input: &Value,
    prompt: &str,
) -> Result<Option<Normalized>, InputError> {
    let tool = || {
        input
            .tool_name
            .as_deref()
            .filter(|t| !t.is_empty())
            .ok_or_else(|| InputError::NoToolName {
                event: input.event.clone(),
            })
    };
    let n = match input.event.as_str() {
        "PreToolUse" => Normalized {
            phase: Phase::Gate,
            event: Event::tool(tool()?, tool_input.clone()),
        },
        "PostToolUse" => Normalized {
            phase: Phase::Advance,
            event: Event::tool(tool()?, tool_input.clone())
                .with_response(result_for_engine(input.tool_response.as_ref())),
        },
        "PostToolUseFailure" => Normalized {
            phase: Phase::Advance,
            event: Event::tool_failure(tool()?, tool_input.clone(), input.error.as_deref()),
        },
        "UserPromptSubmit" => Normalized {
            phase: Phase::Advance,
            event: Event::prompt(prompt),
        },
        "Stop" | "SubagentStop" => {
            let mut ev_input = json!({ "stop_hook_active": input.stop_hook_active });
            if let Some(a) = &input.agent_id {
                ev_input["agent_id"] = json!(a);
            }
            // A subagent stopping does not end the session's work: SubagentStop is an event
            // a sequence may react to, never a stop gate, so an unfinished sequence does not
            // block it and it does not count against `stop.max_blocks`.
            let phase = if input.event == "Stop" {
                Phase::Stop
            } else {
                Phase::Advance
            };
            Normalized {
                phase,
                event: Event::lifecycle(&input.event).with_input(ev_input),
            }
        }
        name if is_known_event(name) => {
            let mut m = Map::new();
            if let Some(s) = &input.source {
                m.insert("source".into(), json!(s));
            }
            if let Some(a) = &input.agent_type {
                m.insert("agent_type".into(), json!(a));
            }
            for k in LIFECYCLE_KEYS {
                if let Some(s) = input.rest_str(k) {
                    m.insert((*k).into(), json!(s));
                }
            }
            if let Some(t) = &input.tool_name {
                m.insert("tool_name".into(), json!(t));
            }
            let ev_input = if m.is_empty() {
                Value::Null
            } else {
                Value::Object(m)
            };
            Normalized {
                phase: Phase::Advance,
                event: Event::lifecycle(name).with_input(ev_input),
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventKind;

    fn parse(s: &str) -> Result<HookInput, InputError> {
        HookInput::parse(s.as_bytes().to_vec(), None)
    }

    #[test]
    fn required_fields_and_lenient_rest() {
        assert_eq!(parse("  \n").unwrap_err(), InputError::Empty);
        assert!(matches!(parse("nope"), Err(InputError::NotJson(_))));
        assert_eq!(parse("[1]").unwrap_err(), InputError::NotObject("an array"));
        assert_eq!(
            parse(r#"{"hook_event_name":"Stop"}"#).unwrap_err(),
            InputError::Missing("session_id")
        );
        assert_eq!(
            parse(r#"{"hook_event_name":"Stop","session_id":7}"#).unwrap_err(),
            InputError::WrongType("session_id", "a string")
        );
        let i = parse(r#"{"hook_event_name":"Stop","session_id":"s","cwd":5,"stop_hook_active":"yes","new_field":{"a":1}}"#).unwrap();
        assert_eq!(i.cwd, None);
        assert!(!i.stop_hook_active);
        assert!(i.rest.contains_key("new_field"));
    }

    #[test]
    fn events_normalize() {
        let i = parse(r#"{"hook_event_name":"PostToolUseFailure","session_id":"s","tool_name":"Edit","tool_input":{},"error":"boom"}"#).unwrap();
        let n = normalize(&i, &i.tool_input, "").unwrap().unwrap();
        assert_eq!(
            (n.phase, n.event.key()),
            (Phase::Advance, "error.tool:Edit".into())
        );
        let i = parse(r#"{"hook_event_name":"SubagentStop","session_id":"s","stop_hook_active":true,"agent_id":"a1"}"#).unwrap();
        let n = normalize(&i, &Value::Null, "").unwrap().unwrap();
        assert_eq!(n.phase, Phase::Advance, "a subagent's stop is no stop gate");
        assert_eq!(n.event.input["stop_hook_active"], true);
        let i = parse(r#"{"hook_event_name":"Stop","session_id":"s","stop_hook_active":false}"#)
            .unwrap();
        let n = normalize(&i, &Value::Null, "").unwrap().unwrap();
        assert_eq!(n.phase, Phase::Stop);
        let i = parse(r#"{"hook_event_name":"SessionStart","session_id":"s","source":"compact"}"#)
            .unwrap();
        let n = normalize(&i, &Value::Null, "").unwrap().unwrap();
        assert_eq!(n.event.kind, EventKind::Lifecycle);
        assert_eq!(n.event.input["source"], "compact");
        let i = parse(r#"{"hook_event_name":"FutureEvent","session_id":"s"}"#).unwrap();
        assert_eq!(normalize(&i, &Value::Null, "").unwrap(), None);
        let i = parse(r#"{"hook_event_name":"PreToolUse","session_id":"s"}"#).unwrap();
        assert!(normalize(&i, &Value::Null, "").is_err());
    }

    #[test]
    fn post_tool_use_hands_the_engine_its_result_small_and_redacted() {
        let post = |response: &str| {
            let text = format!(
                r#"{{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Bash","tool_input":{{"command":"git rev-parse HEAD"}},"tool_response":{response}}}"#
            );
            let i = parse(&text).unwrap();
            normalize(&i, &i.tool_input, "").unwrap().unwrap().event
        };
        assert_eq!(
            post(r#"{"stdout":"9b1f0c2\n","stderr":""}"#).response["stdout"],
            "9b1f0c2\n"
        );
        let secret = post(r#"{"stdout":"token ghp_0123456789abcdefghijABCDEFGHIJ0123"}"#);
        assert!(
            !secret.response.to_string().contains("ghp_0123"),
            "{}",
            secret.response
        );
        let big = format!(r#"{{"stdout":"{}"}}"#, "x".repeat(MAX_ENGINE_RESPONSE));
        assert_eq!(post(&big).response, Value::Null, "whole or not at all");
        // PreToolUse has no result.
        let i = parse(r#"{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{},"tool_response":{"a":1}}"#).unwrap();
        let n = normalize(&i, &i.tool_input, "").unwrap().unwrap();
        assert_eq!(n.event.response, Value::Null);
    }
}
