//! `seed install` / `seed uninstall`.

use super::{CmdResult, not_built};
use crate::cli;

pub fn run(_args: cli::InstallArgs, uninstall: bool) -> CmdResult {
    not_built(if uninstall { "uninstall" } else { "install" })
}
