//! The versioned record the hook appends to a session log, one JSON line per hook event.
//! It carries what is needed to re-run the step (phase, normalized event, facts) and what was
//! answered (verdict), so `fold(log)` reproduces the snapshot and the dashboard can replay it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::{Event, Facts, Phase, Verdict};

pub const RECORD_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Record format version.
    #[serde(default = "current_version")]
    pub v: u32,
    /// RFC 3339 UTC time the hook ran.
    #[serde(default)]
    pub ts: String,
    #[serde(default)]
    pub session: String,
    /// Subagent id when the event came from a subagent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Claude Code hook event name (`PreToolUse`, `PostToolUse`, …), or the replay source's.
    #[serde(default)]
    pub hook: String,
    /// `None` for events recorded but not stepped (unknown events, failures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<Event>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    #[serde(default, skip_serializing_if = "Facts::is_empty")]
    pub facts: Facts,
    /// Sequences stepped, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sequences: Vec<String>,
    /// The answer given (the most restrictive over the sequences).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Bounded copy of the tool response (PostToolUse).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ResponseInfo>,
    /// Hook wall time in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
    /// seed's own failure, when the hook could not do its job (the fail-open/closed answer was given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Anything else worth keeping (prompt text, stop_hook_active, source…).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub extra: Value,
}

fn current_version() -> u32 {
    RECORD_VERSION
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseInfo {
    /// Size of the full response in bytes.
    pub size: u64,
    pub truncated: bool,
    /// The response, bounded; `null` when the stepped event carries it whole (a sequence
    /// keeps the result, e.g. a workflow's `store_as`), so a record never holds it twice.
    pub value: Value,
}

impl Record {
    /// A record with only the fixed fields set.
    pub fn new(
        ts: impl Into<String>,
        session: impl Into<String>,
        hook: impl Into<String>,
    ) -> Record {
        Record {
            v: RECORD_VERSION,
            ts: ts.into(),
            session: session.into(),
            agent: None,
            hook: hook.into(),
            phase: None,
            event: None,
            tool_use_id: None,
            facts: Facts::new(),
            sequences: Vec::new(),
            verdict: None,
            response: None,
            ms: None,
            error: None,
            extra: Value::Null,
        }
    }

    /// The step this record asks the engine to replay, if any. A record of a newer format
    /// asks none: its fields may mean something else, so it is skipped, not misread.
    pub fn step(&self) -> Option<(Phase, &Event, &Facts)> {
        if self.is_newer() {
            return None;
        }
        Some((self.phase?, self.event.as_ref()?, &self.facts))
    }

    /// Written by a newer seed than this one.
    pub fn is_newer(&self) -> bool {
        self.v > RECORD_VERSION
    }
}
