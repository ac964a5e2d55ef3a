//! `seed replay SOURCE [--sequence NAME] --summary [--json]`.

use std::process::ExitCode;

use super::{CmdResult, sequence_search_dirs, state_dir};
use crate::cli;
use crate::dialects;
use crate::engine::Machine;
use crate::replay::{source, summary};

pub fn run(args: cli::ReplayArgs) -> CmdResult {
    if !args.summary {
        return Err("`seed replay` prints a summary (--summary); to watch a replay use `seed tui --replay SOURCE`".into());
    }
    let loaded = source::resolve(&args.source, state_dir().as_deref())?;
    let what_if = args.sequence.is_some();
    let name = args.sequence.clone().or_else(|| {
        loaded
            .records
            .iter()
            .find_map(|r| r.sequences.first().cloned())
    });
    let machine = match name {
        Some(n) => Some(Machine::new(
            dialects::resolve(&n, &sequence_search_dirs())?.chart,
        )),
        None => None,
    };
    let s = summary::summarize(&loaded, machine.as_ref(), what_if);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        print!("{}", summary::render_text(&s));
    }
    Ok(ExitCode::SUCCESS)
}
