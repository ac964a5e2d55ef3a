//! `seed learn SOURCE…`: draft a sequence from past sessions (see `learn`), print what it
//! would have refused, and with `--out` write it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::CmdResult;
use crate::cli;
use crate::learn::{self, Options, Thresholds};

pub fn run(args: cli::LearnArgs) -> CmdResult {
    if !(-1.0..=1.0).contains(&args.dependency) {
        return Err(format!(
            "--dependency {}: expected a number from -1 to 1",
            args.dependency
        )
        .into());
    }
    let files = match &args.out {
        Some(out) => Some(out_files(out)?),
        None => None,
    };
    let name = match (&args.name, &files) {
        (Some(n), _) => n.clone(),
        (None, Some((manifest, _))) => stem(manifest),
        (None, None) => "learned".to_string(),
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))
    {
        return Err(
            format!("--name {name:?}: a sequence name is letters, digits, `_` and `-`").into(),
        );
    }
    let opts = Options {
        name,
        thresholds: Thresholds {
            min_count: args.min_count,
            dependency: args.dependency,
        },
    };
    let learned = learn::learn(&args.sources, &opts)?;
    if let Some((manifest, diagram)) = &files {
        // The manifest names its diagram by the file name it is written under.
        let text = learned.draft.manifest.replace(
            &format!("diagram = \"{}\"", learned.draft.diagram_file),
            &format!("diagram = \"{}\"", file_name(diagram)),
        );
        super::write_new_file(diagram, &learned.draft.diagram)?;
        super::write_new_file(manifest, &text)?;
    }
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&learn::report::json(&learned))?
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    out!("{}", learn::report::text(&learned))?;
    match &files {
        Some((manifest, diagram)) => outln!(
            "\ndraft written: {} and {} (check it with `seed validate {}`)",
            manifest.display(),
            diagram.display(),
            manifest.display()
        )?,
        None => outln!(
            "\ndraft (--out FILE.toml writes it):\n\n{}\n{}",
            learned.draft.manifest,
            learned.draft.diagram
        )?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `--out x.toml`: the manifest, and `x.mmd` beside it. Neither may exist yet: a draft never
/// replaces a sequence someone edited.
fn out_files(out: &Path) -> Result<(PathBuf, PathBuf), String> {
    if out.extension().and_then(|e| e.to_str()) != Some("toml") {
        return Err(format!(
            "--out {}: name the manifest (`.toml`); its diagram is written beside it (`.mmd`)",
            out.display()
        ));
    }
    let diagram = out.with_extension("mmd");
    for f in [out, diagram.as_path()] {
        if std::fs::symlink_metadata(f).is_ok() {
            return Err(format!(
                "{}: already exists; choose another --out or remove it",
                f.display()
            ));
        }
    }
    Ok((out.to_path_buf(), diagram))
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("learned")
        .to_string()
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string()
}
