//! `seed new NAME [--dialect …]`: a commented skeleton of a sequence, written where sequences
//! are looked up by name (the project's `.seed/sequences/`), never over an existing file.

use std::path::PathBuf;
use std::process::ExitCode;

use super::CmdResult;
use super::install::project_root;
use crate::cli;
use crate::dialects::{self, skeletons};

pub fn run(args: cli::NewArgs) -> CmdResult {
    let name = &args.name;
    if !skeletons::is_name(name) {
        return Err(format!(
            "{name:?}: a sequence name is letters, digits, `_` and `-` (at most 64)"
        )
        .into());
    }
    if dialects::builtin_names()
        .iter()
        .any(|b| b.eq_ignore_ascii_case(name))
    {
        return Err(format!(
            "{name}: a built-in sequence has that name; choose another, or copy the built-in with `seed init --sequence {name}`"
        )
        .into());
    }
    let dialect = match args.dialect {
        cli::DialectArg::Mermaid => skeletons::Dialect::Mermaid,
        cli::DialectArg::Json => skeletons::Dialect::Json,
        cli::DialectArg::Yaml => skeletons::Dialect::Yaml,
    };
    let dir = args
        .dir
        .unwrap_or_else(|| project_root().join(".seed").join("sequences"));
    let files = skeletons::files(name, dialect);
    let paths: Vec<PathBuf> = files.iter().map(|(f, _)| dir.join(f)).collect();
    for p in &paths {
        if std::fs::symlink_metadata(p).is_ok() {
            return Err(format!("{}: already exists; choose another name", p.display()).into());
        }
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    for ((_, text), path) in files.iter().zip(&paths) {
        super::write_new_file(path, text)?;
    }
    let entry = &paths[0];
    outln!(
        "wrote {}",
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" and ")
    )?;
    outln!("check it:  seed validate {}", entry.display())?;
    outln!(
        "use it:    sequence = \"{name}\" in the project's .seed.toml (or `seed init --sequence {name}`)"
    )?;
    Ok(ExitCode::SUCCESS)
}
