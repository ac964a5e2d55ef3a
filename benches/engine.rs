//! Engine cost: one `step` (gate and advance), and folding 1M events through
//! `compound_intelligence`. Run with `cargo bench --bench engine`.

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

fn main() {
    let chart = dialects::builtin("compound_intelligence")
        .expect("built-in")
        .expect("loads")
        .chart;
    let machine = Machine::new(chart);

    // One step, timed individually over a warm snapshot.
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
