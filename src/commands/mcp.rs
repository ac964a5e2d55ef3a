//! `seed mcp`.

use super::{CmdResult, not_built};
use crate::cli;

pub fn run(_args: cli::McpArgs) -> CmdResult {
    not_built("mcp")
}
