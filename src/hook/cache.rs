//! The compiled-chart cache: loading a sequence (parse, build, spans) and fingerprinting the
//! chart cost more than the rest of the hook, so the compiled chart and its fingerprint are
//! kept in `<state>/cache/charts/`, keyed by everything that could change them: seed's own
//! executable, the sequence source (embedded text, or the file and its siblings' sizes and
//! times), and the configuration overrides. A key mismatch or an unreadable entry is a miss.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::dialects;
use crate::engine::{Chart, Compiled, Machine};
use crate::store::paths;

/// Extensions `dialects::resolve` tries for a name in a search directory, in its order.
const ENTRY_EXTENSIONS: &[&str] = &["json", "yaml", "yml", "toml", "mmd"];
const MAX_CACHE_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    source: String,
    compiled: Compiled,
    chart: Chart,
}

fn stamp(out: &mut String, p: &Path) {
    if let Ok(m) = std::fs::metadata(p) {
        let t = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let _ = write!(out, "{}:{}:{};", p.display(), m.len(), t);
    }
}

/// The file `dialects::resolve` would read for `entry`, or the built-in's embedded text.
fn source_key(entry: &str, dirs: &[PathBuf]) -> Option<String> {
    let mut key = String::new();
    let file = {
        let p = Path::new(entry);
        if p.is_file() {
            Some(p.to_path_buf())
        } else {
            dirs.iter()
                .flat_map(|d| {
                    ENTRY_EXTENSIONS
                        .iter()
                        .map(move |e| d.join(format!("{entry}.{e}")))
                })
                .find(|c| c.is_file())
        }
    };
    match file {
        Some(f) => {
            stamp(&mut key, &f);
            // Non-JSON entries may read sibling files (a Mermaid manifest's parts).
            if f.extension().and_then(|e| e.to_str()) != Some("json") {
                let dir = f.parent().unwrap_or(Path::new("."));
                let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
                    .ok()?
                    .flatten()
                    .map(|e| e.path())
                    .collect();
                names.sort();
                names.iter().for_each(|n| stamp(&mut key, n));
            }
        }
        None => {
            let (file, text) = dialects::EMBEDDED.iter().find(|(f, _)| {
                !f.contains('/') && Path::new(f).file_stem().and_then(|s| s.to_str()) == Some(entry)
            })?;
            let _ = write!(
                key,
                "builtin:{file}:{:016x};",
                paths::fnv64(text.as_bytes())
            );
        }
    }
    Some(key)
}

fn full_key(entry: &str, dirs: &[PathBuf], cfg: &Config) -> Option<String> {
    let mut key = format!("seed {};", env!("CARGO_PKG_VERSION"));
    if let Ok(exe) = std::env::current_exe() {
        stamp(&mut key, &exe);
    }
    key.push_str(&source_key(entry, dirs)?);
    let _ = write!(
        key,
        "cfg:{:?}{:?}{:?}{:?}",
        cfg.layers, cfg.env, cfg.flags, cfg.fail
    );
    Some(key)
}

fn entry_path(state: &Path, key: &str) -> PathBuf {
    paths::chart_cache_dir(state).join(format!("{:016x}.json", paths::fnv64(key.as_bytes())))
}

/// A compiled machine for `entry` with `cfg`'s overrides: from the cache when it is current,
/// else loaded, compiled and stored. Returns the machine and where the chart came from.
pub fn machine(
    entry: &str,
    dirs: &[PathBuf],
    cfg: &Config,
    state: &Path,
) -> Result<(Machine, String), dialects::LoadError> {
    let key = full_key(entry, dirs, cfg);
    if let Some(k) = &key
        && let Ok(bytes) = paths::read_bounded(&entry_path(state, k), MAX_CACHE_BYTES)
        && let Ok(e) = serde_json::from_slice::<Entry>(&bytes)
        && &e.key == k
    {
        return Ok((Machine::from_compiled(e.chart, e.compiled), e.source));
    }
    let loaded = dialects::resolve(entry, dirs)?;
    let mut chart = loaded.chart;
    cfg.apply(&mut chart);
    let machine = Machine::new(chart);
    if let Some(k) = key {
        let e = Entry {
            key: k,
            source: loaded.source.clone(),
            compiled: machine.compiled(),
            chart: machine.chart.clone(),
        };
        let path = entry_path(state, &e.key);
        if let (Some(dir), Ok(bytes)) = (path.parent(), serde_json::to_vec(&e)) {
            // A cache that cannot be written only costs the next hook a load.
            let _ =
                paths::ensure_dir_in(state, dir).and_then(|_| paths::write_atomic(&path, &bytes));
        }
    }
    Ok((machine, loaded.source))
}
