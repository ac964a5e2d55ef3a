//! Whole-process latency of the hook as Claude Code starts it, against spawning `/bin/true`
//! the same way in the same run, on session logs of 0, 10k and 1M records. Timed side by side,
//! in one loop (same logs, same load): `seed-hook PreToolUse` (the small executable `seed
//! install` points the hooks at), `seed hook PreToolUse` (the whole `seed`), and the statically
//! linked `seed-hook` when one was built (`cargo install-static --root target/static`).
//!
//! cargo bench --bench hook                 # 500 runs per size
//! SEED_BENCH_RUNS=2000 cargo bench --bench hook
//! SEED_BENCH_SIZES=0,10000 cargo bench --bench hook
//! SEED_BENCH_STATIC=/path/to/static/seed-hook cargo bench --bench hook
//! SEED_BENCH_BASELINE=/path/to/other/seed cargo bench --bench hook   # another build's `seed hook`
//!
//! Targets: p50 ≤ 1.5× `/bin/true` for the default install's hook, flat across sizes.

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

/// One executable timed: `bin [hook] --sequence … PreToolUse`, with a state directory of its
/// own (another build's chart may differ, and a snapshot of another chart is refolded).
struct Variant {
    label: String,
    bin: PathBuf,
    /// `seed hook …` rather than `seed-hook …`.
    sub: bool,
    state: PathBuf,
    /// p50 per log size, once timed.
    times: Vec<Vec<f64>>,
}

fn env_list<T: std::str::FromStr>(name: &str, default: Vec<T>) -> Vec<T> {
    std::env::var(name)
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or(default)
}

/// The variants: this build's two executables, then the static `seed-hook` and another build's
/// `seed` when there are. Each is copied, as `cargo install` leaves it: the file the linker
/// has just written is held in the page cache in a way that makes every start fault more
/// (measured 0.27 ms slower for the same bytes, gone after dropping the cache).
fn variants(tmp: &Path) -> Vec<Variant> {
    let installed = |from: &Path, name: &str| {
        let to = tmp.join(name);
        std::fs::copy(from, &to).expect("copy the binary");
        to
    };
    let mut out = Vec::new();
    let mut add = |label: &str, from: &Path, file: &str, sub: bool| {
        out.push(Variant {
            label: label.to_string(),
            bin: installed(from, file),
            sub,
            state: tmp.join(format!("state-{file}")),
            times: Vec::new(),
        })
    };
    add(
        "seed-hook",
        Path::new(env!("CARGO_BIN_EXE_seed-hook")),
        "seed-hook",
        false,
    );
    add(
        "seed hook",
        Path::new(env!("CARGO_BIN_EXE_seed")),
        "seed",
        true,
    );
    let static_default = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/static/bin/seed-hook");
    let static_bin = std::env::var_os("SEED_BENCH_STATIC")
        .map(PathBuf::from)
        .unwrap_or(static_default);
    if static_bin.is_file() {
        add("static seed-hook", &static_bin, "seed-hook-static", false);
    } else {
        println!(
            "static build: none at {} (`cargo install-static --root target/static` builds it)",
            static_bin.display()
        );
    }
    if let Some(b) = std::env::var_os("SEED_BENCH_BASELINE") {
        add("baseline seed hook", Path::new(&b), "seed-baseline", true);
    }
    out
}

fn main() {
    let runs: usize = env_list("SEED_BENCH_RUNS", vec![500])[0];
    let sizes: Vec<usize> = env_list("SEED_BENCH_SIZES", vec![0, 10_000, 1_000_000]);
    let tmp = std::env::temp_dir().join(format!("seed-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("tmp");
    let heaven = tmp.join("heaven");
    std::fs::create_dir_all(&heaven).expect("tmp");
    let mut variants = variants(&tmp);
    let hook = |v: &Variant| {
        let mut c = Command::new(&v.bin);
        if v.sub {
            c.arg("hook");
        }
        c.args(["--sequence", SEQUENCE, "PreToolUse"])
            .env_clear()
            .env("SEED_HOME", &v.state)
            .env("SEED_CONFIG_DIR", tmp.join("no-config"))
            .env("HEAVEN_DATA_DIR", &heaven)
            .env("HOME", &tmp)
            .current_dir(&tmp);
        c
    };
    let sessions: Vec<(usize, String)> = sizes.iter().map(|n| (*n, format!("bench-{n}"))).collect();
    for (n, s) in &sessions {
        let t0 = Instant::now();
        for v in &variants {
            write_log(&v.state, s, *n);
            // The first hook on a log with no snapshot folds it once; later hooks load it.
            let first = spawn(&mut hook(v), payload(s).as_bytes());
            eprintln!(
                "{}: log of {n} records, first hook (fold) {first:.1} ms",
                v.label
            );
        }
        eprintln!(
            "logs of {n} records ready in {:.1} s",
            t0.elapsed().as_secs_f64()
        );
    }
    let mut t_true = Vec::with_capacity(runs);
    let mut t: Vec<Vec<Vec<f64>>> =
        vec![vec![Vec::with_capacity(runs); sessions.len()]; variants.len()];
    for i in 0..runs {
        t_true.push(spawn(&mut Command::new("/bin/true"), b"{}"));
        for (k, (_, s)) in sessions.iter().enumerate() {
            // The order rotates: the second of two back-to-back runs is measurably faster.
            for j in 0..variants.len() {
                let at = (i + j) % variants.len();
                t[at][k].push(spawn(&mut hook(&variants[at]), payload(s).as_bytes()));
            }
        }
    }
    for (v, times) in variants.iter_mut().zip(t) {
        v.times = times;
    }
    report(runs, &sessions, t_true, &mut variants);
    let _ = std::fs::remove_dir_all(&tmp);
}

fn report(
    runs: usize,
    sessions: &[(usize, String)],
    mut t_true: Vec<f64>,
    variants: &mut [Variant],
) {
    let sort = |v: &mut Vec<f64>| v.sort_by(f64::total_cmp);
    sort(&mut t_true);
    let true_p50 = pct(&t_true, 0.5);
    println!("hook PreToolUse ({SEQUENCE}), {runs} runs per size and executable, release build");
    println!(
        "{:<34} {:>9} {:>9} {:>10}",
        "", "p50 ms", "p95 ms", "p50/true"
    );
    println!(
        "{:<34} {:>9.3} {:>9.3} {:>10}",
        "/bin/true",
        true_p50,
        pct(&t_true, 0.95),
        "1.00"
    );
    for v in variants.iter_mut() {
        let mut p50s = Vec::new();
        for (k, (n, _)) in sessions.iter().enumerate() {
            sort(&mut v.times[k]);
            let p50 = pct(&v.times[k], 0.5);
            p50s.push(p50);
            println!(
                "{:<34} {:>9.3} {:>9.3} {:>10.2}",
                format!("{}, log {n} records", v.label),
                p50,
                pct(&v.times[k], 0.95),
                p50 / true_p50
            );
        }
        let (lo, hi) = p50s
            .iter()
            .fold((f64::MAX, 0.0f64), |(l, h), x| (l.min(*x), h.max(*x)));
        let mid = p50s.iter().sum::<f64>() / p50s.len().max(1) as f64;
        println!(
            "{:<34} p50 spread {:.1}% around the mean ({lo:.3}–{hi:.3} ms)",
            format!("{}: flatness", v.label),
            (hi - lo) / 2.0 / mid * 100.0
        );
    }
}
