//! File-system notifications as wake-ups only: "something changed, poll now".
//!
//! The parent directories are watched (non-recursively), not the files: a watch on a file
//! follows its inode, so after a rotation it would report the old file and miss the new one,
//! and a file that does not exist yet cannot be watched at all. Event kinds are ignored because
//! writers and platforms differ; any event for a followed name is a wake-up. Where notify is
//! unavailable or silent (network file systems, some containers), a slow timer wakes instead.
//! Either way the reader should also poll on a timeout, so a lost event only delays a line.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};

/// Slow-poll period when notify is not used.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchMode {
    /// Notifications on the parent directories of the followed paths.
    Notify,
    /// A timer wakes every `interval`; `reason` says why notify is not used.
    Poll { interval: Duration, reason: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchOptions {
    /// Skip notify and use the timer (a `--poll` flag; file systems that never notify).
    pub force_poll: bool,
    pub poll_interval: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            force_poll: false,
            poll_interval: DEFAULT_POLL_INTERVAL,
        }
    }
}

/// Owns the notify watcher or the timer thread; dropping it stops the wake-ups.
pub struct PathWatcher {
    mode: WatchMode,
    _watcher: Option<RecommendedWatcher>,
    _ticker: Option<Ticker>,
}

impl std::fmt::Debug for PathWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PathWatcher")
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl PathWatcher {
    /// Wakes through a channel: each wake-up is one `()`; the reader drains them and polls once.
    pub fn with_sender(paths: &[PathBuf], options: WatchOptions, tx: Sender<()>) -> PathWatcher {
        PathWatcher::new(paths, options, move || {
            // The reader hung up: nothing left to wake.
            let _ = tx.send(());
        })
    }

    /// Calls `wake` (from notify's or the timer's thread) whenever a followed path may have
    /// changed. Never fails: when notify cannot be used it falls back to the timer.
    pub fn new<F>(paths: &[PathBuf], options: WatchOptions, wake: F) -> PathWatcher
    where
        F: Fn() + Send + Sync + 'static,
    {
        let wake = Arc::new(wake);
        let interval = options.poll_interval.max(Duration::from_millis(10));
        let reason = if options.force_poll {
            "polling was requested".to_string()
        } else {
            match notify_watcher(paths, Arc::clone(&wake)) {
                Ok(watcher) => {
                    return PathWatcher {
                        mode: WatchMode::Notify,
                        _watcher: Some(watcher),
                        _ticker: None,
                    };
                }
                Err(reason) => reason,
            }
        };
        let ticker = Ticker::spawn(interval, wake);
        let reason = match &ticker {
            Ok(_) => reason,
            Err(e) => format!("{reason}; the timer thread failed too ({e}), poll on a timeout"),
        };
        PathWatcher {
            mode: WatchMode::Poll { interval, reason },
            _watcher: None,
            _ticker: ticker.ok(),
        }
    }

    pub fn mode(&self) -> &WatchMode {
        &self.mode
    }
}

fn notify_watcher<F>(paths: &[PathBuf], wake: Arc<F>) -> Result<RecommendedWatcher, String>
where
    F: Fn() + Send + Sync + 'static,
{
    let mut dirs = Vec::new();
    let mut targets = HashSet::new();
    for path in paths {
        let (dir, name) = split(path).ok_or_else(|| format!("{} names no file", path.display()))?;
        // Canonical, because that is how notify reports paths under a watched directory.
        let dir = dir
            .canonicalize()
            .map_err(|e| format!("cannot watch {}: {e}", dir.display()))?;
        // A pattern's name (`*.json`) follows every file of its directory: a file created
        // there after the watch began may be one it matches.
        let glob = name.to_string_lossy().contains(['*', '?', '[']);
        targets.insert(dir.join(if glob { ANY.as_ref() } else { name }));
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        // An error may mean lost events: wake and let the poll find out.
        if res
            .as_ref()
            .map_or(true, |event| is_relevant(event, &targets))
        {
            wake();
        }
    })
    .map_err(|e| format!("notify is unavailable: {e}"))?;
    for dir in &dirs {
        watcher
            .watch(dir, RecursiveMode::NonRecursive)
            .map_err(|e| format!("cannot watch {}: {e}", dir.display()))?;
    }
    Ok(watcher)
}

/// A file path as (parent directory, file name); a bare name lives in the current directory.
fn split(path: &Path) -> Option<(&Path, &std::ffi::OsStr)> {
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    Some((dir, name))
}

/// The target that stands for every file of a directory (a followed pattern's).
const ANY: &str = "*";

/// Whether an event may concern a followed path. Kinds are ignored on purpose.
fn is_relevant(event: &notify::Event, targets: &HashSet<PathBuf>) -> bool {
    event.need_rescan()
        || event.paths.is_empty()
        || event.paths.iter().any(|p| {
            targets.contains(p) || p.parent().is_some_and(|d| targets.contains(&d.join(ANY)))
        })
}

/// The slow-poll fallback: a thread that wakes every interval until its owner drops it.
struct Ticker {
    stop: Option<Sender<()>>,
    handle: Option<JoinHandle<()>>,
}

impl Ticker {
    fn spawn<F>(interval: Duration, wake: Arc<F>) -> std::io::Result<Ticker>
    where
        F: Fn() + Send + Sync + 'static,
    {
        let (stop, stopped) = mpsc::channel::<()>();
        let handle = thread::Builder::new()
            .name("seed-watch-poll".into())
            .spawn(move || {
                // Dropping the sender ends the wait at once, so Drop's join is prompt.
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
                    wake();
                }
            })?;
        Ok(Ticker {
            stop: Some(stop),
            handle: Some(handle),
        })
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.take();
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::EventKind;

    fn event(paths: &[&str]) -> notify::Event {
        let mut event = notify::Event::new(EventKind::Any);
        event.paths = paths.iter().map(PathBuf::from).collect();
        event
    }

    #[test]
    fn only_events_for_followed_names_wake() {
        let targets: HashSet<PathBuf> = [PathBuf::from("/s/log.jsonl")].into();
        assert!(is_relevant(&event(&["/s/log.jsonl"]), &targets));
        assert!(is_relevant(
            &event(&["/s/log.jsonl.1", "/s/log.jsonl"]),
            &targets
        ));
        assert!(!is_relevant(&event(&["/s/other.jsonl"]), &targets));
        assert!(!is_relevant(&event(&["/t/log.jsonl"]), &targets));
    }

    #[test]
    fn a_followed_pattern_wakes_for_any_file_of_its_directory() {
        let targets: HashSet<PathBuf> = [PathBuf::from("/h/waypoints/*")].into();
        assert!(is_relevant(&event(&["/h/waypoints/new.json"]), &targets));
        assert!(!is_relevant(&event(&["/h/flights/new.json"]), &targets));
    }

    #[test]
    fn events_that_may_hide_changes_wake() {
        let targets: HashSet<PathBuf> = [PathBuf::from("/s/log.jsonl")].into();
        assert!(is_relevant(&event(&[]), &targets));
        let rescan = event(&["/s/other"]).set_flag(notify::event::Flag::Rescan);
        assert!(is_relevant(&rescan, &targets));
    }

    #[test]
    fn a_bare_file_name_is_in_the_current_directory() {
        assert_eq!(
            split(Path::new("log.jsonl")),
            Some((Path::new("."), "log.jsonl".as_ref()))
        );
        assert_eq!(split(Path::new("/")), None);
    }
}
