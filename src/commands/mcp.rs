//! `seed mcp`: the MCP server over stdio.

use std::process::ExitCode;

use super::CmdResult;
use crate::cli;
use crate::mcp;

pub fn run(args: cli::McpArgs) -> CmdResult {
    mcp::serve(mcp::tools::default_context(args.session, args.sequence))?;
    Ok(ExitCode::SUCCESS)
}
