//! Where a face gets its machine and snapshot: a file of records, or a session of the state
//! directory. Shared by `status`, `recovery` and the MCP tools.

use std::path::{Path, PathBuf};

use super::{CmdError, sequence_search_dirs};
use crate::commands::status::{fold, read_records};
use crate::dialects;
use crate::engine::{Machine, Snapshot};
use crate::store::record::Record;

pub enum Source<'a> {
    Events(&'a Path),
    /// A session id, or the most recent session.
    Session(Option<&'a str>),
}

pub struct View {
    pub machine: Machine,
    pub snap: Snapshot,
    pub records: Vec<Record>,
}

/// The state directory as the hook chooses it (`$SEED_HOME`, `$HEAVEN_DATA_DIR/seed`, XDG).
pub fn state_dir() -> Option<PathBuf> {
    if let Some(h) = std::env::var_os("SEED_HOME").filter(|s| !s.is_empty()) {
        return Some(PathBuf::from(h));
    }
    if let Some(h) = std::env::var_os("HEAVEN_DATA_DIR").filter(|s| !s.is_empty()) {
        return Some(PathBuf::from(h).join("seed"));
    }
    etcetera::choose_base_strategy().ok().map(|b| {
        use etcetera::BaseStrategy;
        b.state_dir().unwrap_or_else(|| b.data_dir()).join("seed")
    })
}

pub fn load_view(
    source: &Source,
    sequence: Option<&str>,
    state: Option<&Path>,
) -> Result<View, CmdError> {
    let records = match source {
        Source::Events(path) => {
            let (records, bad) = read_records(path)?;
            if bad > 0 {
                eprintln!(
                    "seed: skipped {bad} malformed line(s) in {}",
                    path.display()
                );
            }
            records
        }
        Source::Session(id) => {
            let Some(dir) = state else {
                return Err("no state directory: set SEED_HOME".into());
            };
            if !dir.is_dir() {
                return Err(format!(
                    "state directory {} does not exist: no session has been recorded yet",
                    dir.display()
                )
                .into());
            }
            return Err(format!(
                "session {} not found in {}",
                id.unwrap_or("(latest)"),
                dir.display()
            )
            .into());
        }
    };
    let name = sequence
        .map(String::from)
        .or_else(|| {
            records
                .iter()
                .rev()
                .find_map(|r| r.sequences.first().cloned())
        })
        .ok_or("no sequence: pass --sequence NAME (the records name none)")?;
    let loaded = dialects::resolve(&name, &sequence_search_dirs())?;
    let machine = Machine::new(loaded.chart);
    let snap = fold(&machine, &records);
    Ok(View {
        machine,
        snap,
        records,
    })
}

/// The log of a session in the state directory, by id.
pub fn session_log(state: &Path, id: &str) -> Option<PathBuf> {
    let safe: String = id
        .chars()
        .take(128)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let p = state.join("sessions").join(safe).join("log.jsonl");
    p.is_file().then_some(p)
}
