//! The tail thread: owns the session log's [`Tailer`] and the deep-state readers, wakes on
//! notify events or a slow fallback poll, and sends batches of messages to the loop. Sequences
//! the records name are loaded here (I/O stays off the UI thread) and sent before the first
//! record that needs them.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc::UnboundedSender;

use crate::dialects;
use crate::engine::Snapshot;
use crate::engine::ir::{Each, ReaderDecl};
use crate::engine::{Facts, Machine};
use crate::store::reader_each::{self, Item};
use crate::store::readers::{self, ReaderVars};
use crate::store::tail::{ResetReason, TailEvent, TailLimits, Tailer, parse_record_line};
use crate::store::watch::{PathWatcher, WatchOptions};
use crate::store::{paths, sessions, snapshot};

use super::fold::Backlog;
use super::fold::Seq;
use super::lite::{LiteRef, Rec};
use super::model::Entry;
use super::update::Msg;

/// Records per message at most, so a huge backlog reaches the screen in steps and the memory
/// held by parsed records in flight stays small.
const BATCH: usize = 4_096;
/// Bytes read per poll (the tailer's budget): bounds a backlog's lines in memory at once.
const POLL_BYTES: u64 = 4 << 20;

/// A message tagged with the generation of the feed that sent it: after a session switch, the
/// loop drops what the old feed had already queued.
pub type Tagged = (u64, Msg);

#[derive(Debug, Clone)]
pub struct FeedConfig {
    pub generation: u64,
    pub state: PathBuf,
    pub session: String,
    /// When the session started (unix ms), when known: failures with no session recorded
    /// since then are counted for it.
    pub started: Option<i64>,
    /// The log to follow (`None`: no session yet; watch for one).
    pub log: Option<PathBuf>,
    /// Sequences the model already follows: record name and chart fingerprint (to trust the
    /// hook's saved snapshot of the same chart).
    pub known: Vec<(String, String)>,
    /// Every sequence follows the log as the hook stepped it, so the hook's snapshots are the
    /// fold of the backlog (not so for a what-if `--sequence`).
    pub use_cache: bool,
    /// Where named sequences are looked up when the session has no saved chart.
    pub search_dirs: Vec<PathBuf>,
    /// Deep-state readers to sample, and the variables their paths may use.
    pub readers: Vec<ReaderDecl>,
    /// A sequence's `[each]` (seed 002's organs) and its readers: each item's facts are sampled
    /// with the others.
    pub each: Option<(Each, Vec<ReaderDecl>)>,
    pub vars: ReaderVars,
    /// Project directory: with `follow_latest`, a newer session there is announced.
    pub project: Option<String>,
    pub follow_latest: bool,
    /// Fallback poll period (notify wake-ups come sooner).
    pub poll: Duration,
}

/// Stops the thread when dropped.
pub struct Feed {
    stop: Arc<AtomicBool>,
    wake: mpsc::Sender<()>,
    handle: Option<JoinHandle<()>>,
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.wake.send(());
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

pub fn spawn(cfg: FeedConfig, tx: UnboundedSender<Tagged>) -> std::io::Result<Feed> {
    let stop = Arc::new(AtomicBool::new(false));
    let (wake_tx, wake_rx) = mpsc::channel();
    let s = Arc::clone(&stop);
    let w = wake_tx.clone();
    let handle = std::thread::Builder::new()
        .name("seed-tui-feed".into())
        .spawn(move || run(cfg, tx, s, w, wake_rx))?;
    Ok(Feed {
        stop,
        wake: wake_tx,
        handle: Some(handle),
    })
}

/// Load a sequence the log names: the chart the hook saved for this session (overrides
/// applied), else by name.
pub fn load_sequence(cfg: &FeedConfig, name: &str) -> Result<Seq, String> {
    let saved = paths::chart_path(&cfg.state, &cfg.session, name);
    if let Some(chart) = snapshot::load_chart(&saved) {
        return Ok(Seq::named(name, Machine::new(chart), true));
    }
    dialects::resolve(name, &cfg.search_dirs)
        .map(|l| Seq::named(name, Machine::new(l.chart), true))
        .map_err(|e| format!("cannot load sequence `{name}`: {e}"))
}

fn run(
    cfg: FeedConfig,
    tx: UnboundedSender<Tagged>,
    stop: Arc<AtomicBool>,
    wake_tx: mpsc::Sender<()>,
    wake_rx: mpsc::Receiver<()>,
) {
    let send = |m: Msg| tx.send((cfg.generation, m)).is_ok();
    let mut known: HashSet<String> = cfg.known.iter().map(|(n, _)| n.clone()).collect();
    let mut tailer = cfg.log.as_ref().map(|p| new_tailer(p));
    // The backlog the hook's snapshots already cover is read without stepping the engines.
    let mut cache = cfg.log.as_ref().and_then(|p| cached(&cfg, p));
    let mut backlog = Backlog::new();
    if cache.is_some() && !send(Msg::Loading) {
        return;
    }
    // Wake-ups: the log's directory, and the reader files that exist now (new ones are found by
    // the fallback poll). Separate watchers, so a reader directory that cannot be watched does
    // not turn the log's watch into polling.
    let _log_watch = cfg.log.as_ref().map(|p| {
        let w = wake_tx.clone();
        PathWatcher::new(
            std::slice::from_ref(p),
            WatchOptions::default(),
            move || {
                let _ = w.send(());
            },
        )
    });
    let reader_files: Vec<PathBuf> = cfg
        .readers
        .iter()
        .filter_map(|r| readers::expand(r.kind.path(), &cfg.vars))
        .flat_map(|p| {
            let mut found = readers::glob(&p);
            found.extend(watchable(&p));
            found
        })
        .collect();
    let _reader_watch = (!reader_files.is_empty()).then(|| {
        let w = wake_tx.clone();
        let opts = WatchOptions {
            force_poll: false,
            poll_interval: cfg.poll,
        };
        PathWatcher::new(&reader_files, opts, move || {
            let _ = w.send(());
        })
    });
    let mut last_facts: Option<Facts> = None;
    let mut last_items: Option<(Vec<Item>, usize)> = None;
    let mut newest_seen: Option<String> = None;
    let mut errors_seen = None;
    while !stop.load(Ordering::Relaxed) {
        let mut behind = false;
        if let Some(t) = tailer.as_mut() {
            match drain(t, &cfg, &mut known, &mut cache, &mut backlog, &send) {
                Drained::Ok => {}
                Drained::Gone => return,
                Drained::Restart => {
                    // A sequence the snapshots do not cover: read everything again, stepping.
                    cache = None;
                    backlog = Backlog::new();
                    if let Some(p) = &cfg.log {
                        *t = new_tailer(p);
                    }
                    if !send(Msg::LogReset(
                        "reading the log again for a sequence it names".into(),
                    )) {
                        return;
                    }
                    continue;
                }
            }
            behind = t.is_behind();
        }
        if !sample_files(&cfg, &mut last_facts, &mut last_items, &send) {
            return;
        }
        if !send_outside(&cfg, &mut errors_seen, &send) {
            return;
        }
        if behind {
            continue;
        }
        match wake_rx.recv_timeout(cfg.poll) {
            Ok(()) => while wake_rx.try_recv().is_ok() {},
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // Idle: the moment to look for a newer session of this project.
                if cfg.follow_latest
                    && let Some(id) = newer_session(&cfg)
                    && newest_seen.as_deref() != Some(id.as_str())
                {
                    newest_seen = Some(id.clone());
                    if !send(Msg::NewerSession(id)) {
                        return;
                    }
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Sample the readers (and each item's, for `[each]`) and send what changed; `false` when
/// the loop has gone.
fn sample_files(
    cfg: &FeedConfig,
    last_facts: &mut Option<Facts>,
    last_items: &mut Option<(Vec<Item>, usize)>,
    send: &dyn Fn(Msg) -> bool,
) -> bool {
    let now = SystemTime::now();
    if let Some((each, decls)) = &cfg.each {
        let items = reader_each::sample(each, decls, &cfg.vars, now);
        if last_items.as_ref() != Some(&items) {
            if !send(Msg::Items(items.0.clone(), items.1)) {
                return false;
            }
            *last_items = Some(items);
        }
    }
    if cfg.readers.is_empty() {
        return true;
    }
    let facts = readers::sample(&cfg.readers, &cfg.vars, now);
    if last_facts.as_ref() == Some(&facts) {
        return true;
    }
    let ms = jiff::Timestamp::now().as_millisecond();
    let sent = send(Msg::Facts {
        facts: facts.clone(),
        now: ms,
    });
    *last_facts = Some(facts);
    sent
}

/// A reader's path to watch besides the files it matches now, so a file created later wakes
/// the feed at once: a pattern or a missing file whose directory exists (and is no pattern).
fn watchable(path: &std::path::Path) -> Option<PathBuf> {
    let dir = path.parent()?;
    let plain = !dir.to_string_lossy().contains(['*', '?', '[']);
    (plain && dir.is_dir() && !path.is_file()).then(|| path.to_path_buf())
}

/// What `errors.jsonl` holds for the session, when it changed since `seen`; `false` when the
/// dashboard is gone.
fn send_outside(
    cfg: &FeedConfig,
    seen: &mut Option<Option<(u64, SystemTime)>>,
    send: &dyn Fn(Msg) -> bool,
) -> bool {
    let now = super::outside::stamp(&cfg.state);
    if seen.as_ref() == Some(&now) {
        return true;
    }
    *seen = Some(now);
    let since = cfg.started;
    send(Msg::Outside(super::outside::read(
        &cfg.state,
        &cfg.session,
        since,
    )))
}

fn new_tailer(path: &std::path::Path) -> Tailer {
    Tailer::new(path).with_limits(TailLimits {
        poll_budget: POLL_BYTES,
        ..TailLimits::default()
    })
}

/// Saved snapshots of every known sequence covering the same log prefix: (its length, them).
fn cached(cfg: &FeedConfig, log: &std::path::Path) -> Option<(u64, Vec<(String, Snapshot)>)> {
    if cfg.known.is_empty() || !cfg.use_cache {
        return None;
    }
    let len = std::fs::metadata(log).ok()?.len();
    let mut at = None;
    let mut out = Vec::new();
    for (name, fingerprint) in &cfg.known {
        let saved = snapshot::load(&paths::snapshot_path(&cfg.state, &cfg.session, name))?;
        if saved.v != snapshot::SAVED_VERSION
            || &saved.fingerprint != fingerprint
            || saved.log_len > len
        {
            return None;
        }
        if *at.get_or_insert(saved.log_len) != saved.log_len {
            return None;
        }
        out.push((name.clone(), saved.snapshot));
    }
    Some((at?, out))
}

enum Drained {
    Ok,
    /// The loop has gone.
    Gone,
    /// Start reading from the beginning without the cache.
    Restart,
}

/// Records on their way to the loop, in log order.
struct Out<'a> {
    send: &'a dyn Fn(Msg) -> bool,
    records: Vec<Entry>,
}

impl Out<'_> {
    fn flush(&mut self) -> bool {
        self.records.is_empty() || (self.send)(Msg::Records(std::mem::take(&mut self.records)))
    }

    fn msg(&mut self, m: Msg) -> bool {
        self.flush() && (self.send)(m)
    }
}

/// One poll of the log: records in batches, each new sequence sent before the first record that
/// names it; the backlog a saved snapshot covers folded here, then handed over with the
/// snapshot.
fn drain(
    t: &mut Tailer,
    cfg: &FeedConfig,
    known: &mut HashSet<String>,
    cache: &mut Option<(u64, Vec<(String, Snapshot)>)>,
    backlog: &mut Backlog,
    send: &dyn Fn(Msg) -> bool,
) -> Drained {
    let mut out = Out {
        send,
        records: Vec::new(),
    };
    let mut bad = 0u64;
    let hand_over = |out: &mut Out, backlog: &mut Backlog, snaps| {
        out.msg(Msg::Backlog(Box::new(std::mem::take(backlog)))) && out.msg(Msg::Cache(snaps))
    };
    for ev in t.poll() {
        match ev {
            TailEvent::Line { offset, bytes, .. } => {
                if bytes.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if cache.as_ref().is_some_and(|(at, _)| offset < *at) {
                    let Ok(r) = LiteRef::parse(&bytes) else {
                        bad += 1;
                        continue;
                    };
                    if r.sequences().iter().any(|n| !known.contains(*n)) {
                        return Drained::Restart;
                    }
                    backlog.push(offset, &r);
                    continue;
                }
                if let Some((_, snaps)) = cache.take()
                    && !hand_over(&mut out, backlog, snaps)
                {
                    return Drained::Gone;
                }
                let Ok(record) = parse_record_line(&bytes) else {
                    bad += 1;
                    continue;
                };
                for name in &record.sequences {
                    if known.insert(name.clone()) {
                        let msg = match load_sequence(cfg, name) {
                            Ok(seq) => Msg::Sequence(seq),
                            Err(e) => Msg::Notice(e),
                        };
                        if !out.msg(msg) {
                            return Drained::Gone;
                        }
                    }
                }
                out.records.push(Entry { offset, record });
                if out.records.len() >= BATCH && !out.flush() {
                    return Drained::Gone;
                }
            }
            TailEvent::TooLong { .. } => bad += 1,
            TailEvent::Reset { reason } => {
                *cache = None;
                *backlog = Backlog::new();
                let why = match reason {
                    ResetReason::Truncated => "the log was truncated; reading it again",
                    ResetReason::Rotated => "the log was replaced; reading the new one",
                    ResetReason::Recreated => "the log was recreated; reading it again",
                };
                if !out.msg(Msg::LogReset(why.into())) {
                    return Drained::Gone;
                }
            }
            TailEvent::Missing => {}
        }
    }
    // The whole covered prefix is read: hand it over with the engines' state that follows it.
    if !t.is_behind()
        && cache.as_ref().is_some_and(|(at, _)| t.offset() >= *at)
        && let Some((_, snaps)) = cache.take()
        && !hand_over(&mut out, backlog, snaps)
    {
        return Drained::Gone;
    }
    if !out.flush() || (bad > 0 && !send(Msg::Malformed(bad))) {
        return Drained::Gone;
    }
    Drained::Ok
}

/// The most recent session of the project when it is not the one followed.
fn newer_session(cfg: &FeedConfig) -> Option<String> {
    let list = sessions::list(&cfg.state).ok()?;
    let best = pick_latest(&list, cfg.project.as_deref())?;
    (best.id != cfg.session).then(|| best.id.clone())
}

/// The most recently written session of the project (its directory, or one inside the
/// other); none when no session ran there: another project's session is never shown unasked
/// (the session picker lists them all).
pub fn pick_latest<'a>(
    list: &'a [sessions::SessionInfo],
    project: Option<&str>,
) -> Option<&'a sessions::SessionInfo> {
    match project {
        Some(p) => sessions::latest_in(list, std::path::Path::new(p)),
        None => list.first(),
    }
}

/// Records numbered `wanted` (ascending or not), read from the log starting at the record
/// numbered `from.0`, which begins at byte `from.1`: records are counted as the feed counts
/// them (blank, malformed and overlong lines are not records). For a call's detail.
pub fn read_records(
    log: &std::path::Path,
    from: (usize, u64),
    wanted: &[usize],
) -> Vec<(usize, crate::store::record::Record)> {
    let Some(&last) = wanted.iter().max() else {
        return Vec::new();
    };
    let mut t = Tailer::from_offset(log, from.1).with_limits(TailLimits {
        poll_budget: POLL_BYTES,
        ..TailLimits::default()
    });
    let mut index = from.0;
    let mut out = Vec::new();
    loop {
        let events = t.poll();
        if events.is_empty() {
            return out;
        }
        for ev in events {
            let TailEvent::Line { bytes, .. } = ev else {
                continue;
            };
            if bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let Ok(record) = parse_record_line(&bytes) else {
                continue;
            };
            if wanted.contains(&index) {
                out.push((index, record));
            }
            if index >= last {
                return out;
            }
            index += 1;
        }
    }
}
