//! Dashboard benchmarks (`cargo bench --bench tui`):
//! - first frame on a 100k-record session: tail the log, fold it, render 120x40 (target ≤ 300 ms);
//! - append → model updated: the real feed thread (tailer + notify) and `update`, p50/p95 over
//!   250 appends (target ≤ 50 ms p95);
//! - memory after loading a 1M-record session (VmRSS/VmHWM of a child process; ≤ 100 MB);
//! - CPU of an idle `seed tui` in tmux over `SEED_BENCH_IDLE_SECS` (default 60) seconds, read
//!   from `/proc/<pid>/stat` (target ~0%); skipped without tmux.
//!
//! - a watched state file changes → the dashboard shows the state it moves to, marked as moved
//!   by files: the real feed thread (notify, readers, each organ's) and `update`, p50/p95 over
//!   40 rewrites of a SEAAM session's dna.json (target ≤ 250 ms);
//!
//! `SEED_BENCH_ONLY=first,append,files,memory,idle` runs some of them.

#[path = "../tests/support/tui/mod.rs"]
mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use seed::engine::Snapshot;
use seed::store::paths;
use seed::store::snapshot::{self, SavedSnapshot};
use seed::tui::feed::{self, FeedConfig};
use seed::tui::{Model, Seq, SessionInfo, Theme, update};
use tokio::sync::mpsc::UnboundedReceiver as Receiver;

const SESSION: &str = "bench-session";

/// A session of `n` records as the hook leaves it: the log, the compiled chart, and the
/// snapshot (the log's fold) covering it.
fn make_session(state: &Path, n: usize) -> PathBuf {
    let log = paths::session_log(state, SESSION);
    std::fs::create_dir_all(log.parent().expect("session dir")).expect("session dir");
    let machine = common::machine(common::SEQUENCE);
    let mut snap: Option<Snapshot> = None;
    let mut w = std::io::BufWriter::new(std::fs::File::create(&log).expect("log"));
    common::for_each_record(n, SESSION, |r| {
        serde_json::to_writer(&mut w, r).expect("record");
        w.write_all(b"\n").expect("write");
        if let Some((phase, ev, facts)) = r.step() {
            let s = snap.get_or_insert_with(|| machine.start(facts));
            machine.step(s, phase, ev, facts);
        }
    });
    w.flush().expect("flush");
    drop(w);
    let name = common::SEQUENCE;
    snapshot::save_chart(&paths::chart_path(state, SESSION, name), &machine.chart).expect("chart");
    let saved = SavedSnapshot {
        v: snapshot::SAVED_VERSION,
        sequence: name.into(),
        source: format!("builtin:{name}.json"),
        fingerprint: machine.fingerprint.clone(),
        log_len: std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0),
        records: n as u64,
        snapshot: snap.unwrap_or_else(|| machine.start(&Default::default())),
    };
    snapshot::save(&paths::snapshot_path(state, SESSION, name), &saved).expect("snapshot");
    log
}

fn feed_config(state: &Path, log: &Path) -> FeedConfig {
    let machine = common::machine(common::SEQUENCE);
    FeedConfig {
        generation: 1,
        state: state.to_path_buf(),
        session: SESSION.into(),
        started: None,
        log: Some(log.to_path_buf()),
        known: vec![(common::SEQUENCE.into(), machine.fingerprint.clone())],
        use_cache: true,
        search_dirs: Vec::new(),
        readers: Vec::new(),
        each: None,
        vars: Default::default(),
        project: None,
        follow_latest: false,
        poll: Duration::from_secs(2),
    }
}

fn new_model() -> Model {
    let seq = Seq::new(common::machine(common::SEQUENCE), true);
    let info = SessionInfo {
        id: SESSION.into(),
        source: String::new(),
        ..Default::default()
    };
    Model::new(info, vec![seq], "default")
}

/// Load a session through the real feed thread and `update`, until `n` records are in.
fn load(state: &Path, log: &Path, n: usize) -> (Model, feed::Feed, Receiver<feed::Tagged>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let f = feed::spawn(feed_config(state, log), tx).expect("feed");
    let mut m = new_model();
    while m.fold.applied < n || m.loading {
        match rx.blocking_recv() {
            Some((_, msg)) => {
                update(&mut m, msg);
            }
            None => panic!("feed stopped"),
        }
    }
    (m, f, rx)
}

fn first_frame(dir: &Path) {
    let state = dir.join("ff");
    let n = 100_000;
    let log = make_session(&state, n);
    let theme = Theme::load("default", None).expect("theme");
    let mut best = f64::MAX;
    let mut full = f64::MAX;
    for _ in 0..3 {
        let t0 = Instant::now();
        let (m, _feed, _rx) = load(&state, &log, n);
        let mut term = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
        term.draw(|f| seed::tui::render(f, &m, &theme))
            .expect("draw");
        best = best.min(t0.elapsed().as_secs_f64() * 1e3);
        assert_eq!(m.fold.applied, n);
        // The same session without the hook's snapshot: every record through the engine.
        let t1 = Instant::now();
        let mut cfg = feed_config(&state, &log);
        cfg.use_cache = false;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let _f = feed::spawn(cfg, tx).expect("feed");
        let mut m = new_model();
        while m.fold.applied < n {
            if let Some((_, msg)) = rx.blocking_recv() {
                update(&mut m, msg);
            }
        }
        term.draw(|f| seed::tui::render(f, &m, &theme))
            .expect("draw");
        full = full.min(t1.elapsed().as_secs_f64() * 1e3);
    }
    // Where the time goes, single-threaded: reading lines, then parsing and folding them.
    let t0 = Instant::now();
    let mut t = seed::store::tail::Tailer::new(&log);
    let mut lines = Vec::new();
    loop {
        for e in t.poll() {
            if let seed::store::tail::TailEvent::Line { offset, bytes, .. } = e {
                lines.push((offset, bytes));
            }
        }
        if !t.is_behind() {
            break;
        }
    }
    let read = t0.elapsed().as_secs_f64() * 1e3;
    let t0 = Instant::now();
    let mut backlog = seed::tui::fold::Backlog::new();
    for (offset, bytes) in &lines {
        if let Ok(r) = seed::tui::lite::LiteRef::parse(bytes) {
            backlog.push(*offset, &r);
        }
    }
    let fold = t0.elapsed().as_secs_f64() * 1e3;
    // The same backlog parsed as the owned, typed record every other reader uses: what the
    // dashboard's borrowed parse saves.
    let t0 = Instant::now();
    let mut typed = seed::tui::fold::Backlog::new();
    for (offset, bytes) in &lines {
        if let Ok(r) = seed::store::record::parse_line(bytes) {
            typed.push(*offset, &r);
        }
    }
    let typed_ms = t0.elapsed().as_secs_f64() * 1e3;
    assert_eq!(typed.rows.len(), backlog.rows.len());
    let size = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
    println!(
        "  of which: read lines {read:.0} ms, parse + fold the backlog {fold:.0} ms ({} rows); \
         parsed as owned records instead: {typed_ms:.0} ms",
        backlog.rows.len()
    );
    println!(
        "first frame, 100k records ({:.0} MB log): tail + fold + render 120x40 = {best:.0} ms \
         with the hook's saved snapshot (target <= 300 ms); {full:.0} ms stepping every record \
         through the engine (no snapshot, e.g. a what-if --sequence)",
        size as f64 / 1e6
    );
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn append_latency(dir: &Path) {
    let state = dir.join("live");
    let log = make_session(&state, 1_000);
    let (mut m, _feed, mut rx) = load(&state, &log, 1_000);
    let mut extra = Vec::new();
    common::for_each_record(1_300, SESSION, |r| extra.push(r.clone()));
    let mut out = std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("log");
    let mut lat = Vec::new();
    for r in &extra[1_000..1_250] {
        let mut line = serde_json::to_vec(r).expect("record");
        line.push(b'\n');
        let want = m.fold.applied + 1;
        let t0 = Instant::now();
        out.write_all(&line).expect("append");
        while m.fold.applied < want {
            match rx.blocking_recv() {
                Some((_, msg)) => {
                    update(&mut m, msg);
                }
                None => panic!("feed stopped"),
            }
        }
        lat.push(t0.elapsed().as_secs_f64() * 1e3);
        std::thread::sleep(Duration::from_millis(4));
    }
    lat.sort_by(f64::total_cmp);
    println!(
        "append -> model updated, {} appends through tailer + notify + update: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms (target p95 <= 50 ms)",
        lat.len(),
        percentile(&lat, 0.5),
        percentile(&lat, 0.95),
        lat[lat.len() - 1]
    );
}

/// dna.json: the observer organ designed and written; active or not.
fn seaam_dna(active: bool) -> String {
    let active: &[&str] = if active {
        &["soma.perception.observer"]
    } else {
        &[]
    };
    serde_json::json!({
        "goals": [{ "text": "I must be able to perceive the file system.", "achieved": false }],
        "blueprint": { "soma.perception.observer": { "description": "watches", "version": 1 } },
        "failures": [],
        "active_modules": active,
    })
    .to_string()
}

/// A SEAAM session at Generating in the log, followed by the real feed (notify on dna.json);
/// each rewrite of dna.json must move the dashboard (Importing ↔ Running, moved by files).
fn files_move(dir: &Path) {
    let state = dir.join("files");
    let project = dir.join("files-project");
    std::fs::create_dir_all(project.join("soma/perception")).expect("project");
    std::fs::write(
        project.join("soma/perception/observer.py"),
        "def start(): pass\n",
    )
    .expect("organ");
    std::fs::write(project.join("dna.json"), seaam_dna(false)).expect("dna");
    let script = files_script();
    let log = paths::session_log(&state, SESSION);
    std::fs::create_dir_all(log.parent().expect("session dir")).expect("session dir");
    std::fs::write(&log, script.jsonl()).expect("log");
    let machine = script.machine.clone();
    let mut cfg = feed_config(&state, &log);
    cfg.known = Vec::new();
    cfg.use_cache = false;
    cfg.readers = machine.chart.readers.clone();
    cfg.each = machine
        .chart
        .each
        .clone()
        .map(|e| (e, machine.chart.readers.clone()));
    cfg.vars = seed::store::readers::ReaderVars {
        project_dir: Some(project.display().to_string()),
        ..Default::default()
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let _f = feed::spawn(cfg, tx).expect("feed");
    let info = SessionInfo {
        id: SESSION.into(),
        ..Default::default()
    };
    let mut m = Model::new(info, vec![Seq::new(machine, true)], "default");
    let shows = |m: &Model, state: &str| {
        m.moved().is_some()
            && m.status()
                .is_some_and(|st| st.current.iter().any(|c| c == state))
    };
    let mut lat = Vec::new();
    for i in 0..41 {
        let (active, want) = if i % 2 == 0 {
            (true, "Running")
        } else {
            (false, "Importing")
        };
        let t0 = Instant::now();
        std::fs::write(project.join("dna.json"), seaam_dna(active)).expect("dna");
        while !shows(&m, want) {
            match rx.blocking_recv() {
                Some((_, msg)) => {
                    update(&mut m, msg);
                }
                None => panic!("feed stopped"),
            }
        }
        // The first change also waits for the log to be read: not counted.
        if i > 0 {
            lat.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    lat.sort_by(f64::total_cmp);
    println!(
        "dna.json rewritten -> dashboard moved by files (feed + notify + readers + settle), {} changes: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms (target <= 250 ms)",
        lat.len(),
        percentile(&lat, 0.5),
        percentile(&lat, 0.95),
        lat[lat.len() - 1]
    );
}

/// The log of a SEAAM session at Generating: an organ designed, the Genesis loop started.
fn files_script() -> common::Script {
    let mut s = common::Script::of("seaam_organ_lifecycle", SESSION);
    common::walks::dna(&mut s, 1, 0, 0, (0, 1));
    s.lifecycle("SessionStart")
        .prompt("grow an observer organ")
        .call(
            "Bash",
            serde_json::json!({"command": "python -m seaam.genesis"}),
            5000,
            Some(true),
        );
    s
}

fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Runs in a child process so the figure is this load alone.
fn memory_child(state: &Path, log: &Path, n: usize) {
    let before = status_kb("VmRSS:");
    let t0 = Instant::now();
    let (m, feed, rx) = load(state, log, n);
    drop(feed);
    drop(rx);
    let secs = t0.elapsed().as_secs_f64();
    let rss = status_kb("VmRSS:");
    let hwm = status_kb("VmHWM:");
    println!(
        "memory, {n} records loaded in {secs:.1} s: VmRSS {:.0} MB (process before load {:.0} MB), peak VmHWM {:.0} MB; rows {} in {:.0} MB (target <= 100 MB)",
        rss as f64 / 1024.0,
        before as f64 / 1024.0,
        hwm as f64 / 1024.0,
        m.rows.len(),
        m.rows.heap_bytes() as f64 / 1e6,
    );
}

fn memory(dir: &Path) {
    let state = dir.join("mem");
    let n = 1_000_000;
    let log = make_session(&state, n);
    let exe = std::env::current_exe().expect("bench exe");
    let out = Command::new(exe)
        .arg("--memory-child")
        .arg(&state)
        .arg(&log)
        .arg(n.to_string())
        .output()
        .expect("child");
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_file(&log);
}

fn cpu_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = after.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

fn idle_cpu(dir: &Path) {
    let secs: u64 = std::env::var("SEED_BENCH_IDLE_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    if secs == 0 || Command::new("tmux").arg("-V").output().is_err() {
        println!("idle CPU: skipped (no tmux, or SEED_BENCH_IDLE_SECS=0)");
        return;
    }
    let state = dir.join("idle-state");
    make_session(&state, 10_000);
    let socket = format!("seed-bench-{}", std::process::id());
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux")
    };
    let seed = env!("CARGO_BIN_EXE_seed");
    let cmd = format!(
        "env SEED_HOME='{}' SEED_SEQUENCE=compound_intelligence TERM=xterm-256color '{seed}' tui --session {SESSION}",
        state.display()
    );
    tmux(&[
        "new-session",
        "-d",
        "-s",
        "idle",
        "-x",
        "120",
        "-y",
        "40",
        &cmd,
    ]);
    std::thread::sleep(Duration::from_secs(3));
    let pane = tmux(&["display-message", "-p", "-t", "idle", "#{pane_pid}"]);
    let mut pid = String::from_utf8_lossy(&pane.stdout).trim().to_string();
    // The pane's shell usually execs the command; if not, seed is its child.
    if std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() != "seed") {
        let kids = Command::new("ps")
            .args(["-o", "pid=", "--ppid", &pid])
            .output()
            .expect("ps");
        if let Some(k) = String::from_utf8_lossy(&kids.stdout)
            .split_whitespace()
            .next()
        {
            pid = k.to_string();
        }
    }
    let tick = 100.0; // USER_HZ on Linux
    match cpu_ticks(&pid) {
        Some(c0) => {
            std::thread::sleep(Duration::from_secs(secs));
            let c1 = cpu_ticks(&pid).unwrap_or(c0);
            let cpu = (c1 - c0) as f64 / tick;
            println!(
                "idle CPU of `seed tui` (pid {pid}) over {secs} s: {cpu:.2} s of CPU = {:.3}% (target ~0%)",
                cpu / secs as f64 * 100.0
            );
        }
        None => println!("idle CPU: could not read /proc/{pid}/stat"),
    }
    tmux(&["kill-server"]);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--memory-child") {
        let n = args[i + 3].parse().expect("count");
        memory_child(
            &PathBuf::from(&args[i + 1]),
            &PathBuf::from(&args[i + 2]),
            n,
        );
        return;
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` runs it once as a smoke test.
    let quick = !args.iter().any(|a| a == "--bench");
    let dir = tempfile::tempdir().expect("tempdir");
    if quick {
        let state = dir.path().join("smoke");
        let log = make_session(&state, 2_000);
        assert_eq!(load(&state, &log, 2_000).0.fold.applied, 2_000);
        println!("tui bench: smoke run only (use `cargo bench --bench tui`)");
        return;
    }
    // `SEED_BENCH_ONLY=first,append,files,memory,idle` picks sections.
    let only = std::env::var("SEED_BENCH_ONLY").unwrap_or_default();
    let on = |name: &str| only.is_empty() || only.split(',').any(|s| s.trim() == name);
    if on("first") {
        first_frame(dir.path());
    }
    if on("append") {
        append_latency(dir.path());
    }
    if on("files") {
        files_move(dir.path());
    }
    if on("memory") {
        memory(dir.path());
    }
    if on("idle") {
        idle_cpu(dir.path());
    }
}
