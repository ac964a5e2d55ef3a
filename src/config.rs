//! Configuration in explicit layers (no framework): built-in defaults, then the user's
//! `<config dir>/seed/config.toml`, then the project's `.seed.toml` (found walking up from
//! `$CLAUDE_PROJECT_DIR`, else the payload's `cwd`), then `SEED_*` variables, then flags.
//! The sequence list is the one exception, as the hook interface promises: a flag, else the
//! project's file, else `SEED_SEQUENCE`, else the user's file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::dialects::locate::line_col_of_offset;
use crate::engine::Chart;
use crate::engine::ir::{Enforcement, FailMode, OffPathPolicy};

pub const PROJECT_FILE: &str = ".seed.toml";
pub const DEFAULT_INJECT_EVERY: u32 = 10;
pub const DEFAULT_RESPONSE_LIMIT: usize = 16 * 1024;
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// One line, naming the file and line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StopConfig {
    pub block_until_final: Option<bool>,
    pub max_blocks: Option<u32>,
}

/// Per-sequence overrides (`[overrides.<sequence name>]`).
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

/// One configuration file as written.
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
    pub stop: Option<StopConfig>,
    pub overrides: BTreeMap<String, Override>,
}

impl FileConfig {
    fn sequence_list(&self) -> Option<Vec<String>> {
        match (&self.sequence, &self.sequences) {
            (Some(OneOrMany::One(s)), _) => Some(vec![s.clone()]),
            (Some(OneOrMany::Many(v)), _) => Some(v.clone()),
            (None, Some(v)) => Some(v.clone()),
            (None, None) => None,
        }
    }
}

/// Parse one file; sequence paths are made absolute against the file's directory.
pub fn parse_file(path: &Path, text: &str) -> Result<FileConfig, ConfigError> {
    let mut cfg: FileConfig = toml::from_str(text).map_err(|e| {
        let (line, col) = e
            .span()
            .map(|s| line_col_of_offset(text, s.start))
            .unwrap_or((1, 1));
        let msg = e.message().replace('\n', " ");
        ConfigError(format!("{}:{line}:{col}: {}", path.display(), msg.trim()))
    })?;
    if cfg.sequence.is_some() && cfg.sequences.is_some() {
        return Err(ConfigError(format!(
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
    Ok(cfg)
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

fn read_file(path: &Path) -> Result<Option<FileConfig>, ConfigError> {
    match crate::store::paths::read_bounded(path, MAX_CONFIG_BYTES) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            parse_file(path, &text).map(Some)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ConfigError(format!("{}: {e}", path.display()))),
    }
}

/// Layer `over` on top of `base`, field by field.
pub fn layer(base: FileConfig, over: FileConfig) -> FileConfig {
    let mut overrides = base.overrides;
    for (k, o) in over.overrides {
        let b = overrides.remove(&k).unwrap_or_default();
        overrides.insert(
            k,
            Override {
                enforcement: o.enforcement.or(b.enforcement),
                off_path: o.off_path.or(b.off_path),
                stop: layer_stop(b.stop, o.stop),
            },
        );
    }
    let sequence_set = over.sequence.is_some() || over.sequences.is_some();
    FileConfig {
        sequence: if sequence_set {
            over.sequence
        } else {
            base.sequence
        },
        sequences: if sequence_set {
            over.sequences
        } else {
            base.sequences
        },
        enforcement: over.enforcement.or(base.enforcement),
        off_path: over.off_path.or(base.off_path),
        fail: over.fail.or(base.fail),
        inject_every: over.inject_every.or(base.inject_every),
        emit_allow: over.emit_allow.or(base.emit_allow),
        response_limit: over.response_limit.or(base.response_limit),
        stop: layer_stop(base.stop, over.stop),
        overrides,
    }
}

fn layer_stop(base: Option<StopConfig>, over: Option<StopConfig>) -> Option<StopConfig> {
    match (base, over) {
        (None, x) | (x, None) => x,
        (Some(b), Some(o)) => Some(StopConfig {
            block_until_final: o.block_until_final.or(b.block_until_final),
            max_blocks: o.max_blocks.or(b.max_blocks),
        }),
    }
}

/// The first ancestor of `start` (itself included) holding a `.seed.toml`.
pub fn find_project_file(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|d| d.join(PROJECT_FILE))
        .find(|p| p.is_file())
}

/// `$SEED_CONFIG_DIR/config.toml`, else `<config dir>/seed/config.toml`.
pub fn user_config_path(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(d) = env("SEED_CONFIG_DIR").filter(|s| !s.is_empty()) {
        return Some(PathBuf::from(d).join("config.toml"));
    }
    if let Some(d) = env("XDG_CONFIG_HOME").filter(|s| !s.is_empty()) {
        return Some(PathBuf::from(d).join("seed").join("config.toml"));
    }
    use etcetera::BaseStrategy;
    let base = etcetera::choose_base_strategy().ok()?;
    Some(base.config_dir().join("seed").join("config.toml"))
}

/// Values given on the command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flags {
    pub sequence: Option<String>,
    pub enforcement: Option<String>,
    pub fail: Option<String>,
}

/// The configuration in force.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Sequence names or paths, stepped in this order.
    pub sequences: Vec<String>,
    pub enforcement: Option<Enforcement>,
    pub off_path: Option<OffPathPolicy>,
    /// `None`: each sequence's own `fail` setting.
    pub fail: Option<FailMode>,
    pub inject_every: u32,
    pub emit_allow: bool,
    pub response_limit: usize,
    pub stop: Option<StopConfig>,
    pub overrides: BTreeMap<String, Override>,
    /// Directory of the project's `.seed.toml`, if one was found.
    pub project_root: Option<PathBuf>,
    /// Files read, lowest layer first.
    pub files: Vec<PathBuf>,
}

fn parse_enum<T: for<'de> Deserialize<'de>>(what: &str, v: &str) -> Result<T, ConfigError> {
    T::deserialize(serde::de::value::StrDeserializer::<serde::de::value::Error>::new(v.trim()))
        .map_err(|_| ConfigError(format!("{what}: unknown value `{v}`")))
}

fn split_list(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// Load every layer. `start_dirs` are searched in order for a `.seed.toml`.
pub fn load(
    start_dirs: &[PathBuf],
    env: &dyn Fn(&str) -> Option<String>,
    flags: &Flags,
) -> Result<Config, ConfigError> {
    let mut files = Vec::new();
    let user_path = user_config_path(env);
    let user = match &user_path {
        Some(p) => read_file(p)?,
        None => None,
    };
    if user.is_some() {
        files.extend(user_path);
    }
    let project_path = start_dirs.iter().find_map(|d| find_project_file(d));
    let project = match &project_path {
        Some(p) => read_file(p)?,
        None => None,
    };
    if project.is_some() {
        files.extend(project_path.clone());
    }
    let user_seq = user.as_ref().and_then(FileConfig::sequence_list);
    let project_seq = project.as_ref().and_then(FileConfig::sequence_list);
    let merged = layer(user.unwrap_or_default(), project.unwrap_or_default());

    let var = |k: &str| env(k).filter(|v| !v.trim().is_empty());
    let env_seq = var("SEED_SEQUENCE").map(|v| split_list(&v));
    let sequences = flags
        .sequence
        .as_deref()
        .map(split_list)
        .or(project_seq)
        .or(env_seq)
        .or(user_seq)
        .unwrap_or_default();

    let mut enforcement = merged.enforcement;
    let mut fail = merged.fail;
    let mut off_path = merged.off_path;
    let mut inject_every = merged.inject_every.unwrap_or(DEFAULT_INJECT_EVERY);
    if let Some(v) = var("SEED_ENFORCEMENT") {
        enforcement = Some(parse_enum("SEED_ENFORCEMENT", &v)?);
    }
    if let Some(v) = var("SEED_FAIL") {
        fail = Some(parse_enum("SEED_FAIL", &v)?);
    }
    if let Some(v) = var("SEED_OFF_PATH") {
        off_path = Some(parse_enum("SEED_OFF_PATH", &v)?);
    }
    if let Some(v) = var("SEED_INJECT_EVERY") {
        inject_every = v
            .trim()
            .parse()
            .map_err(|_| ConfigError(format!("SEED_INJECT_EVERY: not a number: `{v}`")))?;
    }
    if let Some(v) = &flags.enforcement {
        enforcement = Some(parse_enum("--enforcement", v)?);
    }
    if let Some(v) = &flags.fail {
        fail = Some(parse_enum("--fail", v)?);
    }
    Ok(Config {
        sequences,
        enforcement,
        off_path,
        fail,
        inject_every,
        emit_allow: merged.emit_allow.unwrap_or(false),
        response_limit: merged.response_limit.unwrap_or(DEFAULT_RESPONSE_LIMIT),
        stop: merged.stop,
        overrides: merged.overrides,
        project_root: project_path.and_then(|p| p.parent().map(Path::to_path_buf)),
        files,
    })
}

impl Config {
    /// The fail mode before any chart is loaded (seed's own errors while loading one).
    pub fn fail_mode(&self) -> FailMode {
        self.fail.unwrap_or_default()
    }

    /// Apply the overrides to a chart's settings: global ones, then the chart's own section.
    pub fn apply(&self, chart: &mut Chart) {
        let s = &mut chart.settings;
        let per = self.overrides.get(&chart.name);
        if let Some(e) = per.and_then(|o| o.enforcement).or(self.enforcement) {
            s.enforcement = e;
        }
        if let Some(o) = per.and_then(|o| o.off_path).or(self.off_path) {
            s.off_path = o;
        }
        if let Some(f) = self.fail {
            s.fail = f;
        }
        for stop in [self.stop.as_ref(), per.and_then(|o| o.stop.as_ref())]
            .into_iter()
            .flatten()
        {
            if let Some(b) = stop.block_until_final {
                s.stop.block_until_final = b;
            }
            if let Some(m) = stop.max_blocks {
                s.stop.max_blocks = m;
            }
        }
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
