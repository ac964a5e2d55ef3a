//! `seed explain CALL`: the verdict a call would get now in each sequence of a session (or a
//! file of records), every rule that decides it, and the shortest way to make it legal.

use std::process::ExitCode;

use super::CmdResult;
use crate::protocol::call::parse_call;
use crate::report::sanitize;
use crate::session::explain::explained;
use crate::session::view::{self, View};
use crate::store::paths;

pub fn run(args: crate::cli::ExplainArgs) -> CmdResult {
    // Errors quote the call, sequence files and paths: cleaned like the rest of the output.
    run_checked(args).map_err(|e| sanitize::terminal(&e.to_string()).into())
}

fn run_checked(args: crate::cli::ExplainArgs) -> CmdResult {
    let ev = parse_call(&args.call).map_err(|e| format!("cannot read the call: {e}"))?;
    let views = views(&args)?;
    let (text, json) = explained(&views, &ev, args.sequence.as_deref());
    let out = if args.json {
        serde_json::to_string_pretty(&json)?
    } else {
        sanitize::terminal(&text)
    };
    outln!("{}", out.trim_end())?;
    Ok(ExitCode::SUCCESS)
}

/// `--events FILE`, else the session (`--session ID`, the calling one, the newest here).
fn views(args: &crate::cli::ExplainArgs) -> Result<Vec<View>, super::CmdError> {
    let views = match &args.events {
        Some(events) => vec![view::load_view(
            &view::Source::Events(events),
            args.sequence.as_deref(),
            None,
        )?],
        None => {
            let state = paths::state_dir()?;
            let pick = crate::session::choice::Pick::from_env(args.session.as_deref());
            view::session_views(&state, &pick, args.sequence.as_deref())?
        }
    };
    if let Some(n) = views.first().and_then(|v| v.skipped.notice()) {
        eprintln!("{n}");
    }
    Ok(views)
}
