//! SOURCE… for `seed learn`: session files (a Claude Code transcript, a seed session log), a
//! folder of them (a project's folder under `~/.claude/projects/`), or seed's state directory
//! (its `sessions/<id>/log.jsonl`).

use std::path::{Path, PathBuf};

/// The session files the sources name, in order, each once.
pub fn expand(sources: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> = Vec::new();
    for s in sources {
        let meta =
            std::fs::metadata(s).map_err(|e| format!("{}: cannot read: {e}", s.display()))?;
        let found = if meta.is_dir() {
            folder(s)?
        } else {
            vec![s.clone()]
        };
        if found.is_empty() {
            return Err(format!(
                "{}: no Claude Code transcript (*.jsonl) or seed session log in it",
                s.display()
            ));
        }
        for f in found {
            let key = std::fs::canonicalize(&f).unwrap_or_else(|_| f.clone());
            if !out
                .iter()
                .any(|o| std::fs::canonicalize(o).unwrap_or_else(|_| o.clone()) == key)
            {
                out.push(f);
            }
        }
    }
    Ok(out)
}

/// A folder's sessions: its `*.jsonl` files (a subagent's `agent-*.jsonl` is read with its
/// session), its folders' `log.jsonl` (seed's `sessions/`), and seed's state directory's.
fn folder(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let sessions = dir.join("sessions");
    if sessions.is_dir() {
        return folder(&sessions);
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: cannot read: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    let mut out = Vec::new();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_file() && name.ends_with(".jsonl") && !name.starts_with("agent-") {
            out.push(p);
        } else if p.is_dir() && p.join("log.jsonl").is_file() {
            out.push(p.join("log.jsonl"));
        }
    }
    Ok(out)
}
