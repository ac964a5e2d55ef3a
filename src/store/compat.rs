//! Seed 000's files, kept current in the state directory for the tools that read them:
//! `allowed_tools.seed` (the tools valid now, one per line) and `state.log` (tool usage
//! history, one tab-separated line per tool call: time, session, tool, outcome).

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{log, paths};

/// How long `state.log`'s lock is waited for (it is shared by every session's hooks).
const STATE_LOG_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

pub const STATE_LOG_MAX_BYTES: u64 = 8 * 1024 * 1024;

pub fn allowed_tools_path(state: &Path) -> PathBuf {
    state.join("allowed_tools.seed")
}

pub fn state_log_path(state: &Path) -> PathBuf {
    state.join("state.log")
}

/// Where a compatibility file can be written: itself, or the regular file inside the state
/// directory a symlink of yours leads to. `Err` is one line saying why it is left alone: a
/// link to somewhere outside the state directory (seed would write outside its own
/// directories, or replace your link), a link of another user's, or not a regular file.
/// `state` is the prepared (real) state directory.
pub fn target(state: &Path, path: &Path) -> Result<PathBuf, String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Ok(m) = std::fs::symlink_metadata(path) else {
        // Missing: created as a private regular file.
        return Ok(path.to_path_buf());
    };
    let left = "left as it is, not written";
    if m.file_type().is_symlink() {
        if let Err(e) = paths::check_symlink(path) {
            return Err(format!("{e}; {left}"));
        }
        let to = std::fs::read_link(path)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        return match std::fs::canonicalize(path) {
            Ok(real) if real.starts_with(state) && real.is_file() => Ok(real),
            Ok(real) if real.starts_with(state) => Err(format!(
                "{name} is a symlink to {to}, which is not a regular file; {left}"
            )),
            Ok(_) => Err(format!(
                "{name} is a symlink to {to}, outside the state directory; {left}"
            )),
            Err(_) => Err(format!(
                "{name} is a symlink to {to}, which does not exist; {left}"
            )),
        };
    }
    if !m.is_file() {
        return Err(format!("{name} is not a regular file; {left}"));
    }
    Ok(path.to_path_buf())
}

/// Rewrite `allowed_tools.seed` (at `path`, from `target`) when its content changes
/// (atomically).
pub fn write_allowed_tools(path: &Path, tools: &[String]) -> io::Result<()> {
    let mut text = tools.join("\n");
    text.push('\n');
    // Tool names come from sequence files; what is written passes the redactor all the same.
    if let Some(r) = super::redact::redact_str(&text) {
        text = r;
    }
    if paths::read_bounded(path, text.len() as u64).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(());
    }
    paths::write_atomic(path, text.as_bytes())
}

/// Append one line to `state.log` (at `path`, from `target`), rotating it to `<path>.1` past
/// 8 MiB.
pub fn append_state_log(path: &Path, fields: &[&str]) -> io::Result<()> {
    let mut line: String = fields
        .iter()
        .map(|f| f.replace(['\t', '\n', '\r'], " "))
        .collect::<Vec<_>>()
        .join("\t");
    if let Some(r) = super::redact::redact_str(&line) {
        line = r;
    }
    line.push('\n');
    let f: File = paths::open_append(path)?;
    log::lock_within(&f, path, STATE_LOG_LOCK_WAIT)?;
    if f.metadata()?.len() > STATE_LOG_MAX_BYTES {
        let mut rotated = path.as_os_str().to_os_string();
        rotated.push(".1");
        std::fs::rename(path, rotated)?;
        drop(f);
        return append_whole(&paths::open_append(path)?, line.as_bytes());
    }
    append_whole(&f, line.as_bytes())
}

/// Append `line`, or nothing: a write cut short (a full disk, a file-size limit) is cut back
/// off, so no torn line is left for the next one to follow.
fn append_whole(f: &File, line: &[u8]) -> io::Result<()> {
    let len = f.metadata()?.len();
    let mut w = f;
    w.write_all(line).inspect_err(|_| {
        let _ = f.set_len(len);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files() {
        let t = tempfile::tempdir().unwrap();
        write_allowed_tools(&allowed_tools_path(t.path()), &["a".into(), "b".into()]).unwrap();
        assert_eq!(
            std::fs::read_to_string(allowed_tools_path(t.path())).unwrap(),
            "a\nb\n"
        );
        let log = state_log_path(t.path());
        append_state_log(&log, &["t", "s", "Bash\tx", "ok"]).unwrap();
        append_state_log(&log, &["t", "s", "Read", "error"]).unwrap();
        assert_eq!(
            std::fs::read_to_string(state_log_path(t.path())).unwrap(),
            "t\ts\tBash x\tok\nt\ts\tRead\terror\n"
        );
    }
}
