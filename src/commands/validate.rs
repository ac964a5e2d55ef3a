//! `seed validate`: load each sequence and lint it. Exit 1 on errors; warnings are printed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::CmdResult;
use crate::dialects;
use crate::engine::Machine;
use crate::engine::lint::Lint;
use crate::hosted::{self, Provided};
use crate::report::sanitize;
use crate::report::validation::{FileReport, failed, render_text, validate_paths};

pub fn run(args: crate::cli::ValidateArgs) -> CmdResult {
    let mut reports = validate_paths(&args.paths);
    add_server_warnings(&mut reports, &args.paths);
    crate::report::deep_state::add_warnings(&mut reports, &args.paths, &|k| std::env::var(k).ok());
    if reports.is_empty() {
        // Saying nothing and succeeding would read as "all valid".
        let names: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
        return Err(sanitize::terminal(&format!(
            "no sequence files (.json, .yaml, .yml, .toml, .mmd) found in {}",
            names.join(", ")
        ))
        .into());
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&reports)?)?;
    } else {
        // Messages quote sequence files (names, keys, tools) and paths.
        out!("{}", sanitize::terminal(&render_text(&reports)))?;
    }
    Ok(if failed(&reports) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The project's sequences — named, or files in its `.seed/` — checked against its Claude Code
/// configuration (a folder of sequences elsewhere is no project's, the built-ins listed alone
/// neither).
fn add_server_warnings(reports: &mut [FileReport], paths: &[PathBuf]) {
    let root = super::install::project_root();
    let reading = hosted::read(&root, &|k| std::env::var(k).ok());
    let own = std::fs::canonicalize(root.join(".seed")).ok();
    for r in reports.iter_mut().filter(|r| r.sequence.is_some()) {
        let src = Path::new(&r.source);
        let ours = own
            .as_ref()
            .is_some_and(|o| std::fs::canonicalize(src).is_ok_and(|f| f.starts_with(o)));
        let named = !src.exists() && paths.iter().any(|p| p == src);
        let loaded = match (ours, named) {
            (true, _) => dialects::load_path(src),
            (false, true) => dialects::resolve(&r.source, &dialects::sequence_search_dirs()),
            (false, false) => continue,
        };
        if let Ok(l) = loaded {
            r.lints
                .extend(server_lints(&Machine::new(l.chart), &reading));
        }
    }
}

/// A warning per MCP server `machine` calls that the configuration lacks or has not approved,
/// and (when it calls any) per configuration file that could not be read.
fn server_lints(machine: &Machine, reading: &hosted::Reading) -> Vec<Lint> {
    let found = hosted::findings(machine, reading);
    let mut lints: Vec<Lint> = found
        .iter()
        .filter(|f| matches!(f.provided, Provided::No | Provided::Unapproved))
        .map(|f| {
            let fix = f.fix().map(|x| format!("; fix: {x}")).unwrap_or_default();
            Lint::warning("mcp-server", format!("{}{fix}", f.line()), None)
        })
        .collect();
    if !found.is_empty() {
        lints.extend(reading.problems.iter().map(|p| {
            Lint::warning(
                "claude-config",
                format!("Claude Code configuration: {p}"),
                None,
            )
        }));
    }
    lints
}
