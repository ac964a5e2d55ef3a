//! Wake-ups: notify on the parent directory, or the slow poll.

use std::sync::mpsc;
use std::time::Duration;

use seed::store::tail::Tailer;
use seed::store::watch::{PathWatcher, WatchMode, WatchOptions};

use crate::{append, setup, show};

/// Wiring only: a write leads to a wake-up (notify, or the slow poll where notify is absent).
#[test]
fn a_write_to_a_watched_path_wakes_the_reader() {
    let (_dir, path) = setup();
    let (tx, rx) = mpsc::channel();
    let watcher =
        PathWatcher::with_sender(std::slice::from_ref(&path), WatchOptions::default(), tx);
    let mut tail = Tailer::new(&path);
    append(&path, "hello\n");
    rx.recv_timeout(Duration::from_secs(5))
        .expect("a wake-up within 5 s");
    while rx.try_recv().is_ok() {}
    assert_eq!(
        show(&tail.poll()),
        ["hello"],
        "mode was {:?}",
        watcher.mode()
    );
}

#[test]
fn forced_polling_wakes_on_a_timer_and_says_why() {
    let (_dir, path) = setup();
    let (tx, rx) = mpsc::channel();
    let options = WatchOptions {
        force_poll: true,
        poll_interval: Duration::from_millis(20),
    };
    let watcher = PathWatcher::with_sender(&[path], options, tx);
    assert!(
        matches!(watcher.mode(), WatchMode::Poll { reason, .. } if reason.contains("requested"))
    );
    rx.recv_timeout(Duration::from_secs(5))
        .expect("a timer wake-up");
    drop(watcher);
    while rx.try_recv().is_ok() {}
    assert!(
        rx.recv_timeout(Duration::from_millis(100)).is_err(),
        "dropping the watcher stops it"
    );
}

#[test]
fn a_missing_directory_falls_back_to_polling() {
    let (dir, _) = setup();
    let path = dir.path().join("no such dir").join("session.jsonl");
    let (tx, _rx) = mpsc::channel();
    let watcher = PathWatcher::with_sender(&[path], WatchOptions::default(), tx);
    assert!(
        matches!(watcher.mode(), WatchMode::Poll { reason, .. } if reason.contains("cannot watch"))
    );
}
