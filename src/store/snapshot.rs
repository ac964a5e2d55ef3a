//! Saved engine snapshots, one file per session per sequence, so a hook costs the same on a
//! 1M-record session as on an empty one. The log stays the truth: a snapshot is used only when
//! it belongs to the same chart (fingerprint) and covers exactly the log's current length;
//! otherwise the log is folded again and the snapshot rewritten.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::paths;
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
