//! `seed demo`: the bundled session and sequence replayed (playing) in the dashboard. The session's
//! log and the deep-state files its readers name are written to a temporary directory first,
//! so nothing of the user's is read or touched.

use super::CmdResult;
use crate::cli;
use crate::demo::{self, DemoDirs};
use std::path::PathBuf;

/// A temporary directory removed when the demo ends (also on error).
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Write the demo's state directory and deep-state files under `root`; returns the log.
pub fn prepare(root: &std::path::Path) -> Result<PathBuf, String> {
    let dirs = DemoDirs::under(root);
    demo::prepare_files(&dirs)?;
    let log = dirs.log();
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(&log, demo::SESSION_LOG).map_err(|e| format!("{}: {e}", log.display()))?;
    Ok(log)
}

pub fn run(args: cli::DemoArgs) -> CmdResult {
    let root = TempDir(std::env::temp_dir().join(format!("seed-demo-{}", std::process::id())));
    let log = prepare(&root.0)?;
    let code = super::tui::run_with(
        cli::TuiArgs {
            session: None,
            sequence: None,
            theme: args.theme,
            replay: Some(log.display().to_string()),
        },
        true,
    )?;
    drop(root);
    Ok(code)
}
