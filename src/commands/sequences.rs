//! `seed sequences`: every built-in and project sequence with its dialect, size and description.

use std::process::ExitCode;

use super::CmdResult;
use crate::report::sanitize;
use crate::report::sequences::{list, render_text, to_json};

pub fn run(args: crate::cli::JsonArg) -> CmdResult {
    let list = list();
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&to_json(&list))?)?;
    } else {
        out!("{}", sanitize::terminal(&render_text(&list)))?;
    }
    Ok(ExitCode::SUCCESS)
}
