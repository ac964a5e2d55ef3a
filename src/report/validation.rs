//! A sequence file loaded and linted, and the report `seed validate` and the MCP `validate`
//! tool give of it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::sanitize;
use crate::dialects;
use crate::engine::Machine;
use crate::engine::lint::{Lint, Severity};

#[derive(Debug, Serialize)]
pub struct FileReport {
    pub source: String,
    pub sequence: Option<String>,
    pub states: usize,
    pub transitions: usize,
    pub lints: Vec<Lint>,
}

impl FileReport {
    pub fn errors(&self) -> usize {
        self.lints
            .iter()
            .filter(|l| l.severity == Severity::Error)
            .count()
    }
}

/// Validate one loaded sequence or a load failure.
pub fn check(source: String, loaded: Result<dialects::Loaded, dialects::LoadError>) -> FileReport {
    match loaded {
        Err(e) => {
            let mut lint = Lint::error(
                "load",
                e.message.clone(),
                (e.line > 0).then_some(crate::engine::ir::Span::at(e.line, e.col)),
            );
            // A manifest's diagram is a file of its own: its errors name it, not the manifest.
            lint.file = (!e.file.is_empty() && e.file != source).then(|| e.file.clone());
            FileReport {
                source,
                sequence: None,
                states: 0,
                transitions: 0,
                lints: vec![lint],
            }
        }
        Ok(l) => {
            let machine = Machine::new(l.chart);
            let mut lints = l.warnings;
            lints.extend(machine.lint());
            for lint in &mut lints {
                if let Some(sp) = lint.span.filter(|sp| sp.file > 0) {
                    lint.file = machine.chart.files.get(usize::from(sp.file) - 1).cloned();
                }
            }
            FileReport {
                source,
                sequence: Some(machine.chart.name.clone()),
                states: machine.chart.states.len().saturating_sub(1),
                transitions: machine.chart.transitions.len(),
                lints,
            }
        }
    }
}

/// The files under `path` (itself, when it is a file), each once: a file named twice, or
/// named and found by a walk, is validated once.
fn collect(path: &Path, out: &mut Vec<PathBuf>, seen: &mut HashSet<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map(|r| r.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for p in entries {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if p.is_dir() || ["json", "yaml", "yml", "toml", "mmd"].contains(&ext) {
                collect(&p, out, seen);
            }
        }
    } else if seen.insert(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())) {
        out.push(path.to_path_buf());
    }
}

pub fn validate_paths(paths: &[PathBuf]) -> Vec<FileReport> {
    if paths.is_empty() {
        return dialects::builtin_names()
            .into_iter()
            .filter_map(|n| dialects::builtin(&n).map(|r| (n, r)))
            .map(|(n, r)| check(format!("builtin:{n}"), r))
            .collect();
    }
    let (mut files, mut seen) = (Vec::new(), HashSet::new());
    // A bare word that is no file is a sequence's name, looked up as every command looks it up
    // (a typo is told the name it most likely meant).
    let mut named = Vec::new();
    for p in paths {
        let bare = p.components().count() == 1 && std::fs::symlink_metadata(p).is_err();
        match (bare, p.to_str()) {
            (true, Some(name)) => named.push(name.to_string()),
            _ => collect(p, &mut files, &mut seen),
        }
    }
    let loaded: Vec<(PathBuf, _)> = files
        .into_iter()
        .map(|f| {
            let l = dialects::load_path(&f);
            (f, l)
        })
        .collect();
    // A diagram a manifest among the files nests (`seed validate sequences/*` names both) is
    // validated through that manifest: on its own it is a fragment (prose edges, no
    // bindings), whose findings would only be noise. Named alone, it is checked on its own.
    let nested: HashSet<PathBuf> = loaded
        .iter()
        .filter_map(|(_, l)| l.as_ref().ok())
        .flat_map(|l| &l.chart.files)
        .filter_map(|f| std::fs::canonicalize(f).ok())
        .collect();
    loaded
        .into_iter()
        .filter(|(f, _)| {
            let diagram = f.extension().is_some_and(|e| e == "mmd");
            !(diagram && std::fs::canonicalize(f).is_ok_and(|c| nested.contains(&c)))
        })
        .map(|(f, l)| check(f.display().to_string(), l))
        .chain(named.into_iter().map(|n| {
            let loaded = dialects::resolve(&n, &dialects::sequence_search_dirs());
            check(n, loaded)
        }))
        .collect()
}

/// "1 error", "2 errors".
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

pub fn render_text(reports: &[FileReport]) -> String {
    let mut s = String::new();
    for r in reports {
        let errors = r.errors();
        let warnings = r.lints.len() - errors;
        match &r.sequence {
            Some(name) => s.push_str(&format!(
                "{} {}: \"{}\", {}, {}, {}, {}\n",
                if errors == 0 { "ok  " } else { "FAIL" },
                sanitize::clean(&r.source, 1000),
                sanitize::clean(name, 200),
                count(r.states, "state"),
                count(r.transitions, "transition"),
                count(errors, "error"),
                count(warnings, "warning"),
            )),
            None => s.push_str(&format!("FAIL {}\n", sanitize::clean(&r.source, 1000))),
        }
        for l in &r.lints {
            let sev = match l.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            // One line per lint: a message or path quoting a file cannot forge another.
            let at = l
                .span
                .map(|sp| {
                    let file = l.file.as_deref().unwrap_or(&r.source);
                    format!("{}:{}:{}", sanitize::escape(file, 1000), sp.line, sp.col)
                })
                .unwrap_or_else(|| sanitize::escape(&r.source, 1000));
            s.push_str(&format!(
                "  {at}: {sev}[{}]: {}\n",
                l.code,
                sanitize::escape(&l.message, 4000)
            ));
        }
    }
    s
}

/// Whether `seed validate` exits 1 (and the MCP `validate` tool answers `isError`).
pub fn failed(reports: &[FileReport]) -> bool {
    reports.iter().any(|r| r.errors() > 0)
}
