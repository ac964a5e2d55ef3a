//! Saved engine snapshots, one file per session per sequence, so a hook costs the same on a
//! 1M-record session as on an empty one. The log stays the truth: a snapshot is used only when
//! it belongs to the same chart (fingerprint) and covers exactly the log's current length;
//! otherwise the log is folded again and the snapshot rewritten.

use std::io;
use std::path::Path;

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
        self.v == SAVED_VERSION
            && self.fingerprint == machine.fingerprint
            && self.log_len == log_len
    }
}

pub fn load(path: &Path) -> Option<SavedSnapshot> {
    let bytes = paths::read_bounded(path, MAX_SNAPSHOT_BYTES).ok()?;
    serde_json::from_slice(&bytes).ok()
}

pub fn save(path: &Path, saved: &SavedSnapshot) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        paths::ensure_dir(dir)?;
    }
    let bytes = serde_json::to_vec(saved).map_err(io::Error::other)?;
    paths::write_cache(path, &bytes)
}

/// Records of a log's bytes; malformed lines (a torn last line) are skipped and counted.
pub fn parse_records(bytes: &[u8]) -> (Vec<Record>, usize) {
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
