//! Replay without a terminal: resolve a source (a seed session, a session log or a Claude Code
//! transcript) into records, and summarize what a sequence says about them (what-if included).

pub mod frame;
pub mod source;
pub mod summary;
