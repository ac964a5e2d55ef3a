//! A session as every face reads it: which session is meant ([`choice`]), its records read
//! from its log ([`records`], the one reader), the snapshot they fold to ([`fold`], the one
//! fold), each sequence's machine and snapshot ([`view`]), and a replay source — a session,
//! a log or a Claude Code transcript ([`source`]). The hook, the dashboard, the MCP server,
//! replay and the commands all come here; nothing here prints.

pub mod choice;
pub mod fold;
pub mod records;
pub mod source;
pub mod view;

use std::path::PathBuf;

/// A failure of the session layer: one line for whoever asked.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// Directories searched for sequences named on the command line, before the built-ins:
/// the project's `.seed/sequences` (from `$CLAUDE_PROJECT_DIR` or the current directory),
/// then `$SEED_HOME/sequences`.
pub fn sequence_search_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let project = std::env::var_os("CLAUDE_PROJECT_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok());
    if let Some(p) = project {
        dirs.push(p.join(".seed").join("sequences"));
    }
    if let Some(h) = std::env::var_os("SEED_HOME") {
        dirs.push(PathBuf::from(h).join("sequences"));
    }
    dirs
}

/// The state directory as the hook chooses it (`$SEED_HOME`, `$HEAVEN_DATA_DIR/seed`, XDG).
pub fn state_dir() -> Option<PathBuf> {
    crate::store::paths::state_dir().ok()
}
