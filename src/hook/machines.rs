//! The configured sequences, loaded and compiled for stepping, with the overrides applied.

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::dialects;
use crate::engine::Machine;
use crate::store::paths::safe_component;

/// One sequence the hook steps.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// Unique name in this hook (the chart's name; `-2`, `-3`… when two share one); names
    /// the snapshot file.
    pub name: String,
    /// `builtin:<file>` or the path read.
    pub source: String,
    pub machine: Machine,
}

/// Where named sequences are looked up before the built-ins.
pub fn search_dirs(project_dir: Option<&Path>, state: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(p) = project_dir {
        dirs.push(p.join(".seed").join("sequences"));
    }
    dirs.push(state.join("sequences"));
    dirs
}

pub fn load_machines(
    cfg: &Config,
    project_dir: Option<&Path>,
    state: &Path,
) -> Result<Vec<Loaded>, dialects::LoadError> {
    let dirs = search_dirs(project_dir, state);
    let mut out: Vec<Loaded> = Vec::with_capacity(cfg.sequences.len());
    for entry in &cfg.sequences {
        let (machine, source) = super::cache::machine(entry, &dirs, cfg, state)?;
        let base = safe_component(&machine.chart.name);
        let mut name = base.clone();
        let mut n = 1;
        while out.iter().any(|l| l.name == name) {
            n += 1;
            name = format!("{base}-{n}");
        }
        out.push(Loaded {
            name,
            source,
            machine,
        });
    }
    Ok(out)
}

/// Events whose answer can carry text for the agent (a refusal, a guidance line, a held turn).
const WORDED: &[&str] = &[
    "PreToolUse",
    "UserPromptSubmit",
    "SessionStart",
    "Stop",
    "SubagentStop",
];

/// Tell each machine which MCP servers Claude Code's configuration gives sessions in the
/// project, so its texts name calls the agent can make (`mcp__anchor__odyssean_anchor`) and say
/// when a step's server is missing. Read only for an answer that words calls, and only when a
/// sequence calls MCP servers at all: `~/.claude.json` can be large.
pub fn host(
    loaded: &mut [Loaded],
    event: &str,
    project_dir: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) {
    let needs = loaded.iter().any(|l| !l.machine.server_needs().is_empty());
    let Some(project) = project_dir.filter(|_| needs && WORDED.contains(&event)) else {
        return;
    };
    let hosted = crate::hosted::read(project, env).hosted;
    for l in loaded {
        l.machine.set_hosted(hosted.clone());
    }
}
