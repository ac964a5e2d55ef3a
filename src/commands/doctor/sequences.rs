//! The sequences the configuration names (what a hook installed without `--sequence` steps):
//! the project's `.seed.toml`, else `SEED_SEQUENCE`, else the user's file, as the hook
//! chooses. Each must load; one that does not is named where it is written, with the name
//! most likely meant.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::commands::install::checks;
use crate::config;

/// Where the configured list comes from, and the list.
pub fn configured(project: &Path) -> Option<(String, Vec<String>)> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let from_file = |path: PathBuf| -> Option<(String, Vec<String>)> {
        let parsed = config::read_file(&path).ok()??;
        let list = parsed.config.sequence_list()?;
        let at = ["sequence", "sequences"]
            .iter()
            .find_map(|k| parsed.at.get(*k).cloned())
            .unwrap_or_else(|| path.display().to_string());
        Some((at, list))
    };
    if let Some(found) = config::find_project_file(project).and_then(from_file) {
        return Some(found);
    }
    if let Some(v) = env("SEED_SEQUENCE") {
        let list = v.split(',').map(|s| s.trim().to_string()).collect();
        return Some(("SEED_SEQUENCE".into(), list));
    }
    config::user_config_path(&|k| std::env::var(k).ok()).and_then(from_file)
}

/// One check per configured sequence: `{ "at", "sequence", "ok", "problem", "fix" }`.
pub fn check(project: &Path) -> Vec<Value> {
    let Some((at, list)) = configured(project) else {
        return Vec::new();
    };
    list.iter()
        .filter(|name| !name.trim().is_empty())
        .map(|name| match checks::sequence(name, project) {
            Ok(()) => json!({ "at": at, "sequence": name, "ok": true }),
            Err(e) => {
                let meant = e
                    .message
                    .split("did you mean `")
                    .nth(1)
                    .and_then(|r| r.split('`').next());
                let fix = match (meant, at.as_str()) {
                    (Some(m), "SEED_SEQUENCE") => format!("export SEED_SEQUENCE={m}"),
                    (Some(m), _) => format!("write `{m}` instead of `{name}` at {at}"),
                    (None, _) if e.message.starts_with("no such sequence") => {
                        "name a sequence that exists (`seed sequences` lists them)".to_string()
                    }
                    (None, _) => format!("`seed validate {name}` shows where it breaks"),
                };
                json!({ "at": at, "sequence": name, "ok": false,
                        "problem": e.to_string(), "fix": fix })
            }
        })
        .collect()
}
