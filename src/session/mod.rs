//! A session as every face reads it: which session is meant ([`choice`]), its records read
//! from its log ([`records`], the one reader), the snapshot they fold to ([`fold`], the one
//! fold), each sequence's machine and snapshot ([`view`]), and a replay source — a session,
//! a log or a Claude Code transcript ([`source`]). The hook, the dashboard, the MCP server,
//! replay and the commands all come here; nothing here prints.
#![warn(clippy::too_many_lines)] // Past 80 lines (clippy.toml) a function is split or says why.

pub mod choice;
pub mod explain;
pub mod fold;
pub mod now;
pub mod records;
pub mod source;
pub mod view;

use std::path::PathBuf;

/// A failure of the session layer: one line for whoever asked.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// The state directory as the hook chooses it (`$SEED_HOME`, `$HEAVEN_DATA_DIR/seed`, XDG).
pub fn state_dir() -> Option<PathBuf> {
    crate::store::paths::state_dir().ok()
}
