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

/// One log line (without its newline) as a record.
pub fn parse_line(bytes: &[u8]) -> Result<Record, String> {
    serde_json::from_slice(bytes).map_err(|e| e.to_string())
}

/// Records of a log's bytes; malformed lines (a torn last line) are skipped and counted.
/// Every reader of a log comes here (or to [`parse_line`]): one schema, one rule for bad lines.
pub fn parse_records(bytes: &[u8]) -> (Vec<Record>, usize) {
    // Large logs (replay, status of a long session) parse on every core: parsing dominates
    // loading, and lines are independent.
    const PARALLEL_FROM: usize = 4 << 20;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    if bytes.len() < PARALLEL_FROM || threads < 2 {
        return parse_chunk(bytes);
    }
    let mut chunks = Vec::with_capacity(threads);
    let mut start = 0;
    for i in 1..=threads {
        let mut end = if i == threads {
            bytes.len()
        } else {
            (bytes.len() * i / threads).max(start)
        };
        // Cut after a newline so no line is split between two chunks.
        while end < bytes.len() && end > 0 && bytes[end - 1] != b'\n' {
            end += 1;
        }
        chunks.push(&bytes[start..end]);
        start = end;
    }
    let parts: Vec<(Vec<Record>, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|c| scope.spawn(move || parse_chunk(c)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut records = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
    let mut bad = 0;
    for (r, b) in parts {
        records.extend(r);
        bad += b;
    }
    (records, bad)
}

fn parse_chunk(bytes: &[u8]) -> (Vec<Record>, usize) {
    let mut records = Vec::new();
    let mut bad = 0;
    for line in bytes.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse_line(line) {
            Ok(r) => records.push(r),
            Err(_) => bad += 1,
        }
    }
    (records, bad)
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    /// Large logs are parsed in chunks on several threads: the result is the same records in
    /// the same order, with the same count of bad lines, whatever the chunk boundaries.
    #[test]
    fn parallel_parse_equals_sequential() {
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 6 << 20 {
            if i % 97 == 0 {
                text.push_str("{not json\n");
            } else {
                text.push_str(&format!(
                    "{{\"v\":1,\"ts\":\"t{i}\",\"session\":\"s\",\"hook\":\"PreToolUse\",\"extra\":{{\"pad\":\"{}\"}}}}\n",
                    "x".repeat(i % 300)
                ));
            }
            i += 1;
        }
        let (seq, bad_seq) = parse_chunk(text.as_bytes());
        let (par, bad_par) = parse_records(text.as_bytes());
        assert_eq!(bad_par, bad_seq);
        assert_eq!(par.len(), seq.len());
        assert!(par.iter().zip(&seq).all(|(a, b)| a.ts == b.ts));
    }
}
