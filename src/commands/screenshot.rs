//! `seed screenshot`.

use super::{CmdResult, not_built};
use crate::cli;

pub fn run(_args: cli::ScreenshotArgs) -> CmdResult {
    not_built("screenshot")
}
