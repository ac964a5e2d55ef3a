//! `seed tui`.

use super::{CmdResult, not_built};
use crate::cli;

pub fn run(_args: cli::TuiArgs) -> CmdResult {
    not_built("tui")
}
