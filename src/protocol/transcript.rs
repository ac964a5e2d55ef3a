//! Claude Code session transcripts (`<session-id>.jsonl`) read back as the hook records the
//! session would have produced, so a past session replays through the same engine and views
//! as a live one. Mapping: `claude-code-hooks-protocol.md` §6.6.
//!
//! - each assistant `tool_use` block → PreToolUse; its `tool_result` → PostToolUse, or
//!   PostToolUseFailure when `is_error`; ids count once across split or repeated lines;
//! - typed prompts → UserPromptSubmit; `/commands` (typed, or `<command-name>` tags in user and
//!   `system/local_command` lines) → command events;
//! - compaction boundaries → PreCompact + SessionStart (`source: compact`);
//! - subagents (inline `isSidechain` lines, or their own files) → SubagentStart, their tool
//!   events with `agent` set, SubagentStop;
//! - first line → SessionStart (`startup`); end of a main-thread turn → Stop; end of file →
//!   SessionEnd.
//!
//! Anything unknown is ignored and malformed lines are counted, never fatal: transcripts change
//! with every Claude Code release.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader};
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde_json::Value;

use crate::store::record::Record;

mod files;
mod line;
mod stream;

use stream::{Stream, StreamOutput, Totals};

/// Session id used when a transcript names none.
const UNKNOWN_SESSION: &str = "unknown";

#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    /// The main file's `sessionId` (else its file name); set on every record.
    pub session: String,
    /// Main-thread and subagent records, in order.
    pub records: Vec<Record>,
    /// Distinct `tool_use` ids in the main file and the subagent files.
    pub tool_use_ids: usize,
    /// Claude tool name → calls.
    pub tools: BTreeMap<String, usize>,
    /// Subagent files that were read.
    pub subagent_files: Vec<PathBuf>,
    /// Lines that were not JSON objects.
    pub skipped_lines: usize,
    /// `tool_result` blocks with no `tool_use` before them (e.g. cut off by a resume).
    pub unmatched_results: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    #[error("cannot read transcript {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// Reads a transcript and the subagent files that belong to it.
pub fn read_transcript(path: &Path) -> Result<Transcript, TranscriptError> {
    let mut totals = Totals::default();
    let main = read_stream(path, None, &mut totals)?;
    let session = main.session.clone().unwrap_or_else(|| {
        path.file_stem()
            .map_or(UNKNOWN_SESSION.into(), |s| s.to_string_lossy().into_owned())
    });
    let subagent_files = files::subagent_files(path, &session);
    let mut blocks = Vec::with_capacity(subagent_files.len());
    for file in &subagent_files {
        let agent = files::agent_id_from_name(file);
        blocks.push(read_stream(file, Some(agent), &mut totals)?.records);
    }
    let records = merge(main.records, blocks);
    Ok(finish(session, records, totals, subagent_files))
}

/// Reads one transcript's text (no subagent files).
pub fn parse_transcript_str(text: &str) -> Transcript {
    parse_transcript_bytes(text.as_bytes())
}

/// Reads one transcript's bytes (no subagent files); invalid UTF-8 is replaced.
pub fn parse_transcript_bytes(bytes: &[u8]) -> Transcript {
    let mut totals = Totals::default();
    let mut stream = Stream::new(&mut totals, None);
    // Reading from memory cannot fail.
    let _ = line::for_each_line(bytes, |l| stream.line(l));
    let main = stream.finish();
    let session = main.session.unwrap_or_else(|| UNKNOWN_SESSION.into());
    finish(session, main.records, totals, Vec::new())
}

fn read_stream(
    path: &Path,
    agent: Option<String>,
    totals: &mut Totals,
) -> Result<StreamOutput, TranscriptError> {
    let io_error = |source| TranscriptError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io_error)?;
    let mut stream = Stream::new(totals, agent);
    line::for_each_line(BufReader::new(file), |l| stream.line(l)).map_err(io_error)?;
    Ok(stream.finish())
}

fn finish(
    session: String,
    mut records: Vec<Record>,
    totals: Totals,
    subagent_files: Vec<PathBuf>,
) -> Transcript {
    for record in &mut records {
        record.session.clone_from(&session);
    }
    Transcript {
        session,
        records,
        tool_use_ids: totals.tool_ids.len(),
        tools: totals.tools,
        subagent_files,
        skipped_lines: totals.skipped_lines,
        unmatched_results: totals.unmatched_results,
    }
}

/// Places each subagent file's records (SubagentStart … SubagentStop) in the main timeline:
/// just before the result of the call that spawned it when that call names the agent, else
/// before the first record later than the agent's last one.
fn merge(mut records: Vec<Record>, mut blocks: Vec<Vec<Record>>) -> Vec<Record> {
    // Earliest first, so a nested agent finds its parent's records already in place.
    blocks.sort_by_key(|b| time_key(b.first()));
    for block in blocks {
        let Some(first) = block.first() else { continue };
        let at = spawn_position(&records, first.agent.as_deref())
            .unwrap_or_else(|| time_position(&records, block.last()));
        records.splice(at..at, block);
    }
    records
}

/// Unknown times sort last.
fn time_key(record: Option<&Record>) -> (bool, Option<Timestamp>) {
    let ts = record.and_then(|r| r.ts.parse::<Timestamp>().ok());
    (ts.is_none(), ts)
}

fn spawn_position(records: &[Record], agent: Option<&str>) -> Option<usize> {
    let agent = agent?;
    records.iter().position(|r| {
        r.hook.starts_with("PostToolUse")
            && r.extra.get("spawned_agent").and_then(Value::as_str) == Some(agent)
    })
}

fn time_position(records: &[Record], last: Option<&Record>) -> usize {
    // After the SessionStart, before the SessionEnd.
    let end = match records.last() {
        Some(r) if r.hook == "SessionEnd" => records.len() - 1,
        _ => records.len(),
    };
    let Some(last) = last.and_then(|r| r.ts.parse::<Timestamp>().ok()) else {
        return end;
    };
    (1..end)
        .find(|&i| records[i].ts.parse::<Timestamp>().is_ok_and(|ts| ts > last))
        .unwrap_or(end)
}
