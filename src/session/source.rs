//! SOURCE for `seed replay`, `seed screenshot` and `seed tui --replay`: a seed session id, a
//! seed session log (`.jsonl` of records) or a Claude Code transcript (`.jsonl` of messages,
//! with its subagent files).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::protocol::transcript;
use crate::store::record::Record;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    SessionLog,
    Transcript,
}

#[derive(Debug, Clone)]
pub struct Loaded {
    pub kind: SourceKind,
    pub path: PathBuf,
    pub session: String,
    pub records: Vec<Record>,
    /// Distinct tool calls (`tool_use` ids of a transcript and its subagent files; PreToolUse
    /// records of a log, by `tool_use_id` when present).
    pub tool_calls: usize,
    /// Lines that were not records (malformed, or a crash's incomplete last line).
    pub skipped: usize,
    /// Records a newer seed wrote (a later format): left out, not misread.
    pub newer: usize,
    pub subagent_files: Vec<PathBuf>,
    /// The directory the session ran in, when the source says (a transcript's `cwd`; a seed
    /// log's is in its session's bookkeeping).
    pub project: Option<String>,
}

/// Decide from the first JSON line: transcripts have a `type` (user, assistant, summary…) and no
/// record fields; seed records have `v`/`hook`/`event`.
pub fn sniff(bytes: &[u8]) -> SourceKind {
    for line in bytes.split(|b| *b == b'\n').take(50) {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        let Some(o) = v.as_object() else { continue };
        if o.contains_key("hook") || o.contains_key("event") || o.contains_key("phase") {
            return SourceKind::SessionLog;
        }
        if o.get("type").is_some_and(|t| t.is_string()) {
            return SourceKind::Transcript;
        }
    }
    SourceKind::SessionLog
}

pub fn load_path(path: &Path) -> Result<Loaded, String> {
    let head = read_head(path)?;
    match sniff(&head) {
        SourceKind::Transcript => {
            let t = transcript::read_transcript(path).map_err(|e| e.to_string())?;
            let project = t
                .records
                .iter()
                .find_map(|r| r.extra.get("cwd").and_then(|c| c.as_str()))
                .map(String::from);
            Ok(Loaded {
                project,
                kind: SourceKind::Transcript,
                path: path.to_path_buf(),
                session: t.session,
                records: t.records,
                tool_calls: t.tool_use_ids,
                skipped: t.skipped_lines,
                newer: 0,
                subagent_files: t.subagent_files,
            })
        }
        SourceKind::SessionLog => {
            let (mut records, skipped) = super::records::read_records(path)?;
            let before = records.len();
            records.retain(|r| !r.is_newer());
            let newer = before - records.len();
            let tool_calls = count_calls(&records);
            let session = records
                .iter()
                .find(|r| !r.session.is_empty())
                .map(|r| r.session.clone())
                .unwrap_or_default();
            Ok(Loaded {
                kind: SourceKind::SessionLog,
                path: path.to_path_buf(),
                session,
                records,
                tool_calls,
                skipped,
                newer,
                subagent_files: Vec::new(),
                project: None,
            })
        }
    }
}

fn read_head(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let f =
        std::fs::File::open(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut buf = Vec::new();
    f.take(256 * 1024)
        .read_to_end(&mut buf)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    Ok(buf)
}

/// PreToolUse records, each `tool_use_id` once.
/// A record of a call being judged: a `PreToolUse` hook, or (a hand-written or older log
/// without the hook's name) a gate of a tool or skill. The summary's total and its per-tool
/// counts both use this, so they add up.
pub fn is_gated_call(r: &Record) -> bool {
    r.hook == "PreToolUse"
        || (r.hook.is_empty()
            && r.phase == Some(crate::engine::Phase::Gate)
            && r.event.as_ref().is_some_and(|e| {
                matches!(
                    e.kind,
                    crate::engine::EventKind::Tool | crate::engine::EventKind::Skill
                )
            }))
}

fn count_calls(records: &[Record]) -> usize {
    let mut ids = BTreeSet::new();
    let mut anonymous = 0;
    for r in records.iter().filter(|r| is_gated_call(r)) {
        match &r.tool_use_id {
            Some(id) => {
                ids.insert(id.clone());
            }
            None => anonymous += 1,
        }
    }
    ids.len() + anonymous
}

/// A path, or a session id looked up in the state directory.
pub fn resolve(source: &str, state_dir: Option<&Path>) -> Result<Loaded, String> {
    let p = Path::new(source);
    if p.is_file() {
        return load_path(p);
    }
    if p.is_dir() {
        return Err(format!(
            "{source}: is a directory; name a session log, a transcript or a session id"
        ));
    }
    if let Some(dir) = state_dir
        && let Some(log) = super::view::session_log(dir, source)
    {
        crate::store::paths::verify_in(dir, &log).map_err(|e| e.to_string())?;
        return load_path(&log);
    }
    Err(format!(
        "{source}: no such file, and no session with that id in the state directory"
    ))
}

/// Records a newer seed wrote, which this one leaves out rather than misreads.
pub fn newer_notice(n: usize) -> String {
    format!(
        "{n} record{} written by a newer seed (a later log format): left out; update seed to read {}",
        if n == 1 { "" } else { "s" },
        if n == 1 { "it" } else { "them" }
    )
}
