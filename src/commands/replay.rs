//! `seed replay`.

use super::{CmdResult, not_built};
use crate::cli;

pub fn run(_args: cli::ReplayArgs) -> CmdResult {
    not_built("replay")
}
