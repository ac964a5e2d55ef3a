//! Files and places: state directory, session logs, snapshots, tailing, deep-state readers.

pub mod record;
pub mod tail;
pub mod watch;
