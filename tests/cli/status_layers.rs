//! `seed status` on hand-written records of compound_intelligence: seed 000's three layer bars
//! (base 0–50, context 50–75, execution 75–100) with their values, the next tool, and the same
//! in `--json`; and a log of a hundred thousand records read without keeping them.

use assert_cmd::Command;
use serde_json::Value;

fn seed(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    Command::cargo_bin("seed")
        .unwrap()
        .current_dir(dir)
        .env("SEED_HOME", dir.join("state"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .args(args)
        .output()
        .unwrap()
}

/// The minimal record a hand-written file needs, for each call in turn.
fn calls(dir: &std::path::Path, tools: &[&str]) -> String {
    let lines: Vec<String> = tools
        .iter()
        .map(|t| format!(r#"{{"phase": "advance", "event": {{"kind": "tool", "name": "{t}"}}}}"#))
        .collect();
    let path = dir.join("events.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path.display().to_string()
}

fn status(dir: &std::path::Path, events: &str, json: bool) -> String {
    let mut args = vec![
        "status",
        "--sequence",
        "compound_intelligence",
        "--events",
        events,
    ];
    if json {
        args.push("--json");
    }
    let out = seed(&args, dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn status_prints_the_three_layer_bars_and_the_next_tool() {
    let dir = tempfile::tempdir().unwrap();
    // Identity done, the project checked: base full, context a quarter (check of
    // check → init_project → orient → fly), execution not started.
    let events = calls(
        dir.path(),
        &["seed.who_am_i", "mcp__seed__what_do_i_do", "starlog.check"],
    );
    let text = status(dir.path(), &events, false);
    for line in [
        "  base        0–50  [########################] 100%\n",
        "  context    50–75  [######------------------]  25%  ◂\n",
        "  execution  75–100 [------------------------]   0%\n",
        "  overall           [##############----------]  56%",
        "last call: starlog.check\n",
        "next:    mcp__starlog__orient  → starlog.orient\n",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }

    let j: Value = serde_json::from_str(&status(dir.path(), &events, true)).unwrap();
    assert_eq!(j["sequence"], "compound_intelligence");
    assert_eq!(
        j["current"],
        // Each deep-state constraint is a region of its own, `off` while its `when` fails.
        serde_json::json!([
            "railroad.starlog.check",
            "context.waypoint_active_learning.off",
            "context.flight_active_debugging.off"
        ])
    );
    assert_eq!(j["progress"]["overall"], 56.25);
    let layers: Vec<(String, f64, f64, f64)> = j["progress"]["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap_or_default().to_string(),
                l["lo"].as_f64().unwrap_or(-1.0),
                l["hi"].as_f64().unwrap_or(-1.0),
                l["value"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    assert_eq!(
        layers,
        [
            ("base".to_string(), 0.0, 50.0, 100.0),
            ("context".to_string(), 50.0, 75.0, 25.0),
            ("execution".to_string(), 75.0, 100.0, 0.0),
        ]
    );
    let allowed: Vec<&str> = j["allowed"]
        .as_array()
        .expect("allowed")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        allowed[..2],
        ["mcp__starlog__orient", "mcp__starlog__init_project"]
    );
    assert!(allowed.contains(&"mcp__seed__status"), "{allowed:?}");
    assert_eq!(j["next"]["tool"], "mcp__starlog__orient");
    assert_eq!(j["next"]["leads_to"], "starlog.orient");
    assert_eq!(
        j["recovery"],
        serde_json::json!(["Next: call mcp__starlog__orient (or mcp__starlog__init_project)."])
    );
}

#[test]
fn the_execution_bar_fills_along_the_chosen_subchain() {
    let dir = tempfile::tempdir().unwrap();
    let events = calls(
        dir.path(),
        &[
            "seed.who_am_i",
            "seed.what_do_i_do",
            "starlog.check",
            "starlog.orient",
            "starship.fly",
            "heaven-subagent.spawn",
        ],
    );
    let text = status(dir.path(), &events, false);
    for line in [
        "  base        0–50  [########################] 100%\n",
        "  context    50–75  [########################] 100%\n",
        "  execution  75–100 [############------------]  50%  ◂\n",
        "next:    mcp__heaven-subagent__collect_results  → heaven-subagent.collect_results\n",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    let j: Value = serde_json::from_str(&status(dir.path(), &events, true)).unwrap();
    assert_eq!(j["progress"]["overall"], 87.5);
    assert_eq!(j["progress"]["steps_remaining"], 1);
}

/// Peak resident memory of a running child, from `/proc` (the largest `VmHWM` seen while it
/// runs), and its output.
#[cfg(target_os = "linux")]
fn peak_kib(mut cmd: std::process::Command) -> (u64, std::process::Output) {
    use std::io::Read;
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let status = loop {
        if let Ok(s) = std::fs::read_to_string(&status_file) {
            let hwm = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            peak = peak.max(hwm.unwrap_or(0));
        }
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    if let Some(mut o) = child.stdout.take() {
        o.read_to_end(&mut stdout).unwrap();
    }
    if let Some(mut e) = child.stderr.take() {
        e.read_to_end(&mut stderr).unwrap();
    }
    (
        peak,
        std::process::Output {
            status,
            stdout,
            stderr,
        },
    )
}

#[cfg(target_os = "linux")]
#[test]
fn a_long_log_is_folded_as_it_is_read() {
    // 100,000 records of about 440 bytes: ~44 MB of log. Kept parsed, they took over 350 MB.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    let mut text = String::new();
    let pad = "x".repeat(200);
    for i in 0..100_000 {
        let tool = ["seed.who_am_i", "seed.what_do_i_do", "starlog.check"]
            .get(i)
            .copied()
            .unwrap_or("Read");
        text.push_str(&format!(
            r#"{{"v":1,"hook":"PostToolUse","phase":"advance","event":{{"kind":"tool","name":"{tool}","input":{{"command":"{pad}","file_path":"/src/file{i}.rs"}}}},"facts":{{"waypoint_status":"active","flight_status":null}},"sequences":["compound_intelligence"]}}"#
        ));
        text.push('\n');
    }
    std::fs::write(&path, &text).unwrap();
    assert!(text.len() > 40 << 20, "{}", text.len());
    drop(text);
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("seed"));
    cmd.current_dir(dir.path())
        .env("SEED_HOME", dir.path().join("state"))
        .args(["status", "--events", "long.jsonl", "--json"]);
    let (peak, out) = peak_kib(cmd);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["step"], "starlog.check", "every record was folded");
    assert_eq!(j["events"], 100_000);
    assert!(
        peak > 0 && peak < 64 * 1024,
        "peak {peak} KiB for a 44 MB log"
    );
}
