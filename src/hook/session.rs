//! The session side of a hook: snapshots loaded (or folded again) under the log's lock, and
//! the session's bookkeeping.

use std::path::{Path, PathBuf};

use super::deadline::Deadline;
use super::prepare::Prepared;
use super::{HookError, Loaded};
use crate::engine::{Facts, Snapshot};
use crate::protocol::HookInput;
use crate::store::log::LockedLog;
use crate::store::record::Record;
use crate::store::{paths, sessions, snapshot};

/// Bytes of subagent ids `session.json` keeps: hundreds of subagents, and a file every hook
/// reads stays small whatever the payloads hold (each id is already bounded).
const MAX_AGENT_BYTES: usize = 64 * 1024;

/// The session as the lock holds it, for step and commit.
pub(super) struct Held {
    pub log: LockedLog,
    pub meta_path: PathBuf,
    pub meta: sessions::SessionMeta,
    /// `session.json` as read, to write it only when the step changed it.
    pub meta_before: sessions::SessionMeta,
    /// One per loaded sequence, caught up with the log.
    pub snaps: Vec<Snapshot>,
    /// Whether each sequence's saved chart is current.
    pub chart_known: Vec<bool>,
    /// Records the log holds before this hook's.
    pub records_before: u64,
}

/// Take the session log's lock (within `lock_wait_ms`; the watchdog can then record a lapse
/// through it) and load the session's bookkeeping and snapshots.
pub(super) fn open(p: &Prepared, deadline: Option<&Deadline>) -> Result<Held, HookError> {
    let (state, session) = (&p.state, &p.input.session_id);
    for dir in [
        paths::snapshots_dir(state, session),
        paths::charts_dir(state, session),
    ] {
        paths::ensure_dir_in(state, &dir)?;
    }
    let log = LockedLog::open_within(&paths::session_log(state, session), p.cfg.lock_wait)?;
    if let Some(d) = deadline {
        d.hold_log(log.share());
    }
    let meta_path = paths::session_meta(state, session);
    let meta = sessions::load_meta(&meta_path).unwrap_or_default();
    let (snaps, chart_known, records_before) =
        load_snapshots(&log, state, session, &p.loaded, &p.facts)?;
    Ok(Held {
        log,
        meta_path,
        meta_before: meta.clone(),
        meta,
        snaps,
        chart_known,
        records_before,
    })
}

pub(super) fn update_meta(
    meta: &mut sessions::SessionMeta,
    h: &HookInput,
    names: &[&str],
    ts: &str,
) {
    if meta.id.is_empty() {
        meta.v = 1;
        meta.id = h.session_id.clone();
        meta.started = ts.to_string();
    }
    if let Some(c) = &h.cwd {
        meta.cwd = Some(c.clone());
    }
    if let Some(t) = h.transcript_path.as_ref().filter(|s| !s.is_empty()) {
        meta.transcript_path = Some(t.clone());
    }
    if let Some(a) = &h.agent_id
        && !meta.agents.contains(a)
        && meta.agents.iter().map(String::len).sum::<usize>() + a.len() <= MAX_AGENT_BYTES
    {
        meta.agents.insert(a.clone());
    }
    if !names.is_empty() {
        meta.sequences = names.iter().map(|s| s.to_string()).collect();
    }
}

/// Each sequence's snapshot: the saved one, caught up with the records the log gained since
/// it was saved, or the log folded again when there is none that belongs to this chart;
/// whether its saved chart is current; and the number of records the log holds.
fn load_snapshots(
    log: &LockedLog,
    state: &Path,
    session: &str,
    loaded: &[Loaded],
    facts: &Facts,
) -> Result<(Vec<Snapshot>, Vec<bool>, u64), HookError> {
    let mut snaps = Vec::with_capacity(loaded.len());
    let mut chart_known = Vec::with_capacity(loaded.len());
    let mut records_before: Option<u64> = None;
    let mut log_records: Option<Vec<Record>> = None;
    // A hook killed mid-write leaves its temp file behind (a snapshot, a chart, session.json):
    // swept while the lock is held, on every hook, since a kill before the record leaves the
    // snapshot current.
    remove_stale_temps(&paths::session_dir(state, session));
    remove_old_temps(&[state.to_path_buf(), paths::chart_cache_dir(state)]);
    for l in loaded {
        let saved = snapshot::load(&paths::snapshot_path(state, session, &l.name));
        chart_known.push(
            saved
                .as_ref()
                .is_some_and(|s| s.fingerprint == l.machine.fingerprint),
        );
        let snap = match saved {
            // Behind the log after a hook was killed between its append and its save, a
            // failure was recorded, or a save failed: only the records it lacks are stepped,
            // so a long session never pays for a whole fold because of one lost save.
            Some(s) if s.is_prefix_of(&l.machine, log.len()) => {
                let mut snap = s.snapshot;
                let mut count = s.records;
                if s.log_len < log.len() {
                    let bytes = log.read_range(s.log_len, log.len())?;
                    let (lacking, _) = crate::store::record::parse_records(&bytes);
                    for (phase, event, f) in lacking.iter().filter_map(Record::step) {
                        l.machine.replay_step(&mut snap, phase, event, f);
                    }
                    count += lacking.len() as u64;
                }
                records_before.get_or_insert(count);
                snap
            }
            _ => {
                if log_records.is_none() {
                    log_records = Some(crate::store::record::parse_records(&log.read_all()?).0);
                }
                let records = log_records.as_deref().unwrap_or_default();
                if records.iter().any(|r| r.step().is_some()) {
                    crate::session::fold::fold(&l.machine, records)
                } else {
                    l.machine.start(facts)
                }
            }
        };
        snaps.push(snap);
    }
    let count = match (records_before, &log_records) {
        (_, Some(r)) => r.len() as u64,
        (Some(n), None) => n,
        (None, None) => 0,
    };
    Ok((snaps, chart_known, count))
}

/// The snapshot a session's log folds to, for one of the hook's machines (tests and `status`).
pub fn fold_session(
    state: &Path,
    session: &str,
    l: &Loaded,
) -> std::io::Result<crate::engine::Snapshot> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut paths::open_read(&paths::session_log(state, session))?,
        &mut bytes,
    )?;
    let (records, _) = crate::store::record::parse_records(&bytes);
    Ok(crate::session::fold::fold(&l.machine, &records))
}

/// How old a temp file outside a session must be to be a killed writer's: those files
/// (`allowed_tools.seed`, compiled charts) are written without the session's lock, so a
/// younger one may be another hook's in flight.
const OLD_TEMP: std::time::Duration = std::time::Duration::from_secs(600);

/// Temp files (`.<name>.<pid>.tmp`) older than [`OLD_TEMP`] in `dirs`.
fn remove_old_temps(dirs: &[std::path::PathBuf]) {
    let now = std::time::SystemTime::now();
    for dir in dirs {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let old = e
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > OLD_TEMP));
            if name.starts_with('.') && name.ends_with(".tmp") && old {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// Temp files a killed hook left behind (`.<name>.<pid>.tmp`). Every writer of a session's
/// files holds the log's lock, as the caller does, so any such file here is garbage.
fn remove_stale_temps(session_dir: &Path) {
    for sub in [
        session_dir.to_path_buf(),
        session_dir.join("snapshots"),
        session_dir.join("charts"),
    ] {
        let Ok(rd) = std::fs::read_dir(&sub) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') && name.ends_with(".tmp") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}
