//! `seed validate`: load each sequence and lint it. Exit 1 on errors; warnings are printed.

use std::process::ExitCode;

use super::CmdResult;
use crate::report::sanitize;
use crate::report::validation::{failed, render_text, validate_paths};

pub fn run(args: crate::cli::ValidateArgs) -> CmdResult {
    let reports = validate_paths(&args.paths);
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
