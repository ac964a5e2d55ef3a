//! What the hook would decide now. Between hook events a watched deep-state file can change
//! (`dna.json` says an organ is generating, a waypoint journey became active): the readers are
//! sampled ([`sample`], the hook's sampling too) and the eventless transitions are stepped with
//! what they say ([`settle`], the engine's first move of every step). A state moved this way is
//! marked as moved by files ([`Moved`]): the log stays the truth, and the next hook event
//! records the same move.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::engine::ir::{Chart, ReaderDecl};
use crate::engine::{Facts, Machine, Snapshot};
use crate::store::reader_each;
use crate::store::readers::{self, ReaderVars};

/// Sample every reader of `charts` once: the facts the hook steps with and records, with a
/// line for each reader whose walk ran out of budget.
pub fn sample<'a>(
    charts: impl IntoIterator<Item = &'a Chart>,
    vars: &ReaderVars,
    now: SystemTime,
) -> (Facts, Vec<String>) {
    readers::sample_noting(charts.into_iter().flat_map(|c| c.readers.iter()), vars, now)
}

/// Step `snap` with `fresh` reader values over the ones it holds (the last recorded): the
/// eventless transitions they enable are taken. The names of the readers whose value changed
/// when the configuration moved; `None` when it did not (the values are kept either way, so
/// recovery quotes what the files say now).
pub fn settle(machine: &Machine, snap: &mut Snapshot, fresh: &Facts) -> Option<Vec<String>> {
    let changed: Vec<String> = fresh
        .iter()
        .filter(|(k, v)| snap.facts.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .collect();
    if changed.is_empty() {
        return None;
    }
    let mut facts = snap.facts.clone();
    facts.extend(fresh.iter().map(|(k, v)| (k.clone(), v.clone())));
    let report = machine.refresh(snap, &facts);
    (!report.microsteps.is_empty()).then_some(changed)
}

/// A state moved by files rather than by a recorded event: which files, and when they changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Moved {
    pub files: Vec<Changed>,
}

/// One file whose change moved the state.
#[derive(Debug, Clone, PartialEq)]
pub struct Changed {
    /// Its name (`dna.json`), or the reader's pattern when no file matches it any more.
    pub file: String,
    /// When it changed (unix ms), when known.
    pub at_ms: Option<i64>,
    /// The readers that read it.
    pub readers: Vec<String>,
}

impl Moved {
    /// The files behind `readers` of `chart`; `locate` finds a reader's file and its change
    /// time (the file system for `status`, the watch for the dashboard).
    pub fn of(
        chart: &Chart,
        readers: &[String],
        locate: impl Fn(&ReaderDecl) -> (Option<String>, Option<i64>),
    ) -> Moved {
        let mut files: Vec<Changed> = Vec::new();
        for decl in chart.readers.iter().filter(|r| readers.contains(&r.name)) {
            let (found, at_ms) = locate(decl);
            let file = found.unwrap_or_else(|| pattern_name(decl.kind.path()));
            match files.iter_mut().find(|c| c.file == file) {
                Some(c) => {
                    c.readers.push(decl.name.clone());
                    c.at_ms = c.at_ms.max(at_ms);
                }
                None => files.push(Changed {
                    file,
                    at_ms,
                    readers: vec![decl.name.clone()],
                }),
            }
        }
        Moved { files }
    }

    /// `moved by files: dna.json changed 3 s ago`, at `now_ms` (when known).
    pub fn line(&self, now_ms: Option<i64>) -> String {
        let files: Vec<String> = self
            .files
            .iter()
            .map(|c| match c.at_ms.zip(now_ms) {
                Some((at, now)) => format!("{} changed {}", c.file, ago((now - at) / 1000)),
                None => format!("{} changed", c.file),
            })
            .collect();
        format!("moved by files: {}", files.join(", "))
    }

    /// The same for `--json`: each file, when it changed (RFC 3339) and its readers.
    pub fn json(&self) -> serde_json::Value {
        let files: Vec<serde_json::Value> = self
            .files
            .iter()
            .map(|c| {
                let at = c
                    .at_ms
                    .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
                    .map(|t| t.to_string());
                serde_json::json!({ "file": c.file, "changed": at, "readers": c.readers })
            })
            .collect();
        serde_json::json!({ "files": files })
    }
}

fn ago(secs: i64) -> String {
    match secs.max(0) {
        s @ 0..120 => format!("{s} s ago"),
        s => crate::report::session::ago(s),
    }
}

/// The last part of a reader's path (`dna.json`); a pattern's last two (`waypoints/*.json`),
/// which say more than `*.json`.
fn pattern_name(path: &str) -> String {
    let parts: Vec<&str> = path.rsplit('/').take(2).collect();
    match parts.as_slice() {
        [last, dir] if last.contains(['*', '?', '[']) => format!("{dir}/{last}"),
        [last, ..] => (*last).to_string(),
        [] => path.to_string(),
    }
}

/// Unix ms of a file time.
pub fn unix_ms(t: SystemTime) -> Option<i64> {
    t.duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_millis()).ok())
}

/// The newest file a reader reads, by name, and when it was modified: for `status`.
pub fn reader_file(decl: &ReaderDecl, vars: &ReaderVars) -> (Option<String>, Option<i64>) {
    match readers::newest_file(&decl.kind, vars) {
        Some((path, at)) => (
            path.file_name().map(|n| n.to_string_lossy().into_owned()),
            unix_ms(at),
        ),
        None => (None, None),
    }
}

/// The reader variables of a recorded session: this process's `HOME` and `HEAVEN_DATA_DIR`,
/// the state directory, and the session's project: the caller's `CLAUDE_PROJECT_DIR` when the
/// session ran in it (the hook's own), else the directory the session ran in.
pub fn session_vars(cwd: Option<&str>, state: &Path) -> ReaderVars {
    let env_project = std::env::var("CLAUDE_PROJECT_DIR")
        .ok()
        .filter(|d| !d.is_empty());
    let project = match (cwd, env_project) {
        (Some(c), Some(p)) if crate::store::sessions::belongs(c, Path::new(&p)) => PathBuf::from(p),
        (Some(c), _) => PathBuf::from(c),
        (None, p) => p.map(PathBuf::from).unwrap_or_default(),
    };
    let env = |k: &str| {
        (k != "CLAUDE_PROJECT_DIR")
            .then(|| std::env::var(k).ok())
            .flatten()
    };
    let project = (!project.as_os_str().is_empty()).then_some(project);
    ReaderVars::new(&env, project.as_deref(), Some(state))
}

/// Sample `machine`'s readers and settle `snap` with them: the [`Moved`] when the files moved
/// it.
pub fn refresh(machine: &Machine, snap: &mut Snapshot, vars: &ReaderVars) -> Option<Moved> {
    if machine.chart.readers.is_empty() {
        return None;
    }
    let (fresh, _) = sample([&machine.chart], vars, SystemTime::now());
    let changed = settle(machine, snap, &fresh)?;
    Some(Moved::of(&machine.chart, &changed, |d| {
        reader_file(d, vars)
    }))
}

/// A status's text and JSON with what the files say now: marked as moved by files when they
/// moved it (the line first, `moved_by_files`), and each item's lifecycle (after, `each`).
pub fn mark(
    moved: Option<&Moved>,
    items: Option<&Items>,
    text: String,
    json: &mut serde_json::Value,
) -> String {
    let mut text = text;
    if let Some(i) = items {
        if let Some(o) = json.as_object_mut() {
            o.insert("each".into(), i.json());
        }
        text = format!("{}\n\n{}", text.trim_end(), i.text());
    }
    let Some(m) = moved else {
        return text;
    };
    if let Some(o) = json.as_object_mut() {
        o.insert("moved_by_files".into(), m.json());
    }
    format!("{}\n{text}", m.line(unix_ms(SystemTime::now())))
}

/// Every item's lifecycle (seed 002: each organ's), as its files say now.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Items {
    /// What an item is (`organ`).
    pub what: String,
    pub items: Vec<ItemState>,
    /// Items past [`reader_each::MAX_ITEMS`], not followed.
    pub left_out: usize,
    /// The whole's progress: (done, of, what) — `1 of 2 goals achieved`.
    pub progress: Option<(u64, u64, String)>,
}

/// One item and where its lifecycle is: the labels of its innermost active states.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemState {
    pub name: String,
    pub states: Vec<String>,
}

impl Items {
    /// `organs:` then one line per organ, then the progress line.
    pub fn text(&self) -> String {
        let w = self
            .items
            .iter()
            .map(|i| i.name.chars().count())
            .max()
            .unwrap_or(0);
        let mut out = format!("{}s: {}", self.what, self.items.len());
        for i in &self.items {
            out.push_str(&format!("\n  {:<w$}  {}", i.name, i.states.join(", ")));
        }
        if self.left_out > 0 {
            out.push_str(&format!("\n  … {} more not followed", self.left_out));
        }
        if let Some(p) = self.progress_line() {
            out.push_str(&format!("\n{p}"));
        }
        out
    }

    /// `progress: 1 of 2 goals achieved`.
    pub fn progress_line(&self) -> Option<String> {
        let (done, of, what) = self.progress.as_ref()?;
        Some(format!("progress: {done} of {of} {what}"))
    }

    pub fn json(&self) -> serde_json::Value {
        let items: Vec<serde_json::Value> = self
            .items
            .iter()
            .map(|i| serde_json::json!({ "name": i.name, "states": i.states }))
            .collect();
        let progress = self
            .progress
            .as_ref()
            .map(|(d, o, w)| serde_json::json!({ "done": d, "of": o, "what": w }));
        serde_json::json!({
            "what": self.what,
            "items": items,
            "left_out": self.left_out,
            "progress": progress,
        })
    }
}

/// Each item's lifecycle from facts already sampled (pure: the dashboard's model calls it):
/// the chart run per item with the session's facts overlaid by the item's, sharing the
/// session's progress (`shared`). `None` for a chart without `[each]`.
pub fn items_of(
    machine: &Machine,
    shared: &Snapshot,
    sampled: &[reader_each::Item],
    left_out: usize,
) -> Option<Items> {
    let each = machine.chart.each.as_ref()?;
    let items = sampled
        .iter()
        .map(|item| {
            let mut facts = shared.facts.clone();
            facts.extend(item.facts.iter().map(|(k, v)| (k.clone(), v.clone())));
            let snap = machine.instance(shared, &facts);
            ItemState {
                name: item.name.clone(),
                states: leaves(machine, &snap),
            }
        })
        .collect();
    let count = |r: &str| shared.facts.get(r).and_then(serde_json::Value::as_u64);
    let progress = each
        .progress
        .as_ref()
        .and_then(|p| Some((count(&p.done)?, count(&p.of)?, p.label.clone())));
    Some(Items {
        what: each.name.clone(),
        items,
        left_out,
        progress,
    })
}

/// Sample each item's files and run its lifecycle: for `status`.
pub fn items(machine: &Machine, shared: &Snapshot, vars: &ReaderVars) -> Option<Items> {
    let each = machine.chart.each.as_ref()?;
    let (sampled, left_out) =
        reader_each::sample(each, &machine.chart.readers, vars, SystemTime::now());
    items_of(machine, shared, &sampled, left_out)
}

/// The labels of the innermost active states (no active child).
fn leaves(machine: &Machine, snap: &Snapshot) -> Vec<String> {
    let chart = &machine.chart;
    snap.active
        .iter()
        .filter(|&&id| id != crate::engine::ir::StateId::ROOT)
        .filter(|&&id| {
            !snap
                .active
                .iter()
                .any(|&o| chart.state(o).parent == Some(id))
        })
        .map(|&id| {
            let s = chart.state(id);
            if s.label.is_empty() {
                s.key.clone()
            } else {
                s.label.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_is_named_by_its_folder_and_a_file_by_its_name() {
        assert_eq!(pattern_name("${CLAUDE_PROJECT_DIR}/dna.json"), "dna.json");
        assert_eq!(
            pattern_name("${HEAVEN_DATA_DIR}/waypoints/*.json"),
            "waypoints/*.json"
        );
        assert_eq!(pattern_name("dna.json"), "dna.json");
    }

    #[test]
    fn the_line_says_which_file_changed_and_when() {
        let moved = Moved {
            files: vec![Changed {
                file: "dna.json".into(),
                at_ms: Some(10_000),
                readers: vec!["designs".into()],
            }],
        };
        assert_eq!(
            moved.line(Some(13_400)),
            "moved by files: dna.json changed 3 s ago"
        );
        assert_eq!(moved.json()["files"][0]["readers"][0], "designs");
    }
}
