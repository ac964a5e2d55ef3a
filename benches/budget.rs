//! What a large or hostile input costs the release binary, per size, doubling: wall time,
//! peak memory (GNU time's maximum resident set) and the growth factor per doubling of the
//! input (linear: ≤ 2.2).
//!
//! cargo bench --bench budget                       # every shape at its default sizes
//! cargo bench --bench budget -- strings            # the shapes whose name contains "strings"
//! SEED_BENCH_MAX=134217728 cargo bench --bench budget -- strings   # up to 128 MiB
//! SEED_BENCH_BASELINE=/path/to/other/seed cargo bench --bench budget   # the same, for it too
//! SEED_BENCH_RUNS=5 cargo bench --bench budget     # runs per size (the fastest is shown)
//!
//! Shapes:
//! - `hook/strings`: a PreToolUse whose tool input holds N one-letter strings;
//! - `hook/response`: a PostToolUse whose tool result holds N one-letter strings;
//! - `hook/result`: a PostToolUse whose tool result is one string of N bytes;
//! - `wide/hook`, `wide/status`, `wide/validate`: a step with N next tools;
//! - `wide/dashboard`: the dashboard's first frame (120×40, `seed screenshot` of the session)
//!   on that sequence;
//! - `load/json`, `load/yaml`, `load/mmd`, `load/toml`: `seed validate` of a sequence of N
//!   steps in each dialect (master JSON, workflow YAML, Mermaid, a TOML manifest with N
//!   neutral tools), doubling up to the loaders' 16 MiB limit.
//!
//! Peak memory needs GNU time at /usr/bin/time; without it only the time is printed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// One run: seconds and peak resident kilobytes (when GNU time is there).
struct Cost {
    secs: f64,
    max_kb: Option<u64>,
}

/// Run `bin args…` with `input` on stdin in `dir`, state in `dir/state`.
fn run(bin: &Path, args: &[&str], input: &Path, dir: &Path) -> Cost {
    let time = Path::new("/usr/bin/time");
    let report = dir.join("time.txt");
    let mut cmd = if time.exists() {
        let mut c = Command::new(time);
        c.arg("-f").arg("%M").arg("-o").arg(&report).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    cmd.args(args)
        .env_clear()
        .env("SEED_HOME", dir.join("state"))
        .env("SEED_CONFIG_DIR", dir.join("no-config"))
        .env("HOME", dir)
        .current_dir(dir)
        .stdin(std::fs::File::open(input).expect("input"))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let t0 = Instant::now();
    let _ = cmd.status().expect("spawn");
    let secs = t0.elapsed().as_secs_f64();
    let max_kb = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| t.lines().last()?.trim().parse().ok());
    let _ = std::fs::remove_file(&report);
    Cost { secs, max_kb }
}

/// A hook payload for `event` with `fields` (JSON members, comma-led) added.
fn payload(to: &Path, event: &str, fields: impl FnOnce(&mut dyn Write)) {
    let mut w = std::io::BufWriter::new(std::fs::File::create(to).expect("payload"));
    write!(
        w,
        r#"{{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"{event}","tool_name":"Bash","tool_use_id":"toolu_1""#
    )
    .expect("write");
    fields(&mut w);
    w.write_all(b"}").expect("write");
    w.flush().expect("flush");
}

/// `"key":{"command":"ls","a":["a","a",…]}` with `n` strings, at most what fits in the
/// hook's 128 MiB (a larger payload is refused unread, which would time nothing).
fn letters(w: &mut dyn Write, key: &str, n: usize) {
    let n = n.min((128 << 20) / 4 - 4096);
    write!(w, r#","{key}":{{"command":"ls","a":["#).expect("write");
    let chunk = "\"a\",".repeat(4096);
    let mut left = n;
    while left > 0 {
        let k = left.min(4096);
        w.write_all(&chunk.as_bytes()[..k * 4 - usize::from(k == left)])
            .expect("write");
        left -= k;
    }
    w.write_all(b"]}").expect("write");
}

/// A JSON sequence whose first step allows `n` next tools.
fn wide_sequence(to: &Path, n: usize) {
    let tools: Vec<String> = (0..n).map(|i| format!("w.x{i}")).collect();
    let seq = serde_json::json!({
        "name": "wide", "description": "x", "enforcement": "enforce", "off_path": "deny",
        "tool_transitions": {"w.start": {"next_allowed": tools}},
    });
    std::fs::write(to, seq.to_string()).expect("sequence");
}

/// A master-dialect (JSON) chain of `n` steps.
fn json_chain(to: &Path, n: usize) {
    let mut steps = serde_json::Map::new();
    for i in 0..n {
        let next = serde_json::json!({ "next_allowed": [format!("w.s{}", i + 1)] });
        steps.insert(format!("w.s{i}"), next);
    }
    let seq = serde_json::json!({
        "name": "chain", "description": "x", "enforcement": "enforce", "off_path": "deny",
        "start": ["w.s0"], "tool_transitions": steps,
    });
    std::fs::write(to, seq.to_string()).expect("sequence");
}

/// A Mermaid chain of `n` steps, each moved on by its own call.
fn mermaid_chain(n: usize) -> String {
    let mut t = String::from("stateDiagram-v2\n    [*] --> s0\n");
    for i in 0..n {
        t.push_str(&format!("    s{i} --> s{} : mcp__w__t{i}\n", i + 1));
    }
    t.push_str(&format!("    s{n} --> [*] : SessionEnd\n"));
    t
}

/// A workflow (YAML) chain of `n` action nodes, each a command.
fn yaml_chain(to: &Path, n: usize) {
    let mut t = String::from(
        "name: chain\nversion: \"1\"\ndescription: x\nenforcement: enforce\noff_path: deny\nstart_node: n0\nnodes:\n",
    );
    for i in 0..n {
        let next = if i + 1 == n {
            "done".to_string()
        } else {
            format!("n{}", i + 1)
        };
        t.push_str(&format!(
            "  n{i}:\n    type: action\n    actions:\n      - type: run_command\n        command: \"echo {i}\"\n    on_success: {next}\n"
        ));
    }
    t.push_str("endings:\n  done:\n    type: success\n    message: ok\n");
    std::fs::write(to, t).expect("sequence");
}

/// A TOML manifest with `n` neutral tools over a two-step diagram.
fn toml_manifest(dir: &Path, n: usize) {
    let tools: Vec<String> = (0..n).map(|i| format!("\"mcp__n__t{i}\"")).collect();
    let t = format!(
        "name = \"chain\"\ndescription = \"x\"\ndiagram = \"chain.mmd\"\nenforcement = \"enforce\"\nneutral_tools = [{}]\n",
        tools.join(", ")
    );
    std::fs::write(dir.join("chain.mmd"), mermaid_chain(2)).expect("diagram");
    std::fs::write(dir.join("chain.toml"), t).expect("manifest");
}

struct Shape {
    name: &'static str,
    /// What N counts.
    unit: &'static str,
    sizes: Vec<usize>,
    /// Write the inputs for size N; the command's arguments.
    setup: fn(&Path, usize) -> Vec<String>,
}

fn sizes(from: usize, default_max: usize) -> Vec<usize> {
    let max = std::env::var("SEED_BENCH_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_max);
    std::iter::successors(Some(from), |n| Some(n * 2))
        .take_while(|n| *n <= max)
        .collect()
}

fn shapes() -> Vec<Shape> {
    vec![
        Shape {
            name: "hook/strings",
            unit: "one-letter strings in tool_input",
            sizes: sizes(1 << 20, 8 << 20),
            setup: |dir, n| {
                payload(&dir.join("in.json"), "PreToolUse", |w| {
                    letters(w, "tool_input", n)
                });
                ["hook", "--sequence", "gate.json", "PreToolUse"]
                    .map(String::from)
                    .to_vec()
            },
        },
        Shape {
            name: "hook/response",
            unit: "one-letter strings in tool_response",
            sizes: sizes(1 << 20, 8 << 20),
            setup: |dir, n| {
                payload(&dir.join("in.json"), "PostToolUse", |w| {
                    w.write_all(br#","tool_input":{"command":"ls"}"#)
                        .expect("write");
                    letters(w, "tool_response", n)
                });
                ["hook", "--sequence", "gate.json", "PostToolUse"]
                    .map(String::from)
                    .to_vec()
            },
        },
        Shape {
            name: "hook/result",
            unit: "bytes of one tool_response string",
            sizes: sizes(5 << 20, 40 << 20),
            setup: |dir, n| {
                payload(&dir.join("in.json"), "PostToolUse", |w| {
                    write!(w, r#","tool_input":{{"command":"ls"}},"tool_response":""#)
                        .expect("write");
                    let line = "x".repeat(1 << 16);
                    let mut left = n;
                    while left > 0 {
                        let k = left.min(line.len());
                        w.write_all(&line.as_bytes()[..k]).expect("write");
                        left -= k;
                    }
                    w.write_all(b"\"").expect("write");
                });
                ["hook", "--sequence", "gate.json", "PostToolUse"]
                    .map(String::from)
                    .to_vec()
            },
        },
        Shape {
            name: "wide/hook",
            unit: "next tools of one step",
            sizes: sizes(12_500, 100_000),
            setup: |dir, n| {
                wide_sequence(&dir.join("wide.json"), n);
                payload(&dir.join("in.json"), "PreToolUse", |w| {
                    w.write_all(br#","tool_input":{"command":"ls"}"#)
                        .expect("write");
                });
                let _ = std::fs::remove_dir_all(dir.join("state"));
                ["hook", "--sequence", "wide.json", "PreToolUse"]
                    .map(String::from)
                    .to_vec()
            },
        },
        Shape {
            name: "wide/validate",
            unit: "next tools of one step",
            sizes: sizes(12_500, 100_000),
            setup: |dir, n| {
                wide_sequence(&dir.join("wide.json"), n);
                ["validate", "wide.json"].map(String::from).to_vec()
            },
        },
        Shape {
            name: "wide/dashboard",
            unit: "next tools of one step",
            sizes: sizes(12_500, 100_000),
            setup: |dir, n| {
                wide_sequence(&dir.join("wide.json"), n);
                let args = "screenshot bench --sequence wide.json --format txt --size 120x40 --out frame.txt";
                args.split(' ').map(String::from).collect()
            },
        },
        Shape {
            name: "load/json",
            unit: "steps (one call each)",
            sizes: sizes(23_000, 368_000),
            setup: |dir, n| {
                json_chain(&dir.join("chain.json"), n);
                ["validate", "chain.json"].map(String::from).to_vec()
            },
        },
        Shape {
            name: "load/yaml",
            unit: "action nodes (one command each)",
            sizes: sizes(10_000, 160_000),
            setup: |dir, n| {
                yaml_chain(&dir.join("chain.yaml"), n);
                ["validate", "chain.yaml"].map(String::from).to_vec()
            },
        },
        Shape {
            name: "load/mmd",
            unit: "states (one call each)",
            sizes: sizes(28_000, 448_000),
            setup: |dir, n| {
                std::fs::write(dir.join("chain.mmd"), mermaid_chain(n)).expect("diagram");
                ["validate", "chain.mmd"].map(String::from).to_vec()
            },
        },
        Shape {
            name: "load/toml",
            unit: "neutral tools",
            sizes: sizes(60_000, 960_000),
            setup: |dir, n| {
                toml_manifest(dir, n);
                ["validate", "chain.toml"].map(String::from).to_vec()
            },
        },
        Shape {
            name: "wide/status",
            unit: "next tools of one step",
            sizes: sizes(12_500, 100_000),
            setup: |dir, n| {
                wide_sequence(&dir.join("wide.json"), n);
                ["status", "--session", "bench", "--sequence", "wide.json"]
                    .map(String::from)
                    .to_vec()
            },
        },
    ]
}

/// A sequence whose first step is `w.start`: the hook judges (and refuses) a Bash call.
const GATE: &str = r#"{"name":"gate","description":"x","enforcement":"enforce","off_path":"deny",
  "tool_transitions":{"w.start":{"next_allowed":["w.next"]}}}"#;

/// The size of what the command reads: the sequence `validate` checks, the payload a hook
/// reads, the sequence a face shows.
fn input_size(dir: &Path, args: &[&str]) -> u64 {
    let size = |f: &str| std::fs::metadata(dir.join(f)).map_or(0, |m| m.len());
    match args {
        ["validate", file] => size(file),
        ["hook", ..] => size("in.json"),
        _ if args.contains(&"wide.json") => size("wide.json"),
        _ => size("in.json"),
    }
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let runs: usize = std::env::var("SEED_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
        .max(1);
    let dir = std::env::temp_dir().join(format!("seed-budget-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    std::fs::write(dir.join("gate.json"), GATE).expect("gate");
    let mut bins: Vec<(String, PathBuf)> = vec![("seed".into(), env!("CARGO_BIN_EXE_seed").into())];
    if let Some(b) = std::env::var_os("SEED_BENCH_BASELINE") {
        bins.push(("baseline".into(), b.into()));
    }
    if !Path::new("/usr/bin/time").exists() {
        println!("(no GNU time at /usr/bin/time: peak memory not measured)");
    }
    for shape in shapes() {
        if filter.as_deref().is_some_and(|f| !shape.name.contains(f)) {
            continue;
        }
        println!("{} — N = {}", shape.name, shape.unit);
        for (label, bin) in &bins {
            let mut last: Option<f64> = None;
            for &n in &shape.sizes {
                let args = (shape.setup)(&dir, n);
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                if matches!(shape.name, "wide/status" | "wide/dashboard") {
                    // A session to show: one hook call through the wide sequence first.
                    payload(&dir.join("in.json"), "PreToolUse", |_| {});
                    run(
                        bin,
                        &["hook", "--sequence", "wide.json", "PreToolUse"],
                        &dir.join("in.json"),
                        &dir,
                    );
                }
                let input_bytes = input_size(&dir, &args);
                // The fastest of a few runs: the machine's other work only ever adds time.
                let c = (0..runs)
                    .map(|_| run(bin, &args, &dir.join("in.json"), &dir))
                    .min_by(|a, b| a.secs.total_cmp(&b.secs))
                    .expect("one run at least");
                let growth = last.map_or(String::new(), |l| format!("  ×{:.2}", c.secs / l));
                last = Some(c.secs);
                let mem = c.max_kb.map_or(String::from("?"), |k| {
                    format!("{:.0} MB", k as f64 / 1024.0)
                });
                println!(
                    "  {label:<8} N={n:>9}  input {:>7.2} MB  {:>8.3} s  peak {mem:>8}{growth}",
                    input_bytes as f64 / (1 << 20) as f64,
                    c.secs
                );
            }
        }
        let _ = std::fs::remove_dir_all(dir.join("state"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
