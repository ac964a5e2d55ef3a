//! `seed hook`: never blocks the agent because seed itself is missing a piece.

use std::process::ExitCode;

use crate::cli;

pub fn run(_args: cli::HookArgs) -> ExitCode {
    ExitCode::SUCCESS
}
