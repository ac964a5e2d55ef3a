//! Sessions in the state directory: the hook's per-session bookkeeping (`session.json`) and
//! the listing `status`, the dashboard and MCP use (most recent first).

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::{log, paths, snapshot};

/// Guidance injection state of one sequence.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Injection {
    /// The last line injected.
    pub line: String,
    /// Prompts since it was injected.
    pub prompts_since: u32,
}

/// The hook's bookkeeping for one session, rewritten atomically when it changes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionMeta {
    pub v: u32,
    pub id: String,
    pub cwd: Option<String>,
    pub transcript_path: Option<String>,
    /// RFC 3339 time of the first hook.
    pub started: String,
    /// Subagents seen (`agent_id`).
    pub agents: BTreeSet<String>,
    /// Sequences stepped by the latest hook (chart names).
    pub sequences: Vec<String>,
    pub inject: BTreeMap<String, Injection>,
}

const MAX_META_BYTES: u64 = 4 * 1024 * 1024;

pub fn load_meta(path: &Path) -> Option<SessionMeta> {
    let bytes = paths::read_bounded(path, MAX_META_BYTES).ok()?;
    serde_json::from_slice(&bytes).ok()
}

pub fn save_meta(path: &Path, meta: &SessionMeta) -> io::Result<()> {
    let bytes = serde_json::to_vec(meta).map_err(io::Error::other)?;
    paths::write_atomic(path, &bytes)
}

/// One session as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    /// The session id as Claude Code gave it.
    pub id: String,
    pub dir: PathBuf,
    pub log: PathBuf,
    /// When the log was last written.
    pub modified: Option<SystemTime>,
    pub records: u64,
    /// Subagent ids seen in this session (their events are in the same log).
    pub agents: Vec<String>,
    /// Sequences the hook saved a chart or snapshot for.
    pub sequences: Vec<String>,
    pub cwd: Option<String>,
    pub transcript_path: Option<String>,
    /// The session this one was forked from, when known (Claude Code does not say today).
    pub parent: Option<String>,
    /// RFC 3339 time of its first hook, when its bookkeeping says.
    pub started: Option<String>,
}

/// Whether a session that ran in `cwd` is one of the project at `dir`: the same directory,
/// or one inside the other (a session started in a subdirectory; a command run from one).
/// A session that ran in `/` belongs to `/` only.
pub fn belongs(cwd: &str, dir: &Path) -> bool {
    let cwd = Path::new(cwd);
    let root = cwd.parent().is_none();
    cwd == dir || cwd.starts_with(dir) || (!root && dir.starts_with(cwd))
}

/// The most recently written session of the project at `dir` (`list` is newest first).
pub fn latest_in<'a>(list: &'a [SessionInfo], dir: &Path) -> Option<&'a SessionInfo> {
    list.iter()
        .find(|s| s.cwd.as_deref().is_some_and(|c| belongs(c, dir)))
}

/// File stems of `<dir>/*.json` (temp files, which start with a dot, left out).
fn json_stems(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.strip_suffix(".json").map(String::from)
                })
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default()
}

fn info(dir: &Path) -> Option<SessionInfo> {
    paths::check_symlink(dir).ok()?;
    let log_path = dir.join("log.jsonl");
    let log_meta = std::fs::metadata(&log_path).ok()?;
    let meta = load_meta(&dir.join("session.json"));
    let len = log_meta.len();
    // The sequences are those with a saved chart or snapshot (a cache someone may have
    // removed; the chart is written first, before the session's first record).
    let mut sequences = json_stems(&dir.join("charts"));
    sequences.extend(json_stems(&dir.join("snapshots")));
    sequences.sort();
    sequences.dedup();
    // A current snapshot knows the record count; otherwise count the lines.
    let records = sequences
        .iter()
        .filter_map(|s| snapshot::load(&dir.join("snapshots").join(format!("{s}.json"))))
        .find(|s| s.log_len == len)
        .map(|s| s.records)
        .unwrap_or_else(|| count_records(&log_path).unwrap_or(0));
    let dir_name = dir.file_name()?.to_string_lossy().into_owned();
    let meta = meta.unwrap_or_default();
    Some(SessionInfo {
        id: if meta.id.is_empty() {
            dir_name
        } else {
            meta.id
        },
        dir: dir.to_path_buf(),
        log: log_path,
        modified: log_meta.modified().ok(),
        records,
        agents: meta.agents.into_iter().collect(),
        sequences,
        cwd: meta.cwd,
        transcript_path: meta.transcript_path,
        parent: None,
        started: (!meta.started.is_empty()).then_some(meta.started),
    })
}

/// Complete lines of a log, read in blocks. Regular files only: a log linked to a device
/// (`/dev/zero`) never ends, and a FIFO would block.
fn count_records(log_path: &Path) -> io::Result<u64> {
    use std::io::Read;
    let mut f = paths::open_regular(log_path)?;
    let mut buf = vec![0u8; 256 * 1024];
    let mut n = 0;
    loop {
        match f.read(&mut buf)? {
            0 => return Ok(n),
            k => n += log::count_lines(&buf[..k]),
        }
    }
}

/// Every session with a log, most recently written first. A state or sessions directory that
/// is someone else's symlink is refused.
pub fn list(state_dir: &Path) -> io::Result<Vec<SessionInfo>> {
    let dir = paths::sessions_dir(state_dir);
    paths::check_symlink(state_dir)?;
    paths::check_symlink(&dir)?;
    let rd = match std::fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out: Vec<SessionInfo> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| info(&e.path()))
        .collect();
    out.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.id.cmp(&b.id)));
    Ok(out)
}

/// The most recently written session.
pub fn latest(state_dir: &Path) -> io::Result<Option<SessionInfo>> {
    Ok(list(state_dir)?.into_iter().next())
}

/// A session by exact id, else by a unique id prefix.
pub fn find(state_dir: &Path, id: &str) -> io::Result<Option<SessionInfo>> {
    let exact = paths::session_dir(state_dir, id);
    if let Some(i) = info(&exact) {
        return Ok(Some(i));
    }
    let matches: Vec<SessionInfo> = list(state_dir)?
        .into_iter()
        .filter(|s| s.id.starts_with(id))
        .collect();
    Ok(if matches.len() == 1 {
        matches.into_iter().next()
    } else {
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_belongs_to_its_directory_and_the_ones_around_it() {
        let p = Path::new("/home/u/proj");
        assert!(belongs("/home/u/proj", p));
        assert!(belongs("/home/u/proj/sub", p), "started in a subdirectory");
        assert!(
            belongs("/home/u", p),
            "the command runs inside the session's directory"
        );
        assert!(
            !belongs("/home/u/project2", p),
            "a name that starts the same is another"
        );
        assert!(!belongs("/home/v/proj", p));
        assert!(!belongs("/", p), "a session in / is not every project's");
        assert!(belongs("/", Path::new("/")));
        assert!(!belongs("", p));
    }

    #[test]
    fn list_latest_find() {
        let t = tempfile::tempdir().unwrap();
        let s = t.path();
        assert!(latest(s).unwrap().is_none());
        for (id, n) in [("aaa-1", 2), ("bbb-2", 3)] {
            let d = paths::session_dir(s, id);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("log.jsonl"), "{}\n".repeat(n)).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(15));
        }
        let all = list(s).unwrap();
        assert_eq!(
            all.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
            ["bbb-2", "aaa-1"]
        );
        assert_eq!(all[0].records, 3);
        assert_eq!(latest(s).unwrap().unwrap().id, "bbb-2");
        assert_eq!(find(s, "aa").unwrap().unwrap().id, "aaa-1");
        assert!(find(s, "zz").unwrap().is_none());
    }
}
