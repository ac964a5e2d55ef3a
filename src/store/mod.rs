//! Files and places: state directory, session logs, snapshots, tailing, deep-state readers.

pub mod compat;
pub mod log;
pub mod paths;
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
