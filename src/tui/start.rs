//! What `seed tui` follows when it starts or switches: the session, the sequences, the readers,
//! and the theme directory. File-system lookups live here, never in the model or the views.

use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use crate::config::{self, Flags};
use crate::dialects;
use crate::engine::Machine;
use crate::store::readers::ReaderVars;
use crate::store::record::Record;
use crate::store::sessions::{self, SessionInfo as Listed};

use super::feed::{FeedConfig, load_sequence, pick_latest};
use super::fold::Seq;
use super::model::{SessionEntry, SessionInfo};

/// Inputs from the command line and the environment.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub session: Option<String>,
    pub sequence: Option<String>,
    pub theme: Option<String>,
    pub state: PathBuf,
    pub project: Option<PathBuf>,
    /// `<config dir>/seed`: user themes live in its `themes/`.
    pub user_dir: Option<PathBuf>,
    /// Fallback poll period for the log and the deep-state files.
    pub poll: Duration,
    /// `--replay SOURCE`: a session id, a session log or a Claude Code transcript.
    pub replay: Option<String>,
    /// Start a replay playing instead of paused (`seed demo`).
    pub autoplay: bool,
}

/// A session chosen to follow, with everything the model and the feed need.
pub struct Target {
    pub info: SessionInfo,
    pub log: Option<PathBuf>,
    pub seqs: Vec<Seq>,
    pub notices: Vec<String>,
}

fn env(k: &str) -> Option<String> {
    std::env::var(k).ok()
}

/// The session to follow: the one named, else the most recent of this project, else none yet.
pub fn choose(opts: &Options, id: Option<&str>) -> std::io::Result<Option<Listed>> {
    match id.or(opts.session.as_deref()) {
        Some(id) => sessions::find(&opts.state, id),
        None => {
            let list = sessions::list(&opts.state)?;
            let project = opts.project.as_ref().map(|p| p.display().to_string());
            Ok(pick_latest(&list, project.as_deref()).cloned())
        }
    }
}

/// What `seed tui` is asked to show must exist, before the terminal is taken: a session named
/// with `--session` (else the dashboard would wait for it forever) and a sequence named with
/// `--sequence` (checked as every command checks it, with the name most likely meant).
pub fn check(opts: &Options) -> Result<(), String> {
    if let Some(id) = &opts.session
        && sessions::find(&opts.state, id)
            .map_err(|e| format!("cannot list sessions: {e}"))?
            .is_none()
    {
        return Err(format!(
            "no session `{id}` in {} (without --session the dashboard follows this project's newest)",
            opts.state.display()
        ));
    }
    if let Some(name) = &opts.sequence {
        let search = machines_search_dirs(opts.project.as_deref(), &opts.state);
        dialects::resolve(name, &search).map_err(|e| format!("cannot load sequence: {e}"))?;
    }
    Ok(())
}

/// While no session of this project has run: which session there is elsewhere, to pick from
/// the session list (`s`) if that is the one meant.
pub fn waiting_notice(opts: &Options) -> Option<String> {
    let project = opts.project.as_ref()?;
    let list = sessions::list(&opts.state).ok()?;
    let other = list.first()?;
    Some(format!(
        "waiting for a session in {}; the newest, {}, ran in {} (s: sessions)",
        project.display(),
        other.id,
        other.cwd.as_deref().unwrap_or("an unknown directory")
    ))
}

/// Build the target for `listed` (or for no session yet).
pub fn target(opts: &Options, listed: Option<&Listed>) -> Target {
    let mut notices = Vec::new();
    let mut seqs = Vec::new();
    let (id, log) = match listed {
        Some(s) => (s.id.clone(), Some(s.log.clone())),
        None => (String::new(), None),
    };
    let search = machines_search_dirs(opts.project.as_deref(), &opts.state);
    if let Some(name) = &opts.sequence {
        // Named on the command line: every record goes through it, whatever the hook stepped.
        match dialects::resolve(name, &search) {
            Ok(l) => seqs.push(Seq::new(Machine::new(l.chart), false)),
            Err(e) => notices.push(format!("cannot load sequence `{name}`: {e}")),
        }
    } else {
        // What the hook steps for this session, else what the project is configured with.
        let names: Vec<String> = match listed {
            Some(s) if !s.sequences.is_empty() => s.sequences.clone(),
            _ => configured(opts),
        };
        let cfg = feed_config(opts, &id, log.clone(), &[], 0);
        for n in names {
            match load_sequence(&cfg, &n) {
                Ok(s) => seqs.push(s),
                Err(e) => notices.push(e),
            }
        }
    }
    let source = match &log {
        Some(p) => p.display().to_string(),
        None => "waiting for a session".to_string(),
    };
    // A session named (or picked) from another project is shown, and said to be elsewhere.
    if let (Some(cwd), Some(here)) = (listed.and_then(|s| s.cwd.as_deref()), &opts.project)
        && !sessions::belongs(cwd, here)
    {
        notices.push(crate::report::session::elsewhere(
            cwd,
            &here.display().to_string(),
        ));
    }
    let info = SessionInfo {
        id,
        source,
        project: listed.and_then(|s| s.cwd.clone()),
        started: listed
            .and_then(|s| s.started.as_deref())
            .and_then(super::model::parse_ts),
    };
    Target {
        info,
        log,
        seqs,
        notices,
    }
}

/// `seed tui --replay SOURCE`: the records, and the sequences to replay them through: the one
/// named with `--sequence` (what-if: it steps every record), else the ones the records name.
pub fn replay_target(opts: &Options, source: &str) -> Result<(Target, Vec<Record>), String> {
    let loaded = crate::session::source::resolve(source, Some(&opts.state))?;
    replay_loaded(opts, loaded)
}

/// The sequences a replay of `loaded` steps, and why any named one could not be loaded:
/// `--sequence` alone (what-if), else each sequence the records name, as the hook saved it for
/// the session (overrides included) or else by name.
pub fn replay_seqs(
    opts: &Options,
    loaded: &crate::session::source::Loaded,
) -> Result<(Vec<Seq>, Vec<String>), String> {
    if let Some(name) = &opts.sequence {
        return Ok((vec![what_if(opts, loaded, name)?], Vec::new()));
    }
    let mut names: Vec<&String> = Vec::new();
    for n in loaded.records.iter().flat_map(|r| &r.sequences) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    let cfg = feed_config(opts, &loaded.session, None, &[], 0);
    let (mut seqs, mut notices) = (Vec::new(), Vec::new());
    for n in names {
        match load_sequence(&cfg, n) {
            Ok(s) => seqs.push(s),
            Err(e) => notices.push(e),
        }
    }
    Ok((seqs, notices))
}

/// `--sequence NAME` for a replay: the sequence as it is now (a what-if, so an edit shows),
/// configured as the hook configures it in the project the session ran in — that project's
/// `.seed.toml` and overrides — so an advise-mode project's calls replay as advice.
fn what_if(
    opts: &Options,
    loaded: &crate::session::source::Loaded,
    name: &str,
) -> Result<Seq, String> {
    let ran_in = sessions::find(&opts.state, &loaded.session)
        .ok()
        .flatten()
        .and_then(|s| s.cwd)
        .or_else(|| loaded.project.clone())
        .map(PathBuf::from)
        .filter(|p| p.is_dir());
    let project = ran_in.as_deref().or(opts.project.as_deref());
    let search = machines_search_dirs(project, &opts.state);
    let mut chart = dialects::resolve(name, &search)
        .map_err(|e| format!("cannot load sequence `{name}`: {e}"))?
        .chart;
    let dirs: Vec<PathBuf> = project.map(Path::to_path_buf).into_iter().collect();
    match config::load(&dirs, &env, &Flags::default()) {
        Ok(cfg) => cfg.apply(&mut chart),
        Err(e) => return Err(format!("cannot read the configuration: {e}")),
    }
    Ok(Seq::new(Machine::new(chart), false))
}

/// [`replay_target`] of a source already read (`seed screenshot`, the bundled demo).
pub fn replay_loaded(
    opts: &Options,
    loaded: crate::session::source::Loaded,
) -> Result<(Target, Vec<Record>), String> {
    let (seqs, mut notices) = replay_seqs(opts, &loaded)?;
    if loaded.skipped > 0 {
        notices.push(format!("{} lines were not events", loaded.skipped));
    }
    if loaded.newer > 0 {
        notices.push(crate::session::source::newer_notice(loaded.newer));
    }
    // A seed session knows where it ran; any source knows when its first record was made.
    let meta = sessions::find(&opts.state, &loaded.session).ok().flatten();
    let started = meta
        .as_ref()
        .and_then(|s| s.started.as_deref())
        .or_else(|| loaded.records.first().map(|r| r.ts.as_str()))
        .and_then(super::model::parse_ts);
    let target = Target {
        info: SessionInfo {
            id: loaded.session.clone(),
            source: loaded.path.display().to_string(),
            project: meta.and_then(|s| s.cwd).or_else(|| loaded.project.clone()),
            started,
        },
        log: None,
        seqs,
        notices,
    };
    Ok((target, loaded.records))
}

/// Where named sequences are looked up before the built-ins (as the hook does).
fn machines_search_dirs(project: Option<&Path>, state: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = project
        .map(|p| p.join(".seed").join("sequences"))
        .into_iter()
        .collect();
    dirs.push(state.join("sequences"));
    dirs
}

/// Sequences the project's configuration names (what the hook would step).
fn configured(opts: &Options) -> Vec<String> {
    let dirs: Vec<PathBuf> = opts.project.iter().cloned().collect();
    config::load(&dirs, &env, &Flags::default())
        .map(|c| c.sequences)
        .unwrap_or_default()
}

pub fn feed_config(
    opts: &Options,
    session: &str,
    log: Option<PathBuf>,
    seqs: &[Seq],
    generation: u64,
) -> FeedConfig {
    let mut readers = Vec::new();
    for s in seqs {
        for r in &s.machine.chart.readers {
            if !readers
                .iter()
                .any(|x: &crate::engine::ir::ReaderDecl| x.name == r.name)
            {
                readers.push(r.clone());
            }
        }
    }
    FeedConfig {
        generation,
        state: opts.state.clone(),
        session: session.to_string(),
        started: None,
        poll: if log.is_some() {
            opts.poll
        } else {
            opts.poll.min(Duration::from_secs(1))
        },
        log,
        use_cache: seqs.iter().all(|s| s.follows_log),
        known: seqs
            .iter()
            .map(|s| (s.name.clone(), s.machine.fingerprint.clone()))
            .collect(),
        search_dirs: machines_search_dirs(opts.project.as_deref(), &opts.state),
        each: seqs.iter().find_map(|s| {
            let c = &s.machine.chart;
            Some((c.each.clone()?, c.readers.clone()))
        }),
        readers,
        vars: ReaderVars::new(&env, opts.project.as_deref(), Some(&opts.state)),
        project: opts.project.as_ref().map(|p| p.display().to_string()),
        follow_latest: opts.session.is_none(),
    }
}

/// Sessions for the picker: each session, then its subagents under it.
pub fn session_entries(state: &Path) -> Vec<SessionEntry> {
    let Ok(list) = sessions::list(state) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in list {
        let modified = s
            .modified
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as i64);
        for a in &s.agents {
            out.push(SessionEntry {
                id: a.clone(),
                parent: Some(s.id.clone()),
                label: "subagent".into(),
                modified,
                agent: true,
            });
        }
        out.push(SessionEntry {
            id: s.id.clone(),
            parent: s.parent.clone(),
            label: format!(
                "{} · {} records",
                s.cwd.clone().unwrap_or_default(),
                s.records
            ),
            modified,
            agent: false,
        });
    }
    out
}
