//! Where a face gets its machine and snapshot: a file of records, or a session of the state
//! directory. Shared by `status`, `recovery` and the MCP tools.

use std::path::{Path, PathBuf};

use super::Error;
use super::choice::{self, Pick};
use super::fold::Folder;
use super::now;
use super::records::stream_records;
use crate::dialects::{self, sequence_search_dirs};
use crate::engine::{Facts, Machine, Snapshot};
use crate::store::failures::{self, Tally};
use crate::store::{paths, sessions, snapshot};

pub enum Source<'a> {
    Events(&'a Path),
    /// A session of the state directory, chosen as every face chooses it.
    Session(&'a Pick),
}

pub struct View {
    pub machine: Machine,
    pub snap: Snapshot,
    /// The session's log, for a view of a session.
    pub log: Option<PathBuf>,
    /// The session shown, for a view of a session.
    pub session: Option<sessions::SessionInfo>,
    /// What reading the log passed over; the face says so once (`notice`).
    pub skipped: Skipped,
    /// For a session: the state its readers' files moved it to since the last recorded event
    /// (the snapshot already shows it; the face says it was moved by files).
    pub moved: Option<super::now::Moved>,
    /// For a session of a chart with `[each]`: every item's lifecycle (seed 002's organs).
    pub items: Option<super::now::Items>,
    /// seed's own failures in the log, and for a session those only `errors.jsonl` holds:
    /// lapses apart from fail-closed refusals.
    pub failures: Tally,
}

/// Lines of a log that were not folded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Skipped {
    pub log: PathBuf,
    /// Not a record (a crash's torn last line, or garbage).
    pub malformed: usize,
    /// Records of a newer format than this seed reads: skipped, not misread.
    pub newer: usize,
    /// seed's own failures among the records read.
    pub failures: Tally,
}

/// Read `log` once, feeding every record to each folder; what was passed over is counted.
fn fold_log(log: &Path, folders: &mut [Folder]) -> Result<Skipped, Error> {
    let mut newer = 0;
    let mut failures = Tally::default();
    let malformed = stream_records(log, |r| {
        newer += usize::from(r.is_newer());
        failures.add_record(&r);
        folders.iter_mut().for_each(|f| f.feed(&r));
    })?;
    Ok(Skipped {
        log: log.to_path_buf(),
        malformed,
        newer,
        failures,
    })
}

impl Skipped {
    /// One line for stderr, when anything was skipped.
    pub fn notice(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.malformed > 0 {
            parts.push(format!("{} malformed line(s)", self.malformed));
        }
        if self.newer > 0 {
            parts.push(format!(
                "{} record(s) of a newer format (v{} or later; update seed to read them)",
                self.newer,
                crate::store::record::RECORD_VERSION + 1
            ));
        }
        (!parts.is_empty()).then(|| {
            crate::report::sanitize::terminal(&format!(
                "seed: skipped {} in {}",
                parts.join(" and "),
                self.log.display()
            ))
        })
    }
}

/// Each sequence a session was stepped through (or `sequence` alone), from the hook's saved
/// snapshot when it is current, else folded from the log.
pub fn session_views(
    state: &Path,
    pick: &Pick,
    sequence: Option<&str>,
) -> Result<Vec<View>, Error> {
    check_state(state)?;
    let info = choice::choose(state, pick)?;
    // Everything read below lives under the state directory: no symlink of another user's on
    // the way (the hook refuses them too; a forged log or chart would change the answer).
    paths::verify_in(state, &info.log)?;
    let log_len = std::fs::metadata(&info.log)?.len();
    // Each sequence's machine, and its saved snapshot when it covers the whole log.
    let mut parts: Vec<(Machine, Option<Snapshot>)> = Vec::new();
    if let Some(name) = sequence {
        let machine = Machine::new(dialects::resolve(name, &sequence_search_dirs())?.chart);
        parts.push((machine, None));
    } else {
        for name in &info.sequences {
            paths::verify_in(state, &paths::chart_path(state, &info.id, name))?;
            paths::verify_in(state, &paths::snapshot_path(state, &info.id, name))?;
            let chart = match snapshot::load_chart(&paths::chart_path(state, &info.id, name)) {
                Some(c) => c,
                None => dialects::resolve(name, &sequence_search_dirs())?.chart,
            };
            let machine = Machine::new(chart);
            let saved = snapshot::load(&paths::snapshot_path(state, &info.id, name))
                .filter(|s| s.is_fresh(&machine, log_len))
                .map(|s| s.snapshot);
            parts.push((machine, saved));
        }
    }
    // One pass over the log: it folds what no saved snapshot covers and counts what it skips.
    let mut folders: Vec<Folder> = parts
        .iter()
        .filter(|(_, saved)| saved.is_none())
        .map(|(m, _)| Folder::new(m))
        .collect();
    let skipped = fold_log(&info.log, &mut folders)?;
    let failures = skipped
        .failures
        .merged(errors_log_failures(state, &info.id));
    let mut folded = folders
        .into_iter()
        .map(Folder::finish)
        .collect::<Vec<_>>()
        .into_iter();
    // Recovery and status name calls as the hook does: on the servers Claude Code's
    // configuration gives the session's project, saying when one is missing.
    let hosted = info
        .cwd
        .as_deref()
        .filter(|_| parts.iter().any(|(m, _)| !m.server_needs().is_empty()))
        .map(|cwd| crate::hosted::read(Path::new(cwd), &|k| std::env::var(k).ok()).hosted);
    let vars = now::session_vars(info.cwd.as_deref(), state);
    let views: Vec<View> = parts
        .into_iter()
        .map(|(mut machine, saved)| {
            if let Some(h) = &hosted {
                machine.set_hosted(h.clone());
            }
            // One fold per snapshot missing, in order: the fallback is never taken.
            let mut snap = saved
                .or_else(|| folded.next())
                .unwrap_or_else(|| machine.start(&Facts::default()));
            // What the hook would decide now: the files may have moved on since the log.
            let moved = now::refresh(&machine, &mut snap, &vars);
            let items = now::items(&machine, &snap, &vars);
            View {
                machine,
                snap,
                log: Some(info.log.clone()),
                session: Some(info.clone()),
                skipped: skipped.clone(),
                moved,
                items,
                failures,
            }
        })
        .collect();
    if views.is_empty() {
        return Err(format!("session {} has no sequence: pass --sequence NAME", info.id).into());
    }
    Ok(views)
}

/// A state directory that is not there, or not a directory, says so.
fn check_state(state: &Path) -> Result<(), Error> {
    if !state.exists() {
        return Err(format!(
            "state directory {} does not exist: no session has been recorded yet",
            state.display()
        )
        .into());
    }
    if !state.is_dir() {
        return Err(format!(
            "state directory {} is not a directory (check SEED_HOME)",
            state.display()
        )
        .into());
    }
    Ok(())
}

pub fn load_view(
    source: &Source,
    sequence: Option<&str>,
    state: Option<&Path>,
) -> Result<View, Error> {
    let path = match source {
        Source::Events(path) => *path,
        Source::Session(pick) => {
            let Some(dir) = state else {
                return Err("no state directory: set SEED_HOME".into());
            };
            let mut views = session_views(dir, pick, sequence)?;
            return Ok(views.remove(0));
        }
    };
    // Without `--sequence`, the newest record naming one says which: a first pass finds it
    // (records are read as a stream, never all kept).
    let name = match sequence {
        Some(n) => n.to_string(),
        None => {
            let mut named: Option<String> = None;
            stream_records(path, |r| {
                if let Some(s) = r.sequences.into_iter().next() {
                    named = Some(s);
                }
            })?;
            named.ok_or("no sequence: pass --sequence NAME (the records name none)")?
        }
    };
    let machine = Machine::new(dialects::resolve(&name, &sequence_search_dirs())?.chart);
    let mut folders = [Folder::new(&machine)];
    let skipped = fold_log(path, &mut folders)?;
    let [folder] = folders;
    let snap = folder.finish();
    Ok(View {
        machine,
        snap,
        failures: skipped.failures,
        skipped,
        log: None,
        session: None,
        moved: None,
        items: None,
    })
}

/// The failures of session `id` that only `errors.jsonl` holds (its log could not take them).
fn errors_log_failures(state: &Path, id: &str) -> Tally {
    let mut t = Tally::default();
    failures::errors_log_records(state)
        .iter()
        .filter(|r| r.session == id)
        .for_each(|r| t.add_record(r));
    t
}

/// The log of a session in the state directory, by id (or unique id prefix).
pub fn session_log(state: &Path, id: &str) -> Option<PathBuf> {
    sessions::find(state, id).ok().flatten().map(|i| i.log)
}
