//! What `seed install` refuses before it writes anything: a sequence the hooks could not load
//! (every hook would fail open and the agent would run unguarded), and hooks that would run a
//! `seed` the shell cannot find.

use std::path::Path;

use crate::dialects;
use crate::engine::ir::FailMode;
use crate::hook::machines::search_dirs;

/// Each sequence of a `--sequence` list (comma-separated, as the hook reads it) loads from the
/// project as the hook will load it: a path relative to the project, a file of the project's
/// `.seed/sequences` or the state directory's `sequences`, or a built-in. The first that does
/// not is the error, naming the sequence most likely meant.
pub fn sequences(list: &str, project: &Path) -> Result<(), String> {
    let names: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if names.is_empty() {
        return Err("--sequence: no sequence named; give NAME or PATH".into());
    }
    for name in names {
        sequence(name, project).map_err(|e| format!("--sequence {e}"))?;
    }
    Ok(())
}

/// One sequence name or path, loaded as a hook running in `project` loads it.
pub fn sequence(name: &str, project: &Path) -> Result<(), dialects::LoadError> {
    load(name, project).map(|_| ())
}

/// Whether the hooks of `project` fail closed: `fail = "closed"` in its configuration (or
/// `SEED_FAIL`), or, when that names no fail mode, in one of its sequences (`--sequence`
/// first). Claude Code must then block a call when the hook itself cannot answer.
pub fn fails_closed(sequence_flag: Option<&str>, project: &Path) -> bool {
    let env = |k: &str| std::env::var(k).ok();
    let flags = crate::config::Flags {
        sequence: sequence_flag.map(String::from),
        ..Default::default()
    };
    let cfg = match crate::config::load(&[project.to_path_buf()], &env, &flags) {
        Ok(c) => c,
        Err(e) => return e.fail == Some(FailMode::Closed),
    };
    match cfg.fail {
        Some(f) => f == FailMode::Closed,
        None => cfg.sequences.iter().any(|name| {
            load(name, project).is_ok_and(|l| l.chart.settings.fail == FailMode::Closed)
        }),
    }
}

/// [`sequence`], the loaded sequence kept.
pub fn load(name: &str, project: &Path) -> Result<dialects::Loaded, dialects::LoadError> {
    let state = crate::store::paths::state_dir().ok();
    let dirs = match &state {
        Some(s) => search_dirs(Some(project), s),
        None => vec![project.join(".seed").join("sequences")],
    };
    let in_project = project.join(name);
    let as_given = if Path::new(name).is_relative() && in_project.is_file() {
        in_project.display().to_string()
    } else {
        name.to_string()
    };
    dialects::resolve(&as_given, &dirs)
}

/// Hooks that run `seed` from PATH need one there: without it every hook fails (exit 127)
/// and nothing is enforced. `--bin` names the executable instead.
pub fn on_path(bin: &str) -> Result<(), String> {
    if bin != "seed" || super::seed_on_path().is_some() {
        return Ok(());
    }
    let me = std::env::current_exe()
        .map(|p| super::shell_quote(&p.display().to_string()))
        .unwrap_or_else(|_| "/path/to/seed".into());
    Err(format!(
        "`seed` is not on PATH, so Claude Code could not run the hooks: put it there (`cargo install --path .` in seed's checkout) or pass --bin {me}; nothing was written"
    ))
}

/// A warning (`seed: warning: …`) for each MCP server the installed sequences call that Claude
/// Code's configuration for `project` does not provide: those steps would wait forever. The
/// sequences are `list` (`--sequence`), else the configured ones.
pub fn missing_servers(list: Option<&str>, project: &Path) -> Vec<String> {
    let env = |k: &str| std::env::var(k).ok();
    let names: Vec<String> = match list {
        Some(l) => l.split(',').map(|s| s.trim().to_string()).collect(),
        None => crate::config::load(
            &[project.to_path_buf()],
            &env,
            &crate::config::Flags::default(),
        )
        .map(|c| c.sequences)
        .unwrap_or_default(),
    };
    let reading = crate::hosted::read(project, &env);
    let mut out = Vec::new();
    for name in names.iter().filter(|n| !n.is_empty()) {
        let Ok(loaded) = load(name, project) else {
            continue;
        };
        let machine = crate::engine::Machine::new(loaded.chart);
        for f in crate::hosted::findings(&machine, &reading) {
            if f.provided == crate::hosted::Provided::No {
                let fix = f.fix().map(|x| format!("; fix: {x}")).unwrap_or_default();
                out.push(crate::report::sanitize::clean(
                    &format!("seed: warning: sequence {name} {}{fix}", f.line()),
                    2000,
                ));
            }
        }
    }
    out
}
