//! Loaders: sequence text → statechart IR, with `file:line:column` errors.
//!
//! The dialect follows the file extension: `.json` master sequence (seed 000), `.yaml`/`.yml`
//! workflow (seed 003), `.mmd` Mermaid statechart, `.toml` Mermaid manifest with bindings
//! (seed 004). Built-in sequences are the files of `sequences/`, embedded in the binary.
//!
//! Guards and preconditions written as text (Mermaid labels and manifest `when`s, workflow
//! `evaluate_expression`s) share one expression language, [`expr`]: its tokens, structure,
//! limits and errors, with each dialect's own terms. The master dialect's guards are JSON
//! objects (seed 000's format) and are read as such.

pub mod expr;
pub mod locate;
pub mod master;
pub mod mermaid;
pub mod skeletons;
pub mod suggest;
pub mod workflow;

use std::path::{Path, PathBuf};

use crate::store::paths;

use crate::engine::Chart;
use crate::engine::lint::Lint;

pub use locate::LoadError;

/// Sequence files larger than this are refused with a clear error rather than parsed.
pub const MAX_SEQUENCE_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct Loaded {
    pub chart: Chart,
    /// `builtin:<file>` or the path it was read from.
    pub source: String,
    /// Dialect-specific warnings found while loading (engine lints come from `Machine::lint`).
    pub warnings: Vec<Lint>,
}

/// Files of `sequences/`, embedded so `seed` works from any directory.
pub static EMBEDDED: &[(&str, &str)] = &[
    (
        "compound_intelligence.json",
        include_str!("../../sequences/compound_intelligence.json"),
    ),
    (
        "starlog_initialization.json",
        include_str!("../../sequences/starlog_initialization.json"),
    ),
    (
        "waypoint_journey.json",
        include_str!("../../sequences/waypoint_journey.json"),
    ),
    (
        "giint_workflow.json",
        include_str!("../../sequences/giint_workflow.json"),
    ),
    (
        "hiivmind_add_source.yaml",
        include_str!("../../sequences/hiivmind_add_source.yaml"),
    ),
    // Mermaid sequences: the manifest comes first, so `builtin("hope")` finds it.
    ("hope.toml", include_str!("../../sequences/hope.toml")),
    (
        "hope/01-pipeline.mmd",
        include_str!("../../sequences/hope/01-pipeline.mmd"),
    ),
    (
        "hope/02-intent.mmd",
        include_str!("../../sequences/hope/02-intent.mmd"),
    ),
    (
        "hope/03-shape.mmd",
        include_str!("../../sequences/hope/03-shape.mmd"),
    ),
    (
        "hope/04-loop.mmd",
        include_str!("../../sequences/hope/04-loop.mmd"),
    ),
    (
        "hope/05-consult.mmd",
        include_str!("../../sequences/hope/05-consult.mmd"),
    ),
    (
        "hope/06-bond.mmd",
        include_str!("../../sequences/hope/06-bond.mmd"),
    ),
    (
        "hope/07-soul.mmd",
        include_str!("../../sequences/hope/07-soul.mmd"),
    ),
    (
        "odyssean_anchor.toml",
        include_str!("../../sequences/odyssean_anchor.toml"),
    ),
    (
        "odyssean_anchor.mmd",
        include_str!("../../sequences/odyssean_anchor.mmd"),
    ),
    (
        "seaam_organ_lifecycle.toml",
        include_str!("../../sequences/seaam_organ_lifecycle.toml"),
    ),
    (
        "seaam_organ_lifecycle.mmd",
        include_str!("../../sequences/seaam_organ_lifecycle.mmd"),
    ),
    // Everyday sequences for a plain Claude Code (built-in tools only).
    (
        "plan_then_build.toml",
        include_str!("../../sequences/plan_then_build.toml"),
    ),
    (
        "plan_then_build.mmd",
        include_str!("../../sequences/plan_then_build.mmd"),
    ),
    ("tdd.toml", include_str!("../../sequences/tdd.toml")),
    ("tdd.mmd", include_str!("../../sequences/tdd.mmd")),
    (
        "safe_git.toml",
        include_str!("../../sequences/safe_git.toml"),
    ),
    ("safe_git.mmd", include_str!("../../sequences/safe_git.mmd")),
    (
        "research_first.toml",
        include_str!("../../sequences/research_first.toml"),
    ),
    (
        "research_first.mmd",
        include_str!("../../sequences/research_first.mmd"),
    ),
    (
        "verify_before_done.toml",
        include_str!("../../sequences/verify_before_done.toml"),
    ),
    (
        "verify_before_done.mmd",
        include_str!("../../sequences/verify_before_done.mmd"),
    ),
];

/// The built-ins a plain Claude Code can run (built-in tools only), in the order to offer them.
pub const EVERYDAY: &[&str] = &[
    "plan_then_build",
    "tdd",
    "safe_git",
    "research_first",
    "verify_before_done",
];

/// The embedded files of built-in `name`: its entry file(s) and the diagrams under `name/`.
pub fn builtin_files(name: &str) -> Vec<(&'static str, &'static str)> {
    EMBEDDED
        .iter()
        .filter(|(f, _)| {
            let own =
                !f.contains('/') && Path::new(f).file_stem().and_then(|s| s.to_str()) == Some(name);
            own || f
                .strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('/'))
        })
        .copied()
        .collect()
}

/// Extensions that name a loadable sequence (Mermaid parts are loaded through a manifest).
const ENTRY_EXTENSIONS: &[&str] = &["json", "yaml", "yml", "toml", "mmd"];

/// Load sequence text. `file` names it in errors and picks the dialect by extension;
/// `resolve` reads sibling files a manifest refers to.
pub fn load_text(
    file: &str,
    text: &str,
    resolve: &dyn Fn(&str) -> Option<String>,
) -> Result<Loaded, LoadError> {
    if text.trim().is_empty() {
        return Err(LoadError::at(
            file,
            1,
            1,
            "empty file: expected a sequence definition",
        ));
    }
    let ext = Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    match ext {
        "json" => master::load(file, text),
        "yaml" | "yml" => workflow::load(file, text),
        "mmd" => mermaid::load_diagram(file, text),
        "toml" => mermaid::manifest::load(file, text, resolve),
        other => Err(LoadError::at(
            file,
            1,
            1,
            format!(
                "unknown sequence file type `.{other}`: expected .json, .yaml, .yml, .mmd or .toml"
            ),
        )),
    }
}

/// Read and load a sequence file from disk.
pub fn load_path(path: &Path) -> Result<Loaded, LoadError> {
    let file = path.display().to_string();
    let cannot = |e: std::io::Error| LoadError::at(&file, 0, 0, format!("cannot read: {e}"));
    // Regular files only (a FIFO or `/dev/zero` would hang or never end), read no further
    // than the limit whatever the file's metadata says.
    let f = paths::open_regular(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidInput if path.is_dir() => {
            LoadError::at(&file, 0, 0, "is a directory: name a sequence file")
        }
        _ => cannot(e),
    })?;
    let bytes = paths::read_at_most(f, MAX_SEQUENCE_BYTES)
        .map_err(cannot)?
        .ok_or_else(|| {
            LoadError::at(
                &file,
                0,
                0,
                format!("sequence files are limited to {MAX_SEQUENCE_BYTES} bytes"),
            )
        })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let (line, col) =
            locate::line_col_of_offset_bytes(e.as_bytes(), e.utf8_error().valid_up_to());
        LoadError::at(
            &file,
            line,
            col,
            "invalid UTF-8: sequence files must be UTF-8 text",
        )
    })?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let resolve = move |rel: &str| read_capped(&dir.join(rel));
    let mut loaded = load_text(&file, &text, &resolve)?;
    loaded.source = file;
    Ok(loaded)
}

/// A file a manifest names, read no further than the sequence limit: a larger one comes back
/// cut (and is refused by its dialect's own size limit), never read whole into memory.
fn read_capped(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    paths::open_regular(path)
        .ok()?
        .take(MAX_SEQUENCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > MAX_SEQUENCE_BYTES {
        return Some(String::from_utf8_lossy(&bytes).into_owned());
    }
    String::from_utf8(bytes).ok()
}

/// Names of the built-in sequences (file stems of the embedded entry files).
pub fn builtin_names() -> Vec<String> {
    let mut names: Vec<String> = EMBEDDED
        .iter()
        .filter(|(f, _)| !f.contains('/'))
        .filter(|(f, _)| {
            ENTRY_EXTENSIONS
                .iter()
                .any(|e| f.ends_with(&format!(".{e}")))
        })
        .filter_map(|(f, _)| {
            Path::new(f)
                .file_stem()
                .and_then(|s| s.to_str())
                .map(String::from)
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

fn embedded(rel: &str) -> Option<String> {
    EMBEDDED
        .iter()
        .find(|(f, _)| *f == rel)
        .map(|(_, t)| t.to_string())
}

/// A built-in sequence by name.
pub fn builtin(name: &str) -> Option<Result<Loaded, LoadError>> {
    // A manifest (`.toml`) wins over a diagram of the same name: it carries the bindings.
    let named = |(f, _): &&(&str, &str)| {
        !f.contains('/') && Path::new(f).file_stem().and_then(|s| s.to_str()) == Some(name)
    };
    let (file, text) = EMBEDDED
        .iter()
        .filter(named)
        .find(|(f, _)| f.ends_with(".toml"))
        .or_else(|| EMBEDDED.iter().find(named))?;
    Some(load_text(file, text, &embedded).map(|mut l| {
        l.source = format!("builtin:{file}");
        l
    }))
}

/// A sequence named by the user: an existing path, a file in one of `search_dirs`
/// (`<dir>/<name>.<ext>`), or a built-in.
pub fn resolve(name_or_path: &str, search_dirs: &[PathBuf]) -> Result<Loaded, LoadError> {
    let p = Path::new(name_or_path);
    if p.is_file() {
        return load_path(p);
    }
    for dir in search_dirs {
        for ext in ENTRY_EXTENSIONS {
            let candidate = dir.join(format!("{name_or_path}.{ext}"));
            // A search directory sits in the project (`.seed/sequences`) or the state
            // directory (`sequences`): a symlink another user owns there, on the way or at
            // the file, would let them choose what is enforced.
            let root = dir.parent().unwrap_or(dir);
            paths::verify_in(root, &candidate).map_err(|e| {
                LoadError::at(&candidate.display().to_string(), 0, 0, e.to_string())
            })?;
            if candidate.is_file() {
                return load_path(&candidate);
            }
        }
    }
    if let Some(found) = builtin(name_or_path) {
        return found;
    }
    Err(LoadError::at(
        name_or_path,
        0,
        0,
        unknown(name_or_path, search_dirs),
    ))
}

/// Why `name` names no sequence, with the one most likely meant and every one there is.
fn unknown(name: &str, search_dirs: &[PathBuf]) -> String {
    let known = known_names(search_dirs);
    let meant = suggest::closest(name, &known)
        .map(|m| format!("; did you mean `{m}`?"))
        .unwrap_or_default();
    format!(
        "no such sequence{meant} (not a file; the sequences are: {})",
        known.join(", ")
    )
}

/// Every sequence a name can refer to: the files of the search directories, then the
/// built-ins, each name once, sorted.
pub fn known_names(search_dirs: &[PathBuf]) -> Vec<String> {
    let mut names = builtin_names();
    for dir in search_dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let entry = path
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| ENTRY_EXTENSIONS.contains(&x));
            if let (true, Some(stem)) = (entry, path.file_stem().and_then(|s| s.to_str())) {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Directories searched for sequences named on the command line, before the built-ins:
/// the project's `.seed/sequences` (from `$CLAUDE_PROJECT_DIR` or the current directory),
/// then `$SEED_HOME/sequences`.
pub fn sequence_search_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let project = std::env::var_os("CLAUDE_PROJECT_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok());
    if let Some(p) = project {
        dirs.push(p.join(".seed").join("sequences"));
    }
    if let Some(h) = std::env::var_os("SEED_HOME") {
        dirs.push(PathBuf::from(h).join("sequences"));
    }
    dirs
}
