//! Finding a session's subagent transcripts, in every layout Claude Code has used.

use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// How deep `<session>/subagents/` is searched (`workflows/wf_<id>/agent-*.jsonl` is 2 levels).
const MAX_DEPTH: usize = 4;
/// Lines read from a flat agent file to find its session id.
const SESSION_PROBE_LINES: usize = 20;

/// Subagent files of the session in `main`, sorted:
/// - 2.1.x: `<dir>/<session>/subagents/**/agent-*.jsonl`;
/// - 2.0.x: `<dir>/agent-*.jsonl` whose lines carry `session` (the project directory holds
///   every session's agents).
pub(super) fn subagent_files(main: &Path, session: &str) -> Vec<PathBuf> {
    let dir = match main.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut found = Vec::new();
    if let Some(stem) = main.file_stem() {
        collect_nested(&dir.join(stem).join("subagents"), MAX_DEPTH, &mut found);
    }
    let mut flat: Vec<PathBuf> = list(dir)
        .into_iter()
        .filter(|p| {
            is_agent_file(p) && p.as_path() != main && session_of(p).as_deref() == Some(session)
        })
        .collect();
    found.sort();
    flat.sort();
    found.extend(flat);
    found
}

/// The agent id a file name gives (`agent-<id>.jsonl` → `<id>`).
pub(super) fn agent_id_from_name(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("agent");
    stem.strip_prefix("agent-").unwrap_or(stem).to_string()
}

fn is_agent_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("agent-") && n.ends_with(".jsonl"))
        && path.is_file()
}

fn list(dir: &Path) -> Vec<PathBuf> {
    match fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => Vec::new(),
    }
}

fn collect_nested(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    for path in list(dir) {
        if is_agent_file(&path) {
            found.push(path);
        } else if depth > 0 && fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            // symlink_metadata: a link never leads the search out of the session directory.
            collect_nested(&path, depth - 1, found);
        }
    }
}

fn session_of(path: &Path) -> Option<String> {
    let reader = BufReader::new(File::open(path).ok()?);
    reader
        .split(b'\n')
        .take(SESSION_PROBE_LINES)
        .map_while(Result::ok)
        .find_map(|line| {
            let value: Value = serde_json::from_slice(&line).ok()?;
            value.get("sessionId")?.as_str().map(str::to_string)
        })
}
