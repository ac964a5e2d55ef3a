//! Configuration in explicit layers (no framework). Lowest first: built-in defaults (the
//! sequence's own settings), the user's `<config dir>/seed/config.toml`, the project's
//! `.seed.toml` (found walking up from `$CLAUDE_PROJECT_DIR`, else the payload's `cwd`), then
//! `SEED_*` variables, then flags. Within a file, a sequence's `[overrides.NAME]` section
//! beats the file's project-wide keys; a higher layer beats everything below it, so a flag
//! or variable beats a per-sequence override. The sequence list is the one exception, as the
//! hook interface promises: a flag, else the project's file, else `SEED_SEQUENCE`, else the
//! user's file.

#![warn(clippy::too_many_lines)] // Past 80 lines (clippy.toml) a function is split or says why.

pub mod fail;
mod file;
pub mod guarded;
mod trust;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::engine::Chart;
use crate::engine::ir::{FailMode, OffPathPolicy};
use fail::FailSources;

pub use file::{FileConfig, OneOrMany, Override, Parsed, StopConfig, parse_file};
pub use guarded::MAX_LOCK_WAIT;

pub const PROJECT_FILE: &str = ".seed.toml";
pub const DEFAULT_INJECT_EVERY: u32 = 10;
pub const DEFAULT_RESPONSE_LIMIT: usize = 16 * 1024;
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// One line, naming the file, line and column. `fail` is the file's own `fail` setting when
/// it could still be read, so a broken fail-closed configuration still fails closed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ConfigError {
    pub message: String,
    pub fail: Option<FailMode>,
}

impl ConfigError {
    pub fn new(message: impl Into<String>) -> ConfigError {
        ConfigError {
            message: message.into(),
            fail: None,
        }
    }
}

/// One configuration file, `None` when it does not exist. A file someone else could have
/// written is refused (`trust`): it steers what the agent may do.
pub fn read_file(path: &Path) -> Result<Option<Parsed>, ConfigError> {
    match crate::store::paths::read_bounded_checked(path, MAX_CONFIG_BYTES, trust::check) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            parse_file(path, &text).map(Some)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ConfigError::new(format!("{}: {e}", path.display()))),
    }
}

fn layer_stop(base: Option<StopConfig>, over: Option<&StopConfig>) -> Option<StopConfig> {
    match (base, over) {
        (b, None) => b,
        (None, Some(o)) => Some(o.clone()),
        (Some(b), Some(o)) => Some(StopConfig {
            block_until_final: o.block_until_final.or(b.block_until_final),
            max_blocks: o.max_blocks.or(b.max_blocks),
        }),
    }
}

/// `over` on top of `base`, field by field.
fn stack(base: Override, over: &Override) -> Override {
    Override {
        enforcement: over.enforcement.or(base.enforcement),
        off_path: over.off_path.or(base.off_path),
        stop: layer_stop(base.stop, over.stop.as_ref()),
    }
}

/// One file's settings: project-wide, and per sequence (which wins within the file).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layer {
    pub global: Override,
    pub per_sequence: BTreeMap<String, Override>,
}

impl Layer {
    fn of(f: &FileConfig) -> Layer {
        Layer {
            global: f.global(),
            per_sequence: f.overrides.clone(),
        }
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
    /// The files' settings, lowest first (the user's, then the project's).
    pub layers: Vec<Layer>,
    /// `SEED_ENFORCEMENT` / `SEED_OFF_PATH`: above every file.
    pub env: Override,
    /// `--enforcement`: above everything.
    pub flags: Override,
    /// `None`: each sequence's own `fail` setting.
    pub fail: Option<FailMode>,
    pub inject_every: u32,
    /// Print an explicit `allow` for a call the sequence expects (advance); only from the
    /// user's file or `SEED_EMIT_ALLOW`, never from a project's.
    pub emit_allow: bool,
    pub response_limit: usize,
    /// How long a hook waits for the session log's lock before it fails (per `fail`), at
    /// most [`MAX_LOCK_WAIT`].
    pub lock_wait: Duration,
    /// How long a hook may work before it answers per `fail` (`hook_budget_ms`).
    pub hook_budget: Duration,
    /// Directory of the project's `.seed.toml`, if one was found.
    pub project_root: Option<PathBuf>,
    /// Files read, lowest layer first.
    pub files: Vec<PathBuf>,
    /// Keys the files hold that this seed does not know, ignored (one line).
    pub warning: Option<String>,
}

/// A file that was read, with its path.
fn read_pair<'a>(path: &'a Option<PathBuf>, p: &'a Option<Parsed>) -> guarded::Read<'a> {
    Some((path.as_deref()?, p.as_ref()?))
}

fn parse_enum<T: for<'de> Deserialize<'de>>(what: &str, v: &str) -> Result<T, ConfigError> {
    T::deserialize(serde::de::value::StrDeserializer::<serde::de::value::Error>::new(v.trim()))
        .map_err(|_| ConfigError::new(format!("{what}: unknown value `{v}`")))
}

fn split_list(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// The two files, each `None` when absent.
struct Files {
    user_path: Option<PathBuf>,
    user: Option<Parsed>,
    project_path: Option<PathBuf>,
    project: Option<Parsed>,
}

/// Both files are read before either error counts, so a broken user file and a broken project
/// file fail by the one rule (`fail`), a broken file's `fail` line read when it can be.
fn read_files(
    start_dirs: &[PathBuf],
    env: &dyn Fn(&str) -> Option<String>,
    flags: &Flags,
) -> Result<Files, ConfigError> {
    let read = |path: &Option<PathBuf>| {
        path.as_deref()
            .map(read_file)
            .transpose()
            .map(Option::flatten)
    };
    let user_path = user_config_path(env);
    let user = read(&user_path);
    let project_path = start_dirs.iter().find_map(|d| find_project_file(d));
    let project = read(&project_path);
    if user.is_err() || project.is_err() {
        let fail_of = |r: &Result<Option<Parsed>, ConfigError>| match r {
            Ok(p) => p.as_ref().and_then(|p| p.config.fail),
            Err(e) => e.fail,
        };
        let seed_fail = env("SEED_FAIL").filter(|v| !v.trim().is_empty());
        let fail = FailSources {
            project: fail_of(&project),
            user: fail_of(&user),
            ..FailSources::early(flags.fail.as_deref(), seed_fail.as_deref())
        }
        .configured();
        let message = [user.err(), project.err()]
            .into_iter()
            .flatten()
            .map(|e| e.message)
            .collect::<Vec<_>>()
            .join("; ");
        return Err(ConfigError { message, fail });
    }
    Ok(Files {
        user_path,
        user: user?,
        project_path,
        project: project?,
    })
}

impl Files {
    /// The files that exist, lowest layer first.
    fn read_paths(&self) -> Vec<PathBuf> {
        let user = self.user.as_ref().and(self.user_path.clone());
        let project = self.project.as_ref().and(self.project_path.clone());
        user.into_iter().chain(project).collect()
    }
}

/// The variables' and flags' layers, and the fail mode by the one rule.
struct Above {
    env: Override,
    flags: Override,
    fail: Option<FailMode>,
}

fn above(
    var: &dyn Fn(&str) -> Option<String>,
    flags: &Flags,
    project: &FileConfig,
    user: &FileConfig,
) -> Result<Above, ConfigError> {
    let mut env = Override::default();
    if let Some(v) = var("SEED_ENFORCEMENT") {
        env.enforcement = Some(parse_enum("SEED_ENFORCEMENT", &v)?);
    }
    if let Some(v) = var("SEED_OFF_PATH") {
        env.off_path = Some(parse_enum::<OffPathPolicy>("SEED_OFF_PATH", &v)?);
    }
    let env_fail = var("SEED_FAIL")
        .map(|v| parse_enum("SEED_FAIL", &v))
        .transpose()?;
    let mut flag_layer = Override::default();
    if let Some(v) = &flags.enforcement {
        flag_layer.enforcement = Some(parse_enum("--enforcement", v)?);
    }
    let flag_fail = flags
        .fail
        .as_deref()
        .map(|v| parse_enum("--fail", v))
        .transpose()?;
    let fail = FailSources {
        flag: flag_fail,
        env: env_fail,
        project: project.fail,
        user: user.fail,
        sequences: None,
    }
    .configured();
    Ok(Above {
        env,
        flags: flag_layer,
        fail,
    })
}

/// The sequences to step: `--sequence`, else the project's, else `SEED_SEQUENCE`, else the
/// user's. A list given explicitly that names nothing (`--sequence=`, `SEED_SEQUENCE=" , "`)
/// is a mistake, not a way to turn enforcement off: its name is returned as the error.
fn sequences(
    var: &dyn Fn(&str) -> Option<String>,
    flags: &Flags,
    project: &FileConfig,
    user: &FileConfig,
) -> (Vec<String>, Option<&'static str>) {
    let env_seq = var("SEED_SEQUENCE").map(|v| split_list(&v));
    let empty = match (&flags.sequence, &env_seq) {
        (Some(v), _) if split_list(v).is_empty() => Some("--sequence"),
        (None, Some(list)) if list.is_empty() && project.sequence_list().is_none() => {
            Some("SEED_SEQUENCE")
        }
        _ => None,
    };
    let list = flags
        .sequence
        .as_deref()
        .map(split_list)
        .or(project.sequence_list())
        .or(env_seq)
        .or(user.sequence_list())
        .unwrap_or_default();
    (list, empty)
}

/// Load every layer. `start_dirs` are searched in order for a `.seed.toml`.
pub fn load(
    start_dirs: &[PathBuf],
    env: &dyn Fn(&str) -> Option<String>,
    flags: &Flags,
) -> Result<Config, ConfigError> {
    let var = |k: &str| env(k).filter(|v| !v.trim().is_empty());
    let f = read_files(start_dirs, env, flags)?;
    let files = f.read_paths();
    let mut warnings: Vec<String> = [&f.user, &f.project]
        .into_iter()
        .flatten()
        .filter_map(|p| p.warning.clone())
        .collect();
    let (user_read, project_read) = (
        read_pair(&f.user_path, &f.user),
        read_pair(&f.project_path, &f.project),
    );
    // Neither is left to a project's file alone: see `guarded`.
    let emit_allow = guarded::emit_allow(
        var("SEED_EMIT_ALLOW").as_deref(),
        user_read,
        project_read,
        &mut warnings,
    );
    let lock_wait = guarded::lock_wait(
        user_read,
        project_read,
        crate::store::log::LOCK_WAIT,
        &mut warnings,
    );
    let hook_budget = guarded::hook_budget(
        var("SEED_HOOK_BUDGET_MS").as_deref(),
        user_read,
        project_read,
        guarded::DEFAULT_HOOK_BUDGET,
        guarded::MAX_HOOK_BUDGET,
        &mut warnings,
    )?;
    let user = f.user.map(|p| p.config).unwrap_or_default();
    let project = f.project.map(|p| p.config).unwrap_or_default();
    let (sequences, empty) = sequences(&var, flags, &project, &user);
    let above = above(&var, flags, &project, &user)?;
    let inject_every = match var("SEED_INJECT_EVERY") {
        Some(v) => v
            .trim()
            .parse()
            .map_err(|_| ConfigError::new(format!("SEED_INJECT_EVERY: not a number: `{v}`")))?,
        None => project
            .inject_every
            .or(user.inject_every)
            .unwrap_or(DEFAULT_INJECT_EVERY),
    };
    if let Some(what) = empty {
        return Err(ConfigError {
            message: format!(
                "{what}: no sequence named; give NAME or PATH (several comma-separated)"
            ),
            fail: above.fail,
        });
    }
    Ok(Config {
        sequences,
        layers: vec![Layer::of(&user), Layer::of(&project)],
        env: above.env,
        flags: above.flags,
        fail: above.fail,
        inject_every,
        emit_allow: emit_allow?,
        response_limit: project
            .response_limit
            .or(user.response_limit)
            .unwrap_or(DEFAULT_RESPONSE_LIMIT)
            // The payload keeps no more of a result than this, so no record can.
            .min(crate::protocol::input::MAX_RESPONSE_KEPT),
        lock_wait,
        hook_budget,
        project_root: f
            .project_path
            .and_then(|p| p.parent().map(Path::to_path_buf)),
        files,
        warning: (!warnings.is_empty()).then(|| warnings.join("; ")),
    })
}

impl Config {
    /// The settings in force for the sequence `name`: each file's project-wide keys then its
    /// `[overrides.name]`, the user's file below the project's, then the variables, then the
    /// flags.
    pub fn settings_for(&self, name: &str) -> Override {
        let mut out = Override::default();
        for l in &self.layers {
            out = stack(out, &l.global);
            if let Some(per) = l.per_sequence.get(name) {
                out = stack(out, per);
            }
        }
        out = stack(out, &self.env);
        stack(out, &self.flags)
    }

    /// Apply the configuration to a chart's settings (what is not configured stays as the
    /// chart has it).
    pub fn apply(&self, chart: &mut Chart) {
        let set = self.settings_for(&chart.name);
        let s = &mut chart.settings;
        if let Some(e) = set.enforcement {
            s.enforcement = e;
        }
        if let Some(o) = set.off_path {
            s.off_path = o;
        }
        if let Some(f) = self.fail {
            s.fail = f;
        }
        if let Some(stop) = set.stop {
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
