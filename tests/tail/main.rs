//! The tailer, driven directly: every case writes with `std::fs`, then calls `poll()`.

mod files;
mod lines;
mod watch;

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use seed::store::tail::{TailEvent, TailLimits};
use tempfile::TempDir;

pub fn setup() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("session.jsonl");
    (dir, path)
}

pub fn append(path: &Path, bytes: impl AsRef<[u8]>) {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("open for append");
    f.write_all(bytes.as_ref()).expect("append");
}

/// The events as short strings, so a whole poll reads as one line of the test.
pub fn show(events: &[TailEvent]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e {
            TailEvent::Line { bytes, .. } => String::from_utf8_lossy(bytes).into_owned(),
            TailEvent::TooLong { .. } => "<too long>".into(),
            TailEvent::Reset { reason } => format!("<reset: {reason:?}>"),
            TailEvent::Missing => "<missing>".into(),
        })
        .collect()
}

pub fn small(chunk: usize, poll_budget: u64, max_line: usize) -> TailLimits {
    TailLimits {
        chunk,
        poll_budget,
        max_line,
    }
}
