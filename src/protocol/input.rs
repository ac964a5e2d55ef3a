//! Hook payloads (stdin JSON) read leniently, and normalized into engine events.
//!
//! Only `session_id` and the event name are required. Every other field may be missing or of
//! an unexpected type (old versions lack `cwd`, `permission_mode`, `tool_use_id`; new versions
//! add fields every release): a field of the wrong type counts as missing, unknown fields are
//! ignored, unknown events are recorded and answered with nothing.

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::bounded::{self, Limits};
pub use super::events::{EVENTS, is_known_event};
use super::repair::{self, Repairs};
pub use super::tool_result::{MAX_ENGINE_RESPONSE, result_for_engine};
use super::top::{Top, top_level};
use crate::engine::{Event, Phase};
use crate::store::redact::{Cut, MAX_FIELD, SCAN_MARGIN, scrub_str};

/// Longest string kept in a tool input or prompt (the event the engine steps and the log keep);
/// every other string of a payload is kept to `store::redact::MAX_FIELD`.
pub const MAX_INPUT_STRING: usize = 256 * 1024;
/// Bytes of a tool input kept in all: past them the rest of its arrays and objects is skipped
/// unread (and listed as cut), however many values a payload sends.
pub const MAX_INPUT_KEPT: usize = 1024 * 1024;
/// The largest `response_limit`: bytes of a tool's result a record can keep. The payload keeps
/// this much of a result (and a margin for the secrets across the cut) and skips the rest.
pub const MAX_RESPONSE_KEPT: usize = 1024 * 1024;

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
    #[error(
        "payload field `{0}` is not valid UTF-8 (or holds a lone surrogate): it names the session, which is never altered"
    )]
    Unreadable(&'static str),
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
    /// The fields worth keeping of the rest (`LIFECYCLE_KEYS`, `EXTRA_KEYS`), scalars only.
    pub rest: Map<String, Value>,
    pub repairs: Repairs,
    /// `cwd` as sent (not redacted), to find the project's configuration; `None` when it is
    /// longer than any real path.
    pub raw_cwd: Option<String>,
    /// Bytes of the tool's result as sent (`tool_response`).
    pub response_size: u64,
    /// The whole result was kept: nothing of it was cut or skipped.
    pub response_whole: bool,
    /// What was cut while reading the payload (for the record's `extra.truncated`).
    pub cuts: Vec<Cut>,
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

/// How much of each field is kept: a tool input and a prompt as content, a tool's result up
/// to what a record may hold, anything else as a field (a name, a path, a reason).
fn limits_of(key: &str) -> Limits {
    match key {
        "tool_input" => Limits {
            max_string: MAX_INPUT_STRING,
            budget: MAX_INPUT_KEPT,
            say_cuts: true,
        },
        "prompt" => Limits {
            max_string: MAX_INPUT_STRING,
            budget: usize::MAX,
            say_cuts: true,
        },
        // Recorded as its first `response_limit` bytes and its size: cut silently.
        "tool_response" => Limits {
            max_string: MAX_RESPONSE_KEPT + SCAN_MARGIN,
            budget: MAX_RESPONSE_KEPT + SCAN_MARGIN,
            say_cuts: false,
        },
        _ => Limits {
            max_string: MAX_FIELD,
            budget: 4 * MAX_FIELD,
            say_cuts: true,
        },
    }
}

/// A payload's top-level fields as sent (the last of a repeated key), read one at a time.
struct Fields<'a> {
    all: Vec<(std::borrow::Cow<'a, str>, &'a RawValue)>,
    cuts: Vec<Cut>,
    repairs: Repairs,
}

impl<'a> Fields<'a> {
    fn raw(&self, key: &str) -> Option<&'a RawValue> {
        self.all
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| *v)
    }

    /// The field kept within its limits.
    fn kept(&mut self, key: &str) -> Option<bounded::Kept> {
        let raw = self.raw(key)?;
        let k = bounded::keep(raw, limits_of(key), key, &mut self.cuts);
        self.repairs.flattened += k.repairs.flattened;
        self.repairs.huge_numbers += k.repairs.huge_numbers;
        Some(k)
    }

    /// A string field, redacted and bounded; another type counts as missing.
    fn text(&mut self, key: &str) -> Option<String> {
        let raw = self.raw(key)?;
        if !raw.get().starts_with('"') {
            return None;
        }
        match self.kept(key)?.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// A string field exactly as sent, when it is at most `max` bytes.
    fn exact(&self, key: &str, max: usize) -> Option<Result<String, usize>> {
        let raw = self.raw(key)?;
        if !raw.get().starts_with('"') {
            return None;
        }
        let s: String = serde_json::from_str(raw.get()).ok()?;
        Some(if s.len() > max { Err(s.len()) } else { Ok(s) })
    }

    fn is_null(&self, key: &str) -> bool {
        self.raw(key).is_none_or(|r| r.get() == "null")
    }
}

impl HookInput {
    /// Parse stdin bytes. `event_override` is the CLI's `EVENT` argument. The payload is read
    /// in one pass that redacts and bounds every string kept and skips what is not kept
    /// unread; fields seed keeps nowhere are dropped.
    pub fn parse(bytes: Vec<u8>, event_override: Option<&str>) -> Result<HookInput, InputError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(InputError::Empty);
        }
        let (text, mut repairs) = repair::decode(bytes);
        let text = text.trim_start_matches('\u{feff}');
        let top = top_level(text, &is_read).map_err(|e| InputError::NotJson(e.to_string()))?;
        let all = match top {
            Top::Object(all) => all,
            Top::Other(kind) => return Err(InputError::NotObject(kind)),
        };
        let mut f = Fields {
            all,
            cuts: Vec::new(),
            repairs: Repairs::default(),
        };
        let named = match f.raw("hook_event_name") {
            None => None,
            Some(r) if r.get() == "null" => None,
            Some(r) if r.get().starts_with('"') => f.text("hook_event_name"),
            Some(_) => return Err(InputError::WrongType("hook_event_name", "a string")),
        };
        let mut event = match (event_override, named) {
            (Some(e), _) => e.to_string(),
            (None, Some(e)) => e,
            (None, None) => return Err(InputError::Missing("hook_event_name")),
        };
        let session_id = match f.raw("session_id") {
            None => return Err(InputError::Missing("session_id")),
            Some(r) if r.get() == "null" => return Err(InputError::Missing("session_id")),
            Some(r) if !r.get().starts_with('"') => {
                return Err(InputError::WrongType("session_id", "a string"));
            }
            // The id names the session's directory and every record: never cut, so refused.
            Some(_) => match f.exact("session_id", MAX_FIELD) {
                Some(Ok(s)) if !s.trim().is_empty() => s,
                Some(Err(_)) => return Err(InputError::TooLong("session_id", MAX_FIELD)),
                _ => return Err(InputError::Missing("session_id")),
            },
        };
        // Bytes that are not UTF-8 and lone surrogates were replaced by U+FFFD: ids that
        // differed only there would share a directory, and the id would be altered. An id
        // with U+FFFD in a payload that needed repairs is refused (one without repairs is
        // as sent).
        if (repairs.invalid_utf8 || repairs.lone_surrogates > 0) && session_id.contains('\u{fffd}')
        {
            return Err(InputError::Unreadable("session_id"));
        }
        let raw_cwd = f.exact("cwd", MAX_FIELD).and_then(Result::ok);
        let tool_input = f.kept("tool_input").map_or(Value::Null, |k| k.value);
        let prompt = f.text("prompt");
        let (tool_response, response_size, response_whole) = if f.is_null("tool_response") {
            (None, 0, true)
        } else {
            let size = f.raw("tool_response").map_or(0, |r| r.get().len() as u64);
            let k = f.kept("tool_response");
            let whole = k.as_ref().is_some_and(|k| !k.cut);
            (k.map(|k| k.value), size, whole)
        };
        let stop_hook_active = f.raw("stop_hook_active").is_some_and(|r| r.get() == "true");
        // The event name from the command line is bounded like the payload's.
        scrub_str(&mut event, MAX_FIELD, "hook_event_name", &mut f.cuts);
        let transcript_path = f.text("transcript_path");
        let cwd = f.text("cwd");
        let permission_mode = f.text("permission_mode");
        let agent_id = f.text("agent_id").filter(|s| !s.is_empty());
        let agent_type = f.text("agent_type");
        let tool_name = f.text("tool_name");
        let tool_use_id = f.text("tool_use_id");
        let error = match f.kept("error").map(|k| k.value) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(other) => {
                let mut s = other.to_string();
                scrub_str(&mut s, MAX_FIELD, "error", &mut f.cuts);
                Some(s)
            }
        };
        let source = f.text("source");
        let rest = kept_rest(&mut f);
        repairs.flattened = f.repairs.flattened;
        repairs.huge_numbers = f.repairs.huge_numbers;
        Ok(HookInput {
            event,
            session_id,
            transcript_path,
            cwd,
            permission_mode,
            agent_id,
            agent_type,
            tool_name,
            tool_input,
            tool_response,
            tool_use_id,
            error,
            prompt,
            source,
            stop_hook_active,
            rest,
            repairs,
            raw_cwd,
            response_size,
            response_whole,
            cuts: f.cuts,
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

/// The payload's fields seed reads; any other is skipped unread.
const READ_KEYS: &[&str] = &[
    "hook_event_name",
    "session_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "agent_id",
    "agent_type",
    "tool_name",
    "tool_input",
    "tool_response",
    "tool_use_id",
    "error",
    "prompt",
    "source",
    "stop_hook_active",
];

fn is_read(key: &str) -> bool {
    READ_KEYS.contains(&key) || LIFECYCLE_KEYS.contains(&key) || EXTRA_KEYS.contains(&key)
}

/// The rest of the payload worth keeping: the fields named in [`LIFECYCLE_KEYS`] and
/// `EXTRA_KEYS` that hold a string, number or boolean.
fn kept_rest(f: &mut Fields<'_>) -> Map<String, Value> {
    let mut rest = Map::new();
    for key in LIFECYCLE_KEYS.iter().chain(EXTRA_KEYS) {
        if rest.contains_key(*key) {
            continue;
        }
        let Some(raw) = f.raw(key) else { continue };
        if raw.get().starts_with(['{', '[', 'n']) {
            continue;
        }
        if let Some(k) = f.kept(key) {
            rest.insert((*key).to_string(), k.value);
        }
    }
    rest
}

/// Payload facts the record keeps beside the event (see `hook::answer::extra`).
pub const EXTRA_KEYS: &[&str] = &[
    "duration_ms",
    "is_interrupt",
    "reason",
    "trigger",
    "notification_type",
];

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
            event: Event::tool(tool()?, tool_input.clone()).with_response(result_for_engine(
                input.tool_response.as_ref(),
                input.response_whole,
            )),
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
        // Kept nowhere, so not kept: only the fields a record holds are read.
        assert!(i.rest.is_empty());
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
