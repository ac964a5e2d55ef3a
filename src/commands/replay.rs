//! `seed replay SOURCE [--sequence NAME] --summary [--json]`.

use std::process::ExitCode;

use super::{CmdResult, state_dir};
use crate::cli;
use crate::replay::{source, summary};

pub fn run(args: cli::ReplayArgs) -> CmdResult {
    if !args.summary {
        return Err("`seed replay` prints a summary (--summary); to watch a replay use `seed tui --replay SOURCE`".into());
    }
    let loaded = source::resolve(&args.source, state_dir().as_deref())?;
    let what_if = args.sequence.is_some();
    let machine = super::view::machine_for(&loaded.records, args.sequence.as_deref())?;
    let s = summary::summarize(&loaded, machine.as_ref(), what_if);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        print!("{}", summary::render_text(&s));
    }
    Ok(ExitCode::SUCCESS)
}
