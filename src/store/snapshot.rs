//! Saved engine snapshots, one file per session per sequence, so a hook costs the same on a
//! 1M-record session as on an empty one. The log stays the truth: a snapshot is used only when
//! it belongs to the same chart (fingerprint) and covers exactly the log's current length;
//! otherwise the log is folded again and the snapshot rewritten.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::paths;
use super::record::Record;
use crate::engine::{Chart, Machine, Snapshot};

pub const SAVED_VERSION: u32 = 1;

/// Snapshot files above this are not ours to trust.
const MAX_SNAPSHOT_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedSnapshot {
    pub v: u32,
    /// Chart name.
    pub sequence: String,
    /// Where the chart came from (`builtin:<file>` or a path).
    pub source: String,
    /// Fingerprint of the chart (overrides applied).
    pub fingerprint: String,
    /// Log length in bytes this snapshot covers.
    pub log_len: u64,
    /// Log records it covers.
    pub records: u64,
    pub snapshot: Snapshot,
}

impl SavedSnapshot {
    pub fn is_fresh(&self, machine: &Machine, log_len: u64) -> bool {
        self.is_prefix_of(machine, log_len) && self.log_len == log_len
    }

    /// Whether this snapshot is `machine`'s state after a prefix of a log that is now
    /// `log_len` bytes long: the log only grows (the dashboard starts from such a prefix too),
    /// so the records after `self.log_len` are all it lacks. A log that shrank was replaced.
    pub fn is_prefix_of(&self, machine: &Machine, log_len: u64) -> bool {
        self.v == SAVED_VERSION
            && self.fingerprint == machine.fingerprint
            && self.log_len <= log_len
    }
}

/// The snapshot at `path`, or the one before it when a hook was killed while replacing it.
pub fn load(path: &Path) -> Option<SavedSnapshot> {
    let bytes = paths::read_rotating(path, &previous(path), MAX_SNAPSHOT_BYTES).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Saved on every hook, so the old snapshot steps aside instead of being renamed over (see
/// [`paths::write_rotating`]): once one is written, a whole one always exists.
pub fn save(path: &Path, saved: &SavedSnapshot) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        paths::ensure_dir(dir)?;
    }
    let bytes = serde_json::to_vec(saved).map_err(io::Error::other)?;
    paths::write_rotating(path, &previous(path), &bytes)
}

/// `.<name>.prev` beside a snapshot: hidden, and not a `.json` file, so listings of the
/// sequences a session ran never count it.
pub fn previous(path: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(".prev");
    path.with_file_name(name)
}

/// Records of a log's bytes; malformed lines (a torn last line) are skipped and counted.
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
        match serde_json::from_slice::<Record>(line) {
            Ok(r) => records.push(r),
            Err(_) => bad += 1,
        }
    }
    (records, bad)
}

/// The snapshot a sequence has after every stepped record of a log.
pub fn fold(machine: &Machine, records: &[Record]) -> Snapshot {
    machine.fold(records.iter().filter_map(Record::step))
}

/// The compiled chart saved beside the snapshot, so `status` can rebuild exactly the machine
/// the hook used (overrides included) without the hook's configuration.
pub fn save_chart(path: &Path, chart: &Chart) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        paths::ensure_dir(dir)?;
    }
    let bytes = serde_json::to_vec(chart).map_err(io::Error::other)?;
    paths::write_atomic(path, &bytes)
}

pub fn load_chart(path: &Path) -> Option<Chart> {
    let bytes = paths::read_bounded(path, MAX_SNAPSHOT_BYTES).ok()?;
    serde_json::from_slice(&bytes).ok()
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
