//! `seed doctor`.

use super::{CmdResult, not_built};
use crate::cli;

pub fn run(_args: cli::JsonArg) -> CmdResult {
    not_built("doctor")
}
