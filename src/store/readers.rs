//! The deep-state reader host: evaluates a chart's reader declarations into facts, once per
//! hook, outside the pure engine. Paths expand only `${HOME}`, `${HEAVEN_DATA_DIR}`,
//! `${CLAUDE_PROJECT_DIR}` and `${SEED_HOME}` (sequence files are data: no other variable, no
//! command). Files read are bounded in size; each evaluation's directory walking is bounded
//! in entries and time ([`Budget`]), so a glob over a whole tree cannot slow every hook.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use super::paths;
use super::reader_glob::is_pattern;
pub use super::reader_glob::{Budget, MAX_SCAN_ENTRIES, MAX_SCAN_TIME, glob, glob_within};
use super::reader_lists;
use super::redact;
use crate::engine::Facts;
use crate::engine::decode;
use crate::engine::ir::{ReaderDecl, ReaderKind};

/// Largest JSON state file a reader parses.
pub const MAX_READER_BYTES: u64 = 4 * 1024 * 1024;
/// Values of the variables reader paths may use (`None`: unset, the reader yields `null`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReaderVars {
    pub home: Option<String>,
    pub heaven_data_dir: Option<String>,
    pub project_dir: Option<String>,
    pub seed_home: Option<String>,
}

impl ReaderVars {
    /// From an environment lookup, the project directory and the state directory.
    pub fn new(
        env: &dyn Fn(&str) -> Option<String>,
        project_dir: Option<&Path>,
        state_dir: Option<&Path>,
    ) -> ReaderVars {
        let set = |k: &str| env(k).filter(|v| !v.is_empty());
        ReaderVars {
            home: set("HOME"),
            heaven_data_dir: set("HEAVEN_DATA_DIR"),
            project_dir: set("CLAUDE_PROJECT_DIR")
                .or_else(|| project_dir.map(|p| p.display().to_string())),
            seed_home: set("SEED_HOME").or_else(|| state_dir.map(|p| p.display().to_string())),
        }
    }
}

/// Expand the allowed variables; `None` when the path names another variable or an unset
/// one. Relative paths are taken from the project directory.
pub fn expand(path: &str, vars: &ReaderVars) -> Option<PathBuf> {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find('}')?;
        let value = match &after[..end] {
            "HOME" => vars.home.as_deref(),
            "HEAVEN_DATA_DIR" => vars.heaven_data_dir.as_deref(),
            "CLAUDE_PROJECT_DIR" => vars.project_dir.as_deref(),
            "SEED_HOME" => vars.seed_home.as_deref(),
            _ => None,
        }?;
        out.push_str(value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    let p = PathBuf::from(out);
    if p.is_relative() {
        return Some(PathBuf::from(vars.project_dir.as_deref()?).join(p));
    }
    Some(p)
}

fn mtime(p: &Path) -> Option<SystemTime> {
    fs::metadata(p).ok()?.modified().ok()
}

/// The most recently modified regular file among `paths`.
fn newest(paths: &[PathBuf]) -> Option<(PathBuf, SystemTime)> {
    paths
        .iter()
        .filter(|p| p.is_file())
        .filter_map(|p| Some((p.clone(), mtime(p)?)))
        .max_by_key(|(_, t)| *t)
}

/// The newest file a reader reads now and when it was modified (`None` for a program on
/// `PATH`, an unset variable, no file): what a face names when the reader's value moved it.
pub fn newest_file(kind: &ReaderKind, vars: &ReaderVars) -> Option<(PathBuf, SystemTime)> {
    if matches!(kind, ReaderKind::OnPath { .. }) {
        return None;
    }
    let path = expand(kind.path(), vars)?;
    newest(&glob_within(&path, &mut Budget::per_reader()))
}

/// The newest file matching `path`, parsed as JSON (as YAML when it is named `.yaml` or
/// `.yml`): `None` when there is none, it is larger than [`MAX_READER_BYTES`], unreadable or
/// does not parse (nesting deeper than the parser's limit, a YAML past its budget, too).
pub(super) fn newest_json(path: &Path, budget: &mut Budget) -> Option<Value> {
    let (file, _) = newest(&glob_within(path, budget))?;
    let bytes = paths::read_bounded(&file, MAX_READER_BYTES).ok()?;
    let yaml = file
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
    if yaml {
        decode::yaml(std::str::from_utf8(&bytes).ok()?)
    } else {
        serde_json::from_slice::<Value>(&bytes).ok()
    }
}

/// Evaluate one reader. `null` when it cannot be evaluated (unset variable, no file, too big,
/// not JSON, pointer absent, its walk over budget).
pub fn evaluate(kind: &ReaderKind, vars: &ReaderVars, now: SystemTime) -> Value {
    evaluate_within(kind, vars, now, &mut Budget::per_reader())
}

/// [`evaluate`] spending `budget`; `null` when the budget ran out (see [`Budget::exceeded`]).
pub fn evaluate_within(
    kind: &ReaderKind,
    vars: &ReaderVars,
    now: SystemTime,
    budget: &mut Budget,
) -> Value {
    let v = evaluate_walking(kind, vars, now, budget);
    if budget.exceeded() { Value::Null } else { v }
}

fn evaluate_walking(
    kind: &ReaderKind,
    vars: &ReaderVars,
    now: SystemTime,
    budget: &mut Budget,
) -> Value {
    if let ReaderKind::OnPath { program } = kind {
        return Value::Bool(on_path(program));
    }
    let Some(path) = expand(kind.path(), vars) else {
        return Value::Null;
    };
    match kind {
        ReaderKind::FileExists { .. } => {
            let found = if is_pattern(&path.to_string_lossy()) {
                !glob_within(&path, budget).is_empty()
            } else {
                path.exists()
            };
            Value::Bool(found)
        }
        ReaderKind::Count { .. } => Value::from(glob_within(&path, budget).len() as u64),
        ReaderKind::Age { .. } => match newest(&glob_within(&path, budget)) {
            Some((_, t)) => {
                let secs = now.duration_since(t).map(|d| d.as_secs()).unwrap_or(0);
                Value::from(secs)
            }
            None => Value::Null,
        },
        ReaderKind::Json { .. } | ReaderKind::JsonList { .. } => match newest_json(&path, budget) {
            Some(doc) => evaluate_doc(kind, &doc),
            None => Value::Null,
        },
        ReaderKind::Contains { text, .. } => {
            let Some((file, _)) = newest(&glob_within(&path, budget)) else {
                return Value::Bool(false);
            };
            match paths::read_bounded(&file, MAX_READER_BYTES) {
                Ok(bytes) => Value::Bool(String::from_utf8_lossy(&bytes).contains(text.as_str())),
                Err(_) => Value::Null,
            }
        }
        ReaderKind::Dir { .. } => Value::String(path.display().to_string()),
        ReaderKind::OnPath { .. } => Value::Null,
    }
}

/// A JSON reader's value in a document already read (`null` for other kinds).
pub fn evaluate_doc(kind: &ReaderKind, doc: &Value) -> Value {
    match kind {
        ReaderKind::Json { pointer, .. } => doc
            .pointer(&reader_lists::pointer(pointer))
            .cloned()
            .unwrap_or(Value::Null),
        ReaderKind::JsonList { pointer, op, .. } => reader_lists::aggregate(doc, pointer, op),
        _ => Value::Null,
    }
}

/// `which program`: an executable file of that name in a `PATH` directory. Only plain names
/// are looked up, so a sequence cannot probe arbitrary paths.
fn on_path(program: &str) -> bool {
    if program.is_empty() || program.contains(['/', '\\']) {
        return false;
    }
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        let candidate = dir.join(program);
        fs::metadata(&candidate).is_ok_and(|m| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            }
            #[cfg(not(unix))]
            {
                m.is_file()
            }
        })
    })
}

/// Sample every reader once (duplicates by name evaluated once).
pub fn sample<'a>(
    readers: impl IntoIterator<Item = &'a ReaderDecl>,
    vars: &ReaderVars,
    now: SystemTime,
) -> Facts {
    sample_noting(readers, vars, now).0
}

/// [`sample`], with a line for each reader whose walk ran out of budget (its value is then
/// `null`), for the record and the user.
pub fn sample_noting<'a>(
    readers: impl IntoIterator<Item = &'a ReaderDecl>,
    vars: &ReaderVars,
    now: SystemTime,
) -> (Facts, Vec<String>) {
    let mut facts = Facts::new();
    let mut notes = Vec::new();
    for r in readers {
        if facts.contains_key(&r.name) {
            continue;
        }
        let mut budget = Budget::per_reader();
        let mut value = evaluate_within(&r.kind, vars, now, &mut budget);
        // Facts are stepped, recorded and may be quoted to the model: secrets out first,
        // whichever host samples them (the hook, the dashboard).
        redact::redact_value(&mut value);
        facts.insert(r.name.clone(), value);
        if budget.exceeded() {
            notes.push(format!(
                "reader `{}` ({}) {}: its value is unknown",
                r.name,
                r.kind.path(),
                budget.report()
            ));
        }
    }
    (facts, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    fn vars(dir: &Path) -> ReaderVars {
        ReaderVars {
            home: Some("/home/u".into()),
            heaven_data_dir: Some(dir.display().to_string()),
            project_dir: Some(dir.display().to_string()),
            seed_home: None,
        }
    }

    #[test]
    fn expansion_is_limited() {
        let v = vars(Path::new("/h"));
        assert_eq!(expand("${HOME}/x", &v), Some("/home/u/x".into()));
        assert_eq!(expand("${PATH}/x", &v), None);
        assert_eq!(expand("${SEED_HOME}/x", &v), None);
        assert_eq!(expand("rel/x", &v), Some("/h/rel/x".into()));
        assert_eq!(expand("$HOME/x", &v), Some("/h/$HOME/x".into()));
    }

    #[test]
    fn kinds() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        fs::create_dir_all(d.join("w")).unwrap();
        fs::write(d.join("w/a.json"), r#"{"status":"old"}"#).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        fs::write(d.join("w/b.json"), r#"{"status":"active","n":{"k":[1,2]}}"#).unwrap();
        fs::write(d.join("w/c.txt"), "x").unwrap();
        let v = vars(d);
        let now = SystemTime::now() + Duration::from_secs(5);
        let j = |p: &str, ptr: &str| ReaderKind::Json {
            path: p.into(),
            pointer: ptr.into(),
        };
        assert_eq!(
            evaluate(&j("${HEAVEN_DATA_DIR}/w/*.json", "/status"), &v, now),
            json!("active")
        );
        assert_eq!(evaluate(&j("w/*.json", "/n/k/1"), &v, now), json!(2));
        assert_eq!(evaluate(&j("w/*.json", "/missing"), &v, now), Value::Null);
        assert_eq!(evaluate(&j("nope/*.json", "/status"), &v, now), Value::Null);
        let count = ReaderKind::Count {
            path: "${CLAUDE_PROJECT_DIR}/w/*.json".into(),
        };
        assert_eq!(evaluate(&count, &v, now), json!(2));
        let exists = ReaderKind::FileExists {
            path: "w/c.txt".into(),
        };
        assert_eq!(evaluate(&exists, &v, now), json!(true));
        let age = ReaderKind::Age { path: "w/*".into() };
        assert!(
            evaluate(&age, &v, now)
                .as_u64()
                .is_some_and(|s| (4..=6).contains(&s))
        );
        fs::write(
            d.join("w/big.json"),
            vec![b' '; MAX_READER_BYTES as usize + 10],
        )
        .unwrap();
        assert_eq!(evaluate(&j("w/big.json", "/x"), &v, now), Value::Null);
    }
}
