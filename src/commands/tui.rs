//! `seed tui`: the dashboard, following the most recently active session of this project
//! (or the one named) live, or replaying a session or a Claude Code transcript (`--replay`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::CmdResult;
use crate::cli;
use crate::store::paths;
use crate::tui::app;
use crate::tui::start::Options;

pub fn run(args: cli::TuiArgs) -> CmdResult {
    run_with(args, false)
}

/// The dashboard; `autoplay` starts a replay playing (the demo) rather than paused.
pub fn run_with(args: cli::TuiArgs, autoplay: bool) -> CmdResult {
    let opts = Options {
        session: args.session,
        sequence: args.sequence,
        theme: args.theme,
        replay: args.replay,
        autoplay,
        ..options()?
    };
    app::run(opts).map_err(|e| format!("{e:#}"))?;
    Ok(ExitCode::SUCCESS)
}

/// Where the dashboard (and anything replaying as it does) finds sessions, the project's
/// sequences and the user's themes.
pub fn options() -> Result<Options, String> {
    let state = paths::state_dir().map_err(|e| format!("no state directory: {e}"))?;
    let project = std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok());
    let user_dir = crate::config::user_config_path(&|k| std::env::var(k).ok())
        .and_then(|p| p.parent().map(PathBuf::from));
    Ok(Options {
        state,
        project,
        user_dir,
        poll: Duration::from_secs(2),
        ..Options::default()
    })
}
