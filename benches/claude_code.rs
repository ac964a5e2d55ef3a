//! What a tool call costs under the real Claude Code: one scripted print-mode session of Bash
//! calls (the stand-in model of tests/claude_code answers), run without hooks and with each
//! hook variant; the time a variant adds per call is the growth of the session's wall time
//! from a short session to a long one, less that growth without hooks (so what every session
//! pays once, such as SessionStart, cancels out). Medians over a few runs of each.
//!
//! cargo bench --bench claude_code                    # 3 runs of 4- and 20-call sessions
//! SEED_BENCH_RUNS=5 SEED_BENCH_CALLS=4,40 cargo bench --bench claude_code
//! SEED_CLAUDE=/path/to/claude cargo bench --bench claude_code
//!
//! A variant is a name and how it sets up the project (see `VARIANTS`): add one there. The
//! stand-in answers an http hook at `Scenario::model_url() + "/hook"` with `{}`, and serves an
//! MCP server at `/mcp/anchor` (`Scenario::anchor_mcp`) for `mcp_tool` hooks.

#[path = "../tests/claude_code/harness/mod.rs"]
mod harness;

use std::time::Duration;

use harness::{Scenario, Turn};
use serde_json::{Value, json};

/// Every call advances: the hook steps the engine each time, as in a real session.
const LOOP: &str = r#"{
  "name": "bash_loop",
  "description": "Run commands.",
  "enforcement": "enforce",
  "start": ["Bash"],
  "tool_transitions": { "Bash": { "next_allowed": ["Bash"] } }
}"#;

struct Variant {
    name: &'static str,
    setup: fn(Scenario) -> Scenario,
}

const VARIANTS: &[Variant] = &[
    Variant {
        name: "no hooks",
        setup: |s| s,
    },
    Variant {
        name: "/bin/true command hooks",
        // seed's own hook set, every command replaced: the same events, the same matchers.
        setup: |s| seed_hooks(s).settings(|v| replace_commands(v, "/bin/true")),
    },
    Variant {
        name: "seed-hook command hooks",
        // What `seed install` writes when `seed-hook` sits next to `seed`, as it does here.
        setup: seed_hooks,
    },
    Variant {
        name: "seed hook command hooks",
        // The same hooks through the whole `seed` executable.
        setup: |s| seed_hooks(s).settings(whole_seed),
    },
    Variant {
        name: "mcp_tool hooks (seed mcp)",
        // Every hook a call to a tool of the `seed mcp` Claude Code already runs: what a hook
        // without a process costs here (the tool reads the session; no gating is done).
        setup: |s| {
            seed_hooks(s)
                .seed_mcp(&[])
                .settings(|v| to_mcp_tool(v, "seed", "who_am_i"))
        },
    },
];

/// Every `seed-hook …` command as `seed hook …`.
fn whole_seed(v: &mut Value) {
    if let Some(o) = v.as_object_mut()
        && let Some(c) = o.get("command").and_then(Value::as_str)
        && let Some(rest) = c.strip_prefix("seed-hook ")
    {
        let seed = env!("CARGO_BIN_EXE_seed");
        o.insert("command".into(), json!(format!("{seed} hook {rest}")));
    }
    match v {
        Value::Object(o) => o.values_mut().for_each(whole_seed),
        Value::Array(a) => a.iter_mut().for_each(whole_seed),
        _ => {}
    }
}

/// Every command hook as an `mcp_tool` hook calling `server`'s `tool`.
fn to_mcp_tool(v: &mut Value, server: &str, tool: &str) {
    match v {
        Value::Object(o) => {
            if o.get("type").and_then(Value::as_str) == Some("command") {
                *o = json!({
                    "type": "mcp_tool", "server": server, "tool": tool,
                    "input": {}, "timeout": 30
                })
                .as_object()
                .cloned()
                .unwrap_or_default();
            }
            o.values_mut().for_each(|c| to_mcp_tool(c, server, tool));
        }
        Value::Array(a) => a.iter_mut().for_each(|c| to_mcp_tool(c, server, tool)),
        _ => {}
    }
}

fn seed_hooks(s: Scenario) -> Scenario {
    s.file(".seed/sequences/bash_loop.json", LOOP)
        .sequence("bash_loop")
}

fn replace_commands(v: &mut Value, command: &str) {
    match v {
        Value::Object(o) => {
            if o.get("type").and_then(Value::as_str) == Some("command") {
                o.insert("command".into(), json!(command));
            }
            o.values_mut().for_each(|c| replace_commands(c, command));
        }
        Value::Array(a) => a.iter_mut().for_each(|c| replace_commands(c, command)),
        _ => {}
    }
}

/// Wall time of one session of `calls` Bash calls.
fn session(v: &Variant, calls: usize) -> Duration {
    let s = Scenario::new().expect("Claude Code is installed");
    let mut turns: Vec<Turn> = (0..calls)
        .map(|i| Turn::tool("Bash", json!({"command": format!("true {i}")})))
        .collect();
    turns.push(Turn::text("Done."));
    let run = (v.setup)(s).prompt("Run the commands.").model(turns).run();
    assert!(
        (0..calls).all(|t| !run.result(t).is_error),
        "{}: a call failed\n{}",
        v.name,
        run.dump()
    );
    run.elapsed
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn env_list(name: &str, default: &[usize]) -> Vec<usize> {
    std::env::var(name)
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .filter(|v: &Vec<usize>| !v.is_empty())
        .unwrap_or_else(|| default.to_vec())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let Some(claude) = harness::cli::claude() else {
        return;
    };
    let runs = env_list("SEED_BENCH_RUNS", &[3])[0].max(1);
    let calls = env_list("SEED_BENCH_CALLS", &[4, 20]);
    let (short, long) = (calls[0], *calls.last().unwrap_or(&20));
    assert!(
        long > short,
        "SEED_BENCH_CALLS needs a short and a longer session"
    );
    println!(
        "Claude Code {}: sessions of {short} and {long} Bash calls, median of {runs} runs each",
        claude.version
    );
    // Runs interleaved across variants, so a change in the machine's load touches them alike.
    let mut times = vec![(Vec::new(), Vec::new()); VARIANTS.len()];
    for _ in 0..runs {
        for (i, v) in VARIANTS.iter().enumerate() {
            times[i].0.push(session(v, short));
            times[i].1.push(session(v, long));
        }
    }
    let growth: Vec<f64> = times
        .iter()
        .map(|(s, l)| ms(median(l.clone())) - ms(median(s.clone())))
        .collect();
    let per_call = |i: usize| (growth[i] - growth[0]) / (long - short) as f64;
    println!(
        "{:<26} {:>10} {:>10} {:>16} {:>12}",
        "variant",
        format!("{short} calls"),
        format!("{long} calls"),
        "added per call",
        "ratio"
    );
    let unit = VARIANTS
        .iter()
        .position(|v| v.name.starts_with("/bin/true"));
    for (i, v) in VARIANTS.iter().enumerate() {
        let ratio = match unit {
            Some(u) if i > 0 && per_call(u) > 0.0 => format!("{:.2}", per_call(i) / per_call(u)),
            _ => "—".into(),
        };
        println!(
            "{:<26} {:>8.0}ms {:>8.0}ms {:>13.1} ms {:>12}",
            v.name,
            ms(median(times[i].0.clone())),
            ms(median(times[i].1.clone())),
            per_call(i),
            ratio
        );
    }
    println!("ratio: added per call relative to /bin/true command hooks");
}
