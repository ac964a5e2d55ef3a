//! Every built-in and project sequence with its dialect, size and description: the list
//! `seed sequences` prints and the MCP `sequences` tool answers.

use serde::Serialize;

use super::sanitize;
use crate::dialects;
use crate::dialects::sequence_search_dirs;

#[derive(Debug, Serialize)]
pub struct SequenceInfo {
    pub name: String,
    pub dialect: String,
    pub states: usize,
    pub transitions: usize,
    pub source: String,
    pub description: String,
}

/// Built-ins first, then project sequences (a project file shadows a built-in of the same name).
pub fn list() -> Vec<Result<SequenceInfo, dialects::LoadError>> {
    let mut out: Vec<Result<SequenceInfo, dialects::LoadError>> = Vec::new();
    let info = |l: dialects::Loaded| SequenceInfo {
        name: l.chart.name.clone(),
        dialect: l.chart.dialect.as_str().to_string(),
        states: l.chart.states.len().saturating_sub(1),
        transitions: l.chart.transitions.len(),
        source: l.source.clone(),
        description: l.chart.description.clone(),
    };
    for name in dialects::builtin_names() {
        if let Some(r) = dialects::builtin(&name) {
            out.push(r.map(info));
        }
    }
    for dir in sequence_search_dirs() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        paths.sort();
        for p in paths {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !["json", "yaml", "yml", "toml", "mmd"].contains(&ext) {
                continue;
            }
            let r = dialects::load_path(&p).map(info);
            if let Ok(i) = &r {
                out.retain(|o| o.as_ref().map_or(true, |x| x.name != i.name));
            }
            out.push(r);
        }
    }
    out
}

pub fn render_text(list: &[Result<SequenceInfo, dialects::LoadError>]) -> String {
    let mut s = String::new();
    for item in list {
        match item {
            // One line per field: a name or description from a file cannot forge a row.
            Ok(i) => s.push_str(&format!(
                "{:<26} {:<13} {:>3} states  {}\n{:26} {}\n",
                sanitize::clean(&i.name, 200),
                i.dialect,
                i.states,
                sanitize::clean(&i.source, 400),
                "",
                sanitize::clean(&i.description, 2000)
            )),
            Err(e) => s.push_str(&format!(
                "error: {}\n",
                sanitize::escape(&e.to_string(), 2000)
            )),
        }
    }
    s
}

pub fn to_json(list: &[Result<SequenceInfo, dialects::LoadError>]) -> Vec<serde_json::Value> {
    list.iter()
        .map(|r| match r {
            Ok(i) => serde_json::to_value(i).unwrap_or_default(),
            Err(e) => serde_json::json!({ "error": e.to_string() }),
        })
        .collect()
}
