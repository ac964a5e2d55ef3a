//! Engine cost: one `step` (gate and advance), folding 1M events through
//! `compound_intelligence`, and folding logs of denials: many distinct denied tools (the
//! breaker's counts), and denied calls on a dense chart (each refusal's advice is a search of
//! the graph, which a fold skips). Run with `cargo bench --bench engine`; `-- NAME` runs the
//! sections whose name contains NAME (`step`, `fold/1M`, `fold/denied`, `fold/dense`).

use std::hint::black_box;
use std::time::Instant;

use seed::dialects;
use seed::engine::{Event, Facts, Machine, Phase};
use serde_json::json;

/// A long session: the railroad up to a waypoint journey, then a journey that keeps navigating,
/// with reads and an off-path call between steps (gate + advance for each allowed call).
fn session(n: usize) -> Vec<(Phase, Event, Facts)> {
    let mut facts = Facts::new();
    facts.insert("waypoint_status".into(), json!("active"));
    let prefix = [
        "mcp__seed__who_am_i",
        "mcp__seed__what_do_i_do",
        "mcp__starlog__check",
        "mcp__starlog__orient",
        "mcp__starship__fly",
        "mcp__waypoint__start_waypoint_journey",
    ];
    let mut out = Vec::with_capacity(n);
    for t in prefix {
        let ev = Event::tool(t, json!({}));
        out.push((Phase::Gate, ev.clone(), Facts::new()));
        out.push((Phase::Advance, ev, Facts::new()));
    }
    let loop_calls = [
        Event::tool("Read", json!({"file_path": "/src/lib.rs"})),
        Event::tool(
            "mcp__waypoint__navigate_to_next_waypoint",
            json!({"waypoint": 3}),
        ),
        Event::tool("Bash", json!({"command": "cargo test"})),
        Event::tool("mcp__heaven-subagent__spawn", json!({})),
    ];
    let mut i = 0;
    while out.len() < n {
        let ev = &loop_calls[i % loop_calls.len()];
        out.push((Phase::Gate, ev.clone(), facts.clone()));
        if out.len() < n && i % loop_calls.len() != 3 {
            out.push((Phase::Advance, ev.clone(), facts.clone()));
        }
        i += 1;
    }
    out
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// `n` gates of distinct tools no step expects: each is denied (off path, enforce) and
/// counted under a key of its own.
fn distinct_denials(n: usize) -> Vec<(Phase, Event, Facts)> {
    (0..n)
        .map(|i| {
            let ev = Event::tool(&format!("mcp__stray__t{i}"), json!({}));
            (Phase::Gate, ev, Facts::new())
        })
        .collect()
}

/// A railroad of `n` tools, each leading to the next and to four others spread over the
/// chart: about 5n transitions, every tool reachable from the start in a few calls.
fn dense_chart(n: usize) -> Machine {
    let mut transitions = serde_json::Map::new();
    for i in 0..n {
        let next: Vec<String> = [1, 7 * i + 3, 13 * i + 5, 31 * i + 11, 97 * i + 17]
            .iter()
            .map(|k| format!("d.t{}", (i + k) % n))
            .collect();
        transitions.insert(format!("d.t{i}"), json!({ "next_allowed": next }));
    }
    let text = json!({
        "name": "dense",
        "enforcement": "enforce",
        "off_path": "deny",
        "start": ["d.t0"],
        "tool_transitions": transitions,
    })
    .to_string();
    let chart = dialects::load_text("dense.json", &text, &|_| None)
        .expect("loads")
        .chart;
    Machine::new(chart)
}

/// Wall time of folding `events` from the start, in seconds.
fn fold_secs(machine: &Machine, events: &[(Phase, Event, Facts)]) -> f64 {
    let t = Instant::now();
    black_box(machine.fold(events.iter().map(|(p, e, f)| (*p, e, f))));
    t.elapsed().as_secs_f64()
}

/// Sizes from `var` (comma-separated), else `default`.
fn sizes(var: &str, default: &[usize]) -> Vec<usize> {
    std::env::var(var)
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

/// One step, timed individually over a warm snapshot.
fn one_step(machine: &Machine) {
    let events = session(20_000);
    let mut snap = machine.start(&Facts::new());
    let mut gate = Vec::new();
    let mut advance = Vec::new();
    for (phase, ev, facts) in &events {
        let t = Instant::now();
        black_box(machine.step(&mut snap, *phase, ev, facts));
        let ns = t.elapsed().as_nanos() as f64;
        match phase {
            Phase::Gate => gate.push(ns),
            _ => advance.push(ns),
        }
    }
    for (name, v) in [("gate", &mut gate), ("advance", &mut advance)] {
        v.sort_by(f64::total_cmp);
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        println!(
            "step/{name:<8} n={:<6} mean {:>7.1} µs  p50 {:>7.1} µs  p95 {:>7.1} µs",
            v.len(),
            mean / 1e3,
            percentile(v, 0.5) / 1e3,
            percentile(v, 0.95) / 1e3
        );
    }
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let run = |section: &str| filter.as_deref().is_none_or(|f| section.contains(f));
    let chart = dialects::builtin("compound_intelligence")
        .expect("built-in")
        .expect("loads")
        .chart;
    let machine = Machine::new(chart);

    if run("fold/denied") {
        // Distinct denied tools: the breaker's map, looked up on every gate.
        for n in sizes("SEED_BENCH_DENIED", &[10_000, 20_000, 40_000, 1_000_000]) {
            let secs = fold_secs(&machine, &distinct_denials(n));
            println!(
                "fold/denied {n:>8} distinct denied tools: {secs:.3} s ({:.2} µs per gate)",
                secs * 1e6 / n as f64
            );
        }
    }
    if run("fold/dense") {
        // Denied calls on a dense chart: far steps called early, each refused with advice by
        // the hook; a fold only needs the state change.
        let dense = dense_chart(2_000);
        let n = sizes("SEED_BENCH_DENSE", &[2_000])[0];
        let events: Vec<(Phase, Event, Facts)> = (0..n)
            .map(|i| {
                let ev = Event::tool(&format!("mcp__d__t{}", (i * 37 + 500) % 2_000), json!({}));
                (Phase::Gate, ev, Facts::new())
            })
            .collect();
        let secs = fold_secs(&dense, &events);
        println!(
            "fold/dense  2000 states, {} transitions, {n} denied gates: {secs:.3} s ({:.2} ms per gate)",
            dense.chart.transitions.len(),
            secs * 1e3 / n as f64
        );
        // What the hook pays for one such refusal: the same gate, worded with its advice.
        let mut snap = dense.start(&Facts::new());
        let t = Instant::now();
        let k = 20;
        for (p, e, f) in events.iter().take(k) {
            black_box(dense.step(&mut snap, *p, e, f));
        }
        println!(
            "step/dense  one denied gate with its advice: {:.2} ms",
            t.elapsed().as_secs_f64() * 1e3 / k as f64
        );
    }
    if run("step/") {
        one_step(&machine);
    }
    if !run("fold/1M") {
        return;
    }
    // Fold 1M events from the start.
    let million = session(1_000_000);
    let t = Instant::now();
    let snap = machine.fold(million.iter().map(|(p, e, f)| (*p, e, f)));
    let secs = t.elapsed().as_secs_f64();
    println!(
        "fold/1M   {:.2} s total, {:.2} µs per event (final step: {}, {} events)",
        secs,
        secs * 1e6 / million.len() as f64,
        machine.status(&snap).step,
        snap.steps
    );
}
