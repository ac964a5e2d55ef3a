//! Whole-process latency of `seed hook PreToolUse` (release binary), against spawning
//! `/bin/true` the same way in the same run, on session logs of 0, 10k and 1M records.
//!
//! cargo bench --bench hook                 # 500 runs per size
//! SEED_BENCH_RUNS=2000 cargo bench --bench hook
//! SEED_BENCH_SIZES=0,10000 cargo bench --bench hook
//! SEED_BENCH_BASELINE=/path/to/other/seed cargo bench --bench hook   # A/B in the same run
//!
//! Targets (ARCHITECTURE §6): p50 ≤ 2 ms, p50 ≤ 2.5× `/bin/true`, flat within ±20% across sizes.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const SEQUENCE: &str = "compound_intelligence";

fn payload(session: &str) -> String {
    format!(
        r#"{{"session_id":"{session}","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{{"file_path":"/tmp/x.rs"}},"tool_use_id":"toolu_bench"}}"#
    )
}

/// A session log of `n` stepped records (a gate and an advance of a neutral tool, repeated).
fn write_log(state: &Path, session: &str, n: usize) {
    let dir = state.join("sessions").join(session);
    std::fs::create_dir_all(&dir).expect("session dir");
    let f = std::fs::File::create(dir.join("log.jsonl")).expect("log");
    let mut w = BufWriter::with_capacity(1 << 20, f);
    for i in 0..n {
        let (hook, phase) = if i % 2 == 0 {
            ("PreToolUse", "gate")
        } else {
            ("PostToolUse", "advance")
        };
        writeln!(
            w,
            r#"{{"v":1,"ts":"2026-11-22T00:00:00.000Z","session":"{session}","hook":"{hook}","phase":"{phase}","event":{{"kind":"tool","name":"Read","input":{{"file_path":"/tmp/f{i}.rs"}}}},"sequences":["{SEQUENCE}"],"ms":0.4}}"#
        )
        .expect("write");
    }
    w.flush().expect("flush");
}

fn spawn(cmd: &mut Command, input: &[u8]) -> f64 {
    let t0 = Instant::now();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    if let Some(mut s) = child.stdin.take() {
        let _ = s.write_all(input);
    }
    let _ = child.wait();
    t0.elapsed().as_secs_f64() * 1000.0
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() {
    let runs: usize = std::env::var("SEED_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let sizes: Vec<usize> = std::env::var("SEED_BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![0, 10_000, 1_000_000]);
    let tmp = std::env::temp_dir().join(format!("seed-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("tmp");
    // Timed from a copy, as `cargo install` leaves it: the file the linker has just written is
    // held in the page cache in a way that makes every start fault more (measured 0.27 ms
    // slower for the same bytes, gone after dropping the cache).
    let installed = |from: &Path, name: &str| {
        let to = tmp.join(name);
        std::fs::copy(from, &to).expect("copy the binary");
        to
    };
    let bin = installed(Path::new(env!("CARGO_BIN_EXE_seed")), "seed");
    let state = tmp.join("state");
    let heaven = tmp.join("heaven");
    std::fs::create_dir_all(&heaven).expect("tmp");
    // Another build of seed timed in the same loop (same logs, same machine load), with a
    // state directory of its own: its chart may differ, and a snapshot of another chart is
    // refolded from the log.
    let baseline: Option<PathBuf> =
        std::env::var_os("SEED_BENCH_BASELINE").map(|b| installed(Path::new(&b), "seed-baseline"));
    let state_base = tmp.join("state-baseline");
    let hook_with = |bin: &Path, state: &Path, session: &str| {
        let mut c = Command::new(bin);
        c.args(["hook", "--sequence", SEQUENCE, "PreToolUse"])
            .env_clear()
            .env("SEED_HOME", state)
            .env("SEED_CONFIG_DIR", tmp.join("no-config"))
            .env("HEAVEN_DATA_DIR", &heaven)
            .env("HOME", &tmp)
            .current_dir(&tmp);
        let _ = session;
        c
    };
    let hook = |session: &str| hook_with(&bin, &state, session);
    let sessions: Vec<(usize, String)> = sizes.iter().map(|n| (*n, format!("bench-{n}"))).collect();
    for (n, s) in &sessions {
        let t0 = Instant::now();
        write_log(&state, s, *n);
        // The first hook on a log with no snapshot folds it once; later hooks load the snapshot.
        let first = spawn(&mut hook(s), payload(s).as_bytes());
        if let Some(b) = &baseline {
            write_log(&state_base, s, *n);
            spawn(&mut hook_with(b, &state_base, s), payload(s).as_bytes());
        }
        eprintln!(
            "log of {n} records: written in {:.1} s, first hook (fold) {first:.1} ms",
            t0.elapsed().as_secs_f64()
        );
    }
    let mut t_true = Vec::with_capacity(runs);
    let mut t_hook: Vec<Vec<f64>> = vec![Vec::with_capacity(runs); sessions.len()];
    let mut t_base: Vec<Vec<f64>> = vec![Vec::with_capacity(runs); sessions.len()];
    for i in 0..runs {
        t_true.push(spawn(&mut Command::new("/bin/true"), b"{}"));
        for (k, (_, s)) in sessions.iter().enumerate() {
            let Some(b) = &baseline else {
                t_hook[k].push(spawn(&mut hook(s), payload(s).as_bytes()));
                continue;
            };
            // The order alternates: the second of two back-to-back runs is measurably faster.
            let this = || spawn(&mut hook(s), payload(s).as_bytes());
            let base = || spawn(&mut hook_with(b, &state_base, s), payload(s).as_bytes());
            if i % 2 == 0 {
                t_hook[k].push(this());
                t_base[k].push(base());
            } else {
                t_base[k].push(base());
                t_hook[k].push(this());
            }
        }
    }
    let sort = |v: &mut Vec<f64>| v.sort_by(f64::total_cmp);
    sort(&mut t_true);
    let true_p50 = pct(&t_true, 0.5);
    println!("seed hook PreToolUse ({SEQUENCE}), {runs} runs per size, release binary");
    println!(
        "{:<22} {:>9} {:>9} {:>10}",
        "", "p50 ms", "p95 ms", "p50/true"
    );
    println!(
        "{:<22} {:>9.3} {:>9.3} {:>10}",
        "/bin/true",
        true_p50,
        pct(&t_true, 0.95),
        "1.00"
    );
    let mut p50s = Vec::new();
    for (k, (n, _)) in sessions.iter().enumerate() {
        sort(&mut t_hook[k]);
        let p50 = pct(&t_hook[k], 0.5);
        p50s.push(p50);
        println!(
            "{:<22} {:>9.3} {:>9.3} {:>10.2}",
            format!("hook, log {n} records"),
            p50,
            pct(&t_hook[k], 0.95),
            p50 / true_p50
        );
    }
    if baseline.is_some() {
        for (k, (n, _)) in sessions.iter().enumerate() {
            sort(&mut t_base[k]);
            let p50 = pct(&t_base[k], 0.5);
            println!(
                "{:<22} {:>9.3} {:>9.3} {:>10.2}   (this build / baseline: {:.2})",
                format!("baseline, {n} records"),
                p50,
                pct(&t_base[k], 0.95),
                p50 / true_p50,
                p50s[k] / p50
            );
        }
        if let Some(b) = std::env::var_os("SEED_BENCH_BASELINE") {
            println!("baseline: {}", PathBuf::from(b).display());
        }
    }
    let (lo, hi) = p50s
        .iter()
        .fold((f64::MAX, 0.0f64), |(l, h), x| (l.min(*x), h.max(*x)));
    let mid = p50s.iter().sum::<f64>() / p50s.len().max(1) as f64;
    println!(
        "flatness: p50 spread {:.1}% around the mean ({lo:.3}–{hi:.3} ms)",
        (hi - lo) / 2.0 / mid * 100.0
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
