//! `seed replay SOURCE [--sequence NAME] --summary [--json]`.

use std::process::ExitCode;

use super::CmdResult;
use crate::cli;
use crate::replay::summary;

pub fn run(args: cli::ReplayArgs) -> CmdResult {
    if !args.summary && !args.json {
        return Err("`seed replay` prints a summary (--summary, --json); to watch a replay use `seed tui --replay SOURCE`".into());
    }
    let loaded = load_source(&args.source)?;
    let opts = crate::tui::start::Options {
        sequence: args.sequence.clone(),
        ..super::tui::options()?
    };
    // The sequences the dashboard would replay through; the summary follows the first.
    let (seqs, notices) = crate::tui::start::replay_seqs(&opts, &loaded)?;
    for n in &notices {
        eprintln!("seed: {n}");
    }
    let s = summary::summarize(&loaded, seqs.first(), args.sequence.is_some());
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&s)?)?;
    } else {
        out!("{}", summary::render_text(&s))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The source named `demo` is the bundled demo session.
pub fn load_source(name: &str) -> Result<crate::session::source::Loaded, String> {
    if name == "demo" && !std::path::Path::new(name).exists() {
        let records = crate::demo::bundled();
        return Ok(crate::session::source::Loaded {
            kind: crate::session::source::SourceKind::SessionLog,
            path: "demo".into(),
            session: crate::demo::SESSION_ID.into(),
            tool_calls: records.iter().filter(|r| r.hook == "PreToolUse").count(),
            records,
            skipped: 0,
            newer: 0,
            subagent_files: Vec::new(),
            project: crate::demo::project(),
        });
    }
    crate::session::source::resolve(name, crate::session::state_dir().as_deref())
}
