//! `seed screenshot SOURCE [--at N | --at-end] [--size COLSxROWS] [--theme NAME]
//! --format svg|png|html|txt|ansi --out FILE`: a frame of the real dashboard, from a session,
//! a session log, a Claude Code transcript, or `demo` (the bundled demo session).

use std::process::ExitCode;

use super::{CmdResult, state_dir};
use crate::cli;
use crate::export::{self, Format};
use crate::replay::{frame, source};
use crate::tui::Theme;

/// The source named `demo` is the bundled demo session.
pub fn load_source(name: &str) -> Result<source::Loaded, String> {
    if name == "demo" && !std::path::Path::new(name).exists() {
        let records = crate::demo::bundled();
        return Ok(source::Loaded {
            kind: source::SourceKind::SessionLog,
            path: "demo".into(),
            session: crate::demo::SESSION_ID.into(),
            tool_calls: records.iter().filter(|r| r.hook == "PreToolUse").count(),
            records,
            skipped: 0,
            subagent_files: Vec::new(),
        });
    }
    source::resolve(name, state_dir().as_deref())
}

pub fn run(args: cli::ScreenshotArgs) -> CmdResult {
    let format: Format = args.format.parse().map_err(|e| format!("{e}"))?;
    let (w, h) = frame::parse_size(&args.size)?;
    let loaded = load_source(&args.source)?;
    let what_if = args.sequence.is_some();
    let machine = super::view::machine_for(&loaded.records, args.sequence.as_deref())?;
    let k = match args.at {
        Some(n) if n > loaded.records.len() => {
            return Err(format!("--at {n}: the source has {} events", loaded.records.len()).into());
        }
        Some(n) => n,
        None => loaded.records.len(),
    };
    let theme_name = args.theme.as_deref().unwrap_or("default");
    let user_dir = crate::config::user_config_path(&|k| std::env::var(k).ok())
        .and_then(|p| p.parent().map(|d| d.to_path_buf()));
    let theme = Theme::select(
        theme_name,
        user_dir.as_deref(),
        crate::tui::theme::no_color_env(),
    )?;
    let model = frame::model_at(&loaded, machine, what_if, &theme.name, k);
    let buf = frame::draw(&model, &theme, w, h);
    let bytes = export::render(&buf, &theme, format)?;
    std::fs::write(&args.out, bytes)
        .map_err(|e| format!("{}: cannot write: {e}", args.out.display()))?;
    eprintln!(
        "seed: wrote {} ({}, {w}x{h}, after {k} of {} events)",
        args.out.display(),
        format,
        loaded.records.len()
    );
    Ok(ExitCode::SUCCESS)
}
