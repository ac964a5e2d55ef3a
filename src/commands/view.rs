//! Where a face gets its machine and snapshot: a file of records, or a session of the state
//! directory. Shared by `status`, `recovery` and the MCP tools.

use std::path::{Path, PathBuf};

use super::session_choice::{self, Pick};
use super::{CmdError, sequence_search_dirs};
use crate::commands::status::{fold, read_records};
use crate::dialects;
use crate::engine::{Machine, Snapshot};
use crate::store::record::Record;
use crate::store::{paths, sessions, snapshot};

pub enum Source<'a> {
    Events(&'a Path),
    /// A session of the state directory, chosen as every face chooses it.
    Session(&'a Pick),
}

pub struct View {
    pub machine: Machine,
    pub snap: Snapshot,
    pub records: Vec<Record>,
    /// The session's log, for a view of a session.
    pub log: Option<PathBuf>,
    /// What reading the log passed over; the face says so once (`notice`).
    pub skipped: Skipped,
}

/// Lines of a log that were not folded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Skipped {
    pub log: PathBuf,
    /// Not a record (a crash's torn last line, or garbage).
    pub malformed: usize,
    /// Records of a newer format than this seed reads: skipped, not misread.
    pub newer: usize,
}

impl Skipped {
    fn of(log: &Path, records: &[Record], malformed: usize) -> Skipped {
        Skipped {
            log: log.to_path_buf(),
            malformed,
            newer: records.iter().filter(|r| r.is_newer()).count(),
        }
    }

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

/// The state directory as the hook chooses it (`$SEED_HOME`, `$HEAVEN_DATA_DIR/seed`, XDG).
pub fn state_dir() -> Option<PathBuf> {
    paths::state_dir().ok()
}

/// Each sequence a session was stepped through (or `sequence` alone), from the hook's saved
/// snapshot when it is current, else folded from the log.
pub fn session_views(
    state: &Path,
    pick: &Pick,
    sequence: Option<&str>,
) -> Result<Vec<View>, CmdError> {
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
    let info = session_choice::choose(state, pick)?;
    // Everything read below lives under the state directory: no symlink of another user's on
    // the way (the hook refuses them too; a forged log or chart would change the answer).
    paths::verify_in(state, &info.log)?;
    let log_len = std::fs::metadata(&info.log)?.len();
    let (records, bad) = read_records(&info.log)?;
    let skipped = Skipped::of(&info.log, &records, bad);
    let mut views = Vec::new();
    if let Some(name) = sequence {
        let machine = Machine::new(dialects::resolve(name, &sequence_search_dirs())?.chart);
        let snap = fold(&machine, &records);
        views.push(View {
            machine,
            snap,
            records: Vec::new(),
            log: Some(info.log.clone()),
            skipped,
        });
    } else {
        for name in &info.sequences {
            paths::verify_in(state, &paths::chart_path(state, &info.id, name))?;
            paths::verify_in(state, &paths::snapshot_path(state, &info.id, name))?;
            let chart = match snapshot::load_chart(&paths::chart_path(state, &info.id, name)) {
                Some(c) => c,
                None => dialects::resolve(name, &sequence_search_dirs())?.chart,
            };
            let machine = Machine::new(chart);
            let snap = match snapshot::load(&paths::snapshot_path(state, &info.id, name)) {
                Some(s) if s.is_fresh(&machine, log_len) => s.snapshot,
                _ => fold(&machine, &records),
            };
            views.push(View {
                machine,
                snap,
                records: Vec::new(),
                log: Some(info.log.clone()),
                skipped: skipped.clone(),
            });
        }
    }
    if views.is_empty() {
        return Err(format!("session {} has no sequence: pass --sequence NAME", info.id).into());
    }
    Ok(views)
}

pub fn load_view(
    source: &Source,
    sequence: Option<&str>,
    state: Option<&Path>,
) -> Result<View, CmdError> {
    let (path, (records, bad)) = match source {
        Source::Events(path) => (*path, read_records(path)?),
        Source::Session(pick) => {
            let Some(dir) = state else {
                return Err("no state directory: set SEED_HOME".into());
            };
            let mut views = session_views(dir, pick, sequence)?;
            return Ok(views.remove(0));
        }
    };
    let machine = machine_for(&records, sequence)?
        .ok_or("no sequence: pass --sequence NAME (the records name none)")?;
    let snap = fold(&machine, &records);
    Ok(View {
        machine,
        snap,
        skipped: Skipped::of(path, &records, bad),
        records,
        log: None,
    })
}

/// The log of a session in the state directory, by id (or unique id prefix).
pub fn session_log(state: &Path, id: &str) -> Option<PathBuf> {
    sessions::find(state, id).ok().flatten().map(|i| i.log)
}

/// The machine for a list of records: `--sequence` when given (what-if), else the sequence the
/// records name, else none.
pub fn machine_for(
    records: &[Record],
    sequence: Option<&str>,
) -> Result<Option<Machine>, CmdError> {
    let name = sequence.map(String::from).or_else(|| {
        records
            .iter()
            .rev()
            .find_map(|r| r.sequences.first().cloned())
    });
    match name {
        Some(n) => Ok(Some(Machine::new(
            dialects::resolve(&n, &sequence_search_dirs())?.chart,
        ))),
        None => Ok(None),
    }
}

/// The source named `demo` is the bundled demo session.
pub fn load_source(name: &str) -> Result<crate::replay::source::Loaded, String> {
    if name == "demo" && !std::path::Path::new(name).exists() {
        let records = crate::demo::bundled();
        return Ok(crate::replay::source::Loaded {
            kind: crate::replay::source::SourceKind::SessionLog,
            path: "demo".into(),
            session: crate::demo::SESSION_ID.into(),
            tool_calls: records.iter().filter(|r| r.hook == "PreToolUse").count(),
            records,
            skipped: 0,
            newer: 0,
            subagent_files: Vec::new(),
        });
    }
    crate::replay::source::resolve(name, state_dir().as_deref())
}
