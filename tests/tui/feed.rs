//! The feed thread end to end: a session's log read through the real tailer into the model,
//! with and without the hook's saved snapshot, gives the same dashboard.

use crate::support::tui as common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use seed::store::record::Record;
use seed::store::snapshot::{self, SavedSnapshot};
use seed::store::{log, paths};
use seed::tui::feed::{self, FeedConfig};
use seed::tui::{Model, Msg, Seq, SessionInfo, update};

const SESSION: &str = "s-feed";

/// Write `records` as the hook would, with a snapshot covering the first `covered` of them.
fn session(state: &Path, records: &[Record], covered: usize) -> PathBuf {
    let path = paths::session_log(state, SESSION);
    std::fs::create_dir_all(path.parent().expect("dir")).expect("dir");
    let machine = common::machine(common::SEQUENCE);
    for r in &records[..covered] {
        log::append_once(&path, r).expect("append");
    }
    let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let saved = SavedSnapshot {
        v: snapshot::SAVED_VERSION,
        sequence: common::SEQUENCE.into(),
        source: "builtin".into(),
        fingerprint: machine.fingerprint.clone(),
        log_len: len,
        records: covered as u64,
        snapshot: seed::session::fold::fold(&machine, &records[..covered]),
    };
    snapshot::save(
        &paths::snapshot_path(state, SESSION, common::SEQUENCE),
        &saved,
    )
    .expect("save");
    snapshot::save_chart(
        &paths::chart_path(state, SESSION, common::SEQUENCE),
        &machine.chart,
    )
    .expect("chart");
    for r in &records[covered..] {
        log::append_once(&path, r).expect("append");
    }
    path
}

fn follow(state: &Path, log: &Path, use_cache: bool, n: usize) -> Model {
    let machine = common::machine(common::SEQUENCE);
    let cfg = FeedConfig {
        generation: 7,
        state: state.to_path_buf(),
        session: SESSION.into(),
        started: None,
        log: Some(log.to_path_buf()),
        known: vec![(common::SEQUENCE.into(), machine.fingerprint.clone())],
        use_cache,
        search_dirs: Vec::new(),
        readers: Vec::new(),
        each: None,
        vars: Default::default(),
        project: None,
        follow_latest: false,
        poll: Duration::from_millis(200),
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let _feed = feed::spawn(cfg, tx).expect("feed");
    let info = SessionInfo {
        id: SESSION.into(),
        source: String::new(),
        ..Default::default()
    };
    let mut m = Model::new(info, vec![Seq::new(machine, true)], "default");
    let start = Instant::now();
    while m.fold.applied < n || m.loading {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "feed stalled at {}",
            m.fold.applied
        );
        if let Ok((generation, msg)) = rx.try_recv() {
            assert_eq!(generation, 7);
            update(&mut m, msg);
        } else {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    m
}

fn rows(m: &Model) -> Vec<String> {
    m.rows
        .iter()
        .map(|r| {
            format!(
                "{} {} {:?} {:?} {} {:?}",
                m.rows.name(r),
                m.rows.detail(r),
                r.kind,
                r.outcome(usize::MAX),
                m.rows.lane(r),
                m.rows.ts(r)
            )
        })
        .collect()
}

fn same_dashboard(a: &Model, b: &Model) {
    assert_eq!(a.fold.snaps, b.fold.snaps, "engine state");
    assert_eq!(a.fold.health, b.fold.health);
    assert_eq!(a.fold.deep, b.fold.deep);
    assert_eq!(a.fold.denials, b.fold.denials);
    assert_eq!(rows(a), rows(b));
    assert_eq!(a.derived.status, b.derived.status);
    assert_eq!(a.marks, b.marks);
}

#[test]
fn the_snapshot_backlog_path_shows_what_folding_every_record_shows() {
    let records = common::demo_session().records;
    let n = records.len();
    for covered in [n, n / 2, 0] {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = session(dir.path(), &records, covered);
        let cached = follow(dir.path(), &log, true, n);
        let folded = follow(dir.path(), &log, false, n);
        same_dashboard(&cached, &folded);
    }
}

#[test]
fn appends_after_the_backlog_are_stepped_live() {
    let records = common::demo_session().records;
    let n = records.len();
    let dir = tempfile::tempdir().expect("tempdir");
    let log = session(dir.path(), &records[..n - 5], n - 5);
    let machine = common::machine(common::SEQUENCE);
    let cfg = FeedConfig {
        generation: 1,
        state: dir.path().to_path_buf(),
        session: SESSION.into(),
        started: None,
        log: Some(log.clone()),
        known: vec![(common::SEQUENCE.into(), machine.fingerprint.clone())],
        use_cache: true,
        search_dirs: Vec::new(),
        readers: Vec::new(),
        each: None,
        vars: Default::default(),
        project: None,
        follow_latest: false,
        poll: Duration::from_millis(200),
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let _feed = feed::spawn(cfg, tx).expect("feed");
    let info = SessionInfo {
        id: SESSION.into(),
        source: String::new(),
        ..Default::default()
    };
    let mut m = Model::new(info, vec![Seq::new(machine.clone(), true)], "default");
    let mut pump = |m: &mut Model, want: usize| {
        let start = Instant::now();
        while m.fold.applied < want || m.loading {
            assert!(start.elapsed() < Duration::from_secs(20), "stalled");
            match rx.try_recv() {
                Ok((_, Msg::LogReset(why))) => panic!("unexpected reset: {why}"),
                Ok((_, msg)) => {
                    update(m, msg);
                }
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    };
    pump(&mut m, n - 5);
    for r in &records[n - 5..] {
        log::append_once(&log, r).expect("append");
    }
    pump(&mut m, n);
    assert_eq!(
        m.fold.snaps[0].as_ref(),
        Some(&seed::session::fold::fold(&machine, &records))
    );
}

/// A state file created after the dashboard started (a waypoint journey begun) wakes the feed
/// through notify: the fallback poll is an hour here, so only the watch can tell it.
#[test]
fn a_state_file_created_later_wakes_the_feed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let heaven = dir.path().join("heaven");
    std::fs::create_dir_all(heaven.join("waypoints")).expect("dir");
    let machine = common::machine(common::SEQUENCE);
    let cfg = FeedConfig {
        generation: 1,
        state: dir.path().join("state"),
        session: SESSION.into(),
        started: None,
        log: None,
        known: Vec::new(),
        use_cache: false,
        search_dirs: Vec::new(),
        readers: machine.chart.readers.clone(),
        each: None,
        vars: seed::store::readers::ReaderVars {
            heaven_data_dir: Some(heaven.display().to_string()),
            ..Default::default()
        },
        project: None,
        follow_latest: false,
        poll: Duration::from_secs(3600),
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let _feed = feed::spawn(cfg, tx).expect("feed");
    let waypoint = |rx: &mut tokio::sync::mpsc::UnboundedReceiver<feed::Tagged>| {
        let start = Instant::now();
        loop {
            assert!(start.elapsed() < Duration::from_secs(20), "no facts came");
            match rx.try_recv() {
                Ok((_, Msg::Facts { facts, .. })) => return facts["waypoint_status"].clone(),
                Ok(_) => {}
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    };
    assert_eq!(waypoint(&mut rx), serde_json::Value::Null);
    std::fs::write(
        heaven.join("waypoints/parser.json"),
        r#"{"status":"active"}"#,
    )
    .expect("file");
    assert_eq!(waypoint(&mut rx), serde_json::json!("active"));
}

/// A failure record as the hook appends it to `errors.jsonl` when no session log takes it.
fn errors_record(session: &str, ts: &str, fail: &str, budget: bool) -> Record {
    let mut r = Record::new(ts, session, "PreToolUse");
    r.error = Some("seed: the session log stayed locked".into());
    r.extra = serde_json::json!({ "fail": fail });
    if budget {
        r.extra["budget_ms"] = serde_json::json!(500);
    }
    r
}

/// Failures only `errors.jsonl` holds reach the live dashboard: this session's (by id),
/// lapses apart from fail-closed refusals, and those with no session since it started; one
/// appended later arrives too. Other sessions' and older unattributed ones do not count.
#[test]
fn failures_only_the_errors_log_holds_reach_the_live_header() {
    use seed::store::failures::Tally;
    let records = common::demo_session().records;
    let dir = tempfile::tempdir().expect("tempdir");
    let log = session(dir.path(), &records, records.len());
    let errors = paths::errors_log(dir.path());
    for r in [
        errors_record(SESSION, "2026-11-22T10:00:00Z", "closed", true),
        errors_record(SESSION, "2026-11-22T10:00:01Z", "closed", false),
        errors_record("", "2026-11-22T10:00:02Z", "open", false),
        errors_record("", "2026-11-01T00:00:00Z", "open", false),
        errors_record("other", "2026-11-22T10:00:03Z", "open", false),
    ] {
        log::append_once(&errors, &r).expect("append");
    }
    let machine = common::machine(common::SEQUENCE);
    let mut cfg = seed::tui::start::feed_config(
        &seed::tui::start::Options {
            state: dir.path().to_path_buf(),
            poll: Duration::from_millis(200),
            ..Default::default()
        },
        SESSION,
        Some(log),
        &[],
        3,
    );
    cfg.started = seed::tui::model::parse_ts("2026-11-22T09:00:00Z");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let _feed = feed::spawn(cfg, tx).expect("feed");
    let info = SessionInfo {
        id: SESSION.into(),
        ..Default::default()
    };
    let mut m = Model::new(info, vec![Seq::new(machine, true)], "default");
    let mut wait_for = |m: &mut Model, session: Tally, unattributed: Tally| {
        let start = Instant::now();
        while (m.outside.session, m.outside.unattributed) != (session, unattributed) {
            assert!(start.elapsed() < Duration::from_secs(20), "{:?}", m.outside);
            match rx.try_recv() {
                Ok((_, msg)) => {
                    update(m, msg);
                }
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    };
    let one = |lapses, failed_closed| Tally {
        lapses,
        failed_closed,
    };
    wait_for(&mut m, one(1, 1), one(1, 0));
    let later = errors_record(SESSION, "2026-11-22T10:00:04Z", "open", false);
    log::append_once(&errors, &later).expect("append");
    wait_for(&mut m, one(2, 1), one(1, 0));
}
