//! One configuration file as written. Parsed with positions, so every message is
//! `file:line:col: …`. Unknown keys are warned about and ignored, so a file written for a newer
//! seed still works with an older one; a file that does not parse at all is an error, but its
//! `fail` line is still honoured when it can be read (a fail-closed project stays closed).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::ConfigError;
use crate::dialects::locate::line_col_of_offset;
use crate::engine::ir::{Enforcement, FailMode, OffPathPolicy};

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StopConfig {
    pub block_until_final: Option<bool>,
    pub max_blocks: Option<u32>,
}

/// Per-sequence overrides (`[overrides.<sequence name>]`); also the shape of one layer's
/// project-wide settings.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Override {
    pub enforcement: Option<Enforcement>,
    pub off_path: Option<OffPathPolicy>,
    pub stop: Option<StopConfig>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// One configuration file as written. Unknown keys were taken out (with a warning) before
/// this is deserialized, so `deny_unknown_fields` only catches a key list out of step.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FileConfig {
    /// A sequence name or path, or a list of them (`sequences` is the same key).
    pub sequence: Option<OneOrMany>,
    pub sequences: Option<Vec<String>>,
    pub enforcement: Option<Enforcement>,
    pub off_path: Option<OffPathPolicy>,
    pub fail: Option<FailMode>,
    /// Repeat the guidance line every N prompts even when unchanged (0: only on change).
    pub inject_every: Option<u32>,
    /// Print an explicit `permissionDecision: "allow"` (off: a plain allow prints nothing).
    pub emit_allow: Option<bool>,
    /// Bytes of a tool response kept in the log.
    pub response_limit: Option<usize>,
    /// Milliseconds a hook waits for another to release the session log's lock.
    pub lock_wait_ms: Option<u64>,
    /// Milliseconds a hook may work before it answers by its fail mode.
    pub hook_budget_ms: Option<u64>,
    pub stop: Option<StopConfig>,
    pub overrides: BTreeMap<String, Override>,
}

/// Keys each table may hold (what the structs above deserialize).
const TOP_KEYS: &[&str] = &[
    "sequence",
    "sequences",
    "enforcement",
    "off_path",
    "fail",
    "inject_every",
    "emit_allow",
    "response_limit",
    "lock_wait_ms",
    "hook_budget_ms",
    "stop",
    "overrides",
];
const STOP_KEYS: &[&str] = &["block_until_final", "max_blocks"];
const OVERRIDE_KEYS: &[&str] = &["enforcement", "off_path", "stop"];

impl FileConfig {
    pub fn sequence_list(&self) -> Option<Vec<String>> {
        match (&self.sequence, &self.sequences) {
            (Some(OneOrMany::One(s)), _) => Some(vec![s.clone()]),
            (Some(OneOrMany::Many(v)), _) => Some(v.clone()),
            (None, Some(v)) => Some(v.clone()),
            (None, None) => None,
        }
    }

    /// The project-wide settings of this file.
    pub fn global(&self) -> Override {
        Override {
            enforcement: self.enforcement,
            off_path: self.off_path,
            stop: self.stop.clone(),
        }
    }
}

/// A parsed file and what was ignored in it (at most one line).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    pub config: FileConfig,
    pub warning: Option<String>,
    /// Where each top-level key is written (`path:line:col`), for a message about one setting.
    pub at: BTreeMap<String, String>,
}

impl Parsed {
    /// `path:line:col` of the top-level `key`, else the file itself.
    pub fn place_of(&self, path: &Path, key: &str) -> String {
        self.at
            .get(key)
            .cloned()
            .unwrap_or_else(|| format!("{}:1:1", path.display()))
    }
}

fn position(path: &Path, text: &str, offset: usize) -> String {
    let (line, col) = line_col_of_offset(text, offset);
    format!("{}:{line}:{col}", path.display())
}

fn error_at(path: &Path, text: &str, e: &toml::de::Error) -> String {
    let at = e.span().map(|s| s.start).unwrap_or(0);
    let msg = e.message().replace('\n', " ");
    format!("{}: {}", position(path, text, at), msg.trim())
}

/// The tables of a configuration file, by the keys they may hold.
#[derive(Clone, Copy, PartialEq)]
enum Table {
    Top,
    Stop,
    Override,
}

impl Table {
    fn keys(self) -> &'static [&'static str] {
        match self {
            Table::Top => TOP_KEYS,
            Table::Stop => STOP_KEYS,
            Table::Override => OVERRIDE_KEYS,
        }
    }
}

/// Take the keys `kind` does not hold out of `table`, and out of the tables inside it, noting
/// each as its dotted name with its offset.
fn drop_unknown(
    table: &mut DeTable<'_>,
    kind: Table,
    prefix: &str,
    out: &mut Vec<(String, usize)>,
) {
    let unknown: Vec<(String, usize)> = table
        .iter()
        .filter(|(k, _)| !kind.keys().contains(&k.get_ref().as_ref()))
        .map(|(k, _)| (k.get_ref().to_string(), k.span().start))
        .collect();
    for (k, at) in unknown {
        table.remove(k.as_str());
        out.push((format!("{prefix}{k}"), at));
    }
    for (k, v) in table.iter_mut() {
        let name = k.get_ref().as_ref();
        let DeValue::Table(t) = v.get_mut() else {
            continue;
        };
        match (kind, name) {
            (Table::Top | Table::Override, "stop") => {
                drop_unknown(t, Table::Stop, &format!("{prefix}stop."), out)
            }
            (Table::Top, "overrides") => {
                for (seq, o) in t.iter_mut() {
                    let inner = format!("overrides.{}.", seq.get_ref());
                    if let DeValue::Table(ot) = o.get_mut() {
                        drop_unknown(ot, Table::Override, &inner, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The `fail` setting of a document that did not parse, when its line could be read.
fn salvage_fail(doc: &Spanned<DeTable<'_>>) -> Option<FailMode> {
    match doc.get_ref().get("fail").map(Spanned::get_ref) {
        Some(DeValue::String(s)) if s == "closed" => Some(FailMode::Closed),
        Some(DeValue::String(s)) if s == "open" => Some(FailMode::Open),
        _ => None,
    }
}

/// Parse one file; sequence paths are made absolute against the file's directory.
pub fn parse_file(path: &Path, text: &str) -> Result<Parsed, ConfigError> {
    let (mut doc, errors) = DeTable::parse_recoverable(text);
    if let Some(e) = errors.first() {
        return Err(ConfigError {
            message: error_at(path, text, e),
            fail: salvage_fail(&doc),
        });
    }
    let mut unknown = Vec::new();
    drop_unknown(doc.get_mut(), Table::Top, "", &mut unknown);
    unknown.sort_by_key(|(_, at)| *at);
    let warning = unknown.first().map(|(_, at)| {
        let names: Vec<String> = unknown.iter().map(|(k, _)| format!("`{k}`")).collect();
        format!(
            "{}: unknown key{} {} ignored (a setting of a newer seed?)",
            position(path, text, *at),
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        )
    });
    let fail = salvage_fail(&doc);
    let at = doc
        .get_ref()
        .iter()
        .map(|(k, _)| {
            let place = position(path, text, k.span().start);
            (k.get_ref().to_string(), place)
        })
        .collect();
    let mut cfg =
        FileConfig::deserialize(toml::de::Deserializer::from(doc)).map_err(|e| ConfigError {
            message: error_at(path, text, &e),
            fail,
        })?;
    if cfg.sequence.is_some() && cfg.sequences.is_some() {
        return Err(ConfigError::new(format!(
            "{}:1:1: give `sequence` or `sequences`, not both",
            path.display()
        )));
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let fix = |s: &String| absolutize(s, base);
    cfg.sequence = match cfg.sequence.take() {
        Some(OneOrMany::One(s)) => Some(OneOrMany::One(fix(&s))),
        Some(OneOrMany::Many(v)) => Some(OneOrMany::Many(v.iter().map(fix).collect())),
        None => None,
    };
    cfg.sequences = cfg.sequences.map(|v| v.iter().map(fix).collect());
    Ok(Parsed {
        config: cfg,
        warning,
        at,
    })
}

/// A sequence entry that looks like a path (has a separator or a file extension) is taken
/// relative to `base`; a bare name stays a name.
fn absolutize(entry: &str, base: &Path) -> String {
    let looks_like_path =
        entry.contains('/') || entry.contains('\\') || Path::new(entry).extension().is_some();
    if looks_like_path && Path::new(entry).is_relative() {
        base.join(entry).display().to_string()
    } else {
        entry.to_string()
    }
}
