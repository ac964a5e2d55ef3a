//! Files and places: state directory, session logs, snapshots, tailing, deep-state readers.
#![warn(clippy::too_many_lines)] // Past 80 lines (clippy.toml) a function is split or says why.

pub mod compat;
pub mod failures;
pub mod log;
pub mod paths;
pub mod reader_each;
pub mod reader_glob;
pub mod reader_lists;
pub mod readers;
pub mod record;
pub mod redact;
pub mod safe_fs;
pub mod secrets;
pub mod sessions;
pub mod snapshot;
pub mod tail;
pub mod watch;
