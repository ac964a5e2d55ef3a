//! Seed 000's files, kept current in the state directory for the tools that read them:
//! `allowed_tools.seed` (the tools valid now, one per line) and `state.log` (tool usage
//! history, one tab-separated line per tool call: time, session, tool, outcome).

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::paths;

pub const STATE_LOG_MAX_BYTES: u64 = 8 * 1024 * 1024;

pub fn allowed_tools_path(state: &Path) -> PathBuf {
    state.join("allowed_tools.seed")
}

pub fn state_log_path(state: &Path) -> PathBuf {
    state.join("state.log")
}

/// Rewrite `allowed_tools.seed` when its content changes (atomically).
pub fn write_allowed_tools(state: &Path, tools: &[String]) -> io::Result<()> {
    let path = allowed_tools_path(state);
    let mut text = tools.join("\n");
    text.push('\n');
    if paths::read_bounded(&path, text.len() as u64).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(());
    }
    paths::write_atomic(&path, text.as_bytes())
}

/// Append one line to `state.log`, rotating it to `state.log.1` past 8 MiB.
pub fn append_state_log(state: &Path, fields: &[&str]) -> io::Result<()> {
    let path = state_log_path(state);
    let mut line: String = fields
        .iter()
        .map(|f| f.replace(['\t', '\n', '\r'], " "))
        .collect::<Vec<_>>()
        .join("\t");
    line.push('\n');
    let f: File = paths::open_append(&path)?;
    f.lock()?;
    if f.metadata()?.len() > STATE_LOG_MAX_BYTES {
        std::fs::rename(&path, state.join("state.log.1"))?;
        drop(f);
        let mut f = paths::open_append(&path)?;
        return f.write_all(line.as_bytes());
    }
    let mut f = f;
    f.write_all(line.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files() {
        let t = tempfile::tempdir().unwrap();
        write_allowed_tools(t.path(), &["a".into(), "b".into()]).unwrap();
        assert_eq!(
            std::fs::read_to_string(allowed_tools_path(t.path())).unwrap(),
            "a\nb\n"
        );
        append_state_log(t.path(), &["t", "s", "Bash\tx", "ok"]).unwrap();
        append_state_log(t.path(), &["t", "s", "Read", "error"]).unwrap();
        assert_eq!(
            std::fs::read_to_string(state_log_path(t.path())).unwrap(),
            "t\ts\tBash x\tok\nt\ts\tRead\terror\n"
        );
    }
}
