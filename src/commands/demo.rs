//! `seed demo`.

use super::{CmdResult, not_built};
use crate::cli;

pub fn run(_args: cli::DemoArgs) -> CmdResult {
    not_built("demo")
}
