//! `seed screenshot SOURCE [--at N | --at-end] [--size COLSxROWS] [--theme NAME]
//! --format svg|png|html|txt|ansi --out FILE`: a frame of the real dashboard, from a session,
//! a session log, a Claude Code transcript, or `demo` (the bundled demo session).

use std::process::ExitCode;

use super::CmdResult;
use super::replay::load_source;
use crate::cli;
use crate::export::{self, Format};
use crate::replay::frame;
use crate::tui::Theme;

pub fn run(args: cli::ScreenshotArgs) -> CmdResult {
    let format: Format = args.format.parse().map_err(|e| format!("{e}"))?;
    let (w, h) = frame::parse_size(&args.size)?;
    let loaded = load_source(&args.source)?;
    let total = loaded.records.len();
    let k = match args.at {
        Some(n) if n > total => {
            return Err(format!("--at {n}: the source has {total} events").into());
        }
        Some(n) => n,
        None => total,
    };
    let opts = crate::tui::start::Options {
        sequence: args.sequence.clone(),
        ..super::tui::options()?
    };
    let (target, records) = crate::tui::start::replay_loaded(&opts, loaded)?;
    for n in &target.notices {
        eprintln!("seed: {n}");
    }
    let theme_name = args.theme.as_deref().unwrap_or("default");
    let user_dir = crate::config::user_config_path(&|k| std::env::var(k).ok())
        .and_then(|p| p.parent().map(|d| d.to_path_buf()));
    let theme = Theme::select(
        theme_name,
        user_dir.as_deref(),
        crate::theme::no_color_env(),
    )?;
    let model = frame::replay_at(target.info, target.seqs, records, &theme.name, k);
    let buf = frame::draw(&model, &theme, w, h);
    let bytes = export::render(&buf, &theme, format)?;
    std::fs::write(&args.out, bytes)
        .map_err(|e| format!("{}: cannot write: {e}", args.out.display()))?;
    eprintln!(
        "seed: wrote {} ({}, {w}x{h}, after {k} of {} events)",
        args.out.display(),
        format,
        total
    );
    Ok(ExitCode::SUCCESS)
}
