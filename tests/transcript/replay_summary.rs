//! `seed replay SOURCE --summary [--json]`: a replay without a terminal. The bundled demo
//! session, the same session as a transcript would give it (no recorded verdicts) replayed
//! what-if, and bad sources that must fail with one line or be summarized without panicking.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const SEED: &str = env!("CARGO_BIN_EXE_seed");

/// `seed replay ARGS` in an empty project with its own state directory.
fn replay(dir: &Path, args: &[&str]) -> Output {
    Command::new(SEED)
        .arg("replay")
        .args(args)
        .current_dir(dir)
        .env("SEED_HOME", dir.join("state"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .output()
        .expect("seed runs")
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn sum(v: &Value) -> u64 {
    v.as_object()
        .map(|m| m.values().filter_map(Value::as_u64).sum())
        .unwrap_or(0)
}

fn indices(v: &Value) -> Vec<u64> {
    v.as_array()
        .map(|a| a.iter().filter_map(|n| n["index"].as_u64()).collect())
        .unwrap_or_default()
}

fn one_line_error(out: &Output) -> String {
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).trim_end().to_string();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("seed: "), "{err}");
    err
}

#[test]
fn the_demo_counts_each_call_once_and_explains_every_refusal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let records = seed::demo::bundled();
    let calls = records.iter().filter(|r| r.hook == "PreToolUse").count() as u64;
    let s = json(&replay(dir.path(), &["demo", "--json"]));

    assert_eq!(s["events"], records.len());
    assert_eq!(s["tool_calls"], calls);
    assert_eq!(sum(&s["tools"]), calls);
    // Every call is judged once: the decisions and the kinds each sum to the calls.
    assert_eq!(sum(&s["verdicts"]), calls);
    assert_eq!(sum(&s["verdict_kinds"]), calls);
    assert_eq!(s["final"]["sequence"], "compound_intelligence");
    assert_eq!(s["final"]["node"], "waypoint.complete_journey");
    assert_eq!(s["final"]["done"], true);
    // Replayed as the hook stepped it: nothing differs, and the refusals are the recorded ones.
    assert_eq!(s["differing"], serde_json::json!([]));
    let refused: Vec<u64> = records
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            r.hook == "PreToolUse"
                && r.verdict.as_ref().is_some_and(|v| {
                    matches!(
                        v.decision,
                        seed::engine::Decision::Deny | seed::engine::Decision::Ask
                    )
                })
        })
        .map(|(i, _)| i as u64)
        .collect();
    assert!(!refused.is_empty());
    assert_eq!(indices(&s["denied"]), refused);
    assert!(s["denied"].as_array().is_some_and(|a| {
        a.iter()
            .all(|d| d["reason"].as_str().is_some_and(|r| !r.is_empty()))
    }));

    // `--summary` prints the same in text.
    let text = replay(dir.path(), &["demo", "--summary"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains(&format!("tool calls: {calls} (")), "{text}");
    assert!(
        text.contains("final:      \"compound_intelligence\" at waypoint.complete_journey"),
        "{text}"
    );
    let asked = s["denied"]
        .as_array()
        .map_or(0, |a| a.iter().filter(|d| d["replayed"] == "ask").count());
    assert!(asked > 0, "the demo escalates one refusal to the user");
    assert!(
        text.contains(&format!(
            "denied:     {} calls ({} denied, {asked} asked)",
            refused.len(),
            refused.len() - asked
        )),
        "{text}"
    );
}

#[test]
fn a_log_without_hook_names_counts_its_gated_calls_once_in_total_and_by_tool() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = [
        r#"{"phase":"advance","event":{"kind":"prompt","name":"go","input":{"prompt":"go"}}}"#,
        r#"{"phase":"gate","event":{"kind":"tool","name":"Bash","input":{"command":"ls"}}}"#,
        r#"{"phase":"advance","event":{"kind":"tool","name":"Bash","input":{"command":"ls"}}}"#,
        r#"{"phase":"gate","event":{"kind":"skill","name":"hope:intent"}}"#,
    ];
    std::fs::write(dir.path().join("bare.jsonl"), lines.join("\n")).expect("write");
    let s = json(&replay(dir.path(), &["bare.jsonl", "--json"]));
    assert_eq!(s["tool_calls"], 2, "{s}");
    assert_eq!(sum(&s["tools"]), 2, "{s}");
    let text = replay(dir.path(), &["bare.jsonl", "--summary"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("tool calls: 2 ("), "{text}");
}

#[test]
fn what_if_on_unjudged_calls_lists_each_one_the_sequence_would_refuse() {
    // The demo without its verdicts, as a transcript gives the calls: they all ran.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut lines = String::new();
    for mut r in seed::demo::bundled() {
        r.verdict = None;
        lines.push_str(&serde_json::to_string(&r).expect("record"));
        lines.push('\n');
    }
    std::fs::write(dir.path().join("ran.jsonl"), lines).expect("write");
    let s = json(&replay(
        dir.path(),
        &["ran.jsonl", "--json", "--sequence", "compound_intelligence"],
    ));
    assert_eq!(s["final"]["sequence"], "compound_intelligence");
    let differing = indices(&s["differing"]);
    assert!(!differing.is_empty());
    assert_eq!(differing, indices(&s["denied"]));
    assert!(s["differing"].as_array().is_some_and(|a| {
        a.iter()
            .all(|d| d["recorded"].is_null() && d["replayed"] != "allow")
    }));
}

#[test]
fn bad_sources_fail_with_one_line_or_are_summarized_without_loss() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path();

    let err = one_line_error(&replay(p, &["no-such-file.jsonl", "--json"]));
    assert!(err.contains("no-such-file.jsonl"), "{err}");
    let err = one_line_error(&replay(p, &["demo", "--json", "--sequence", "nope"]));
    assert!(err.contains("nope"), "{err}");
    let err = one_line_error(&replay(p, &["demo"]));
    assert!(err.contains("--summary"), "{err}");

    // Empty: nothing happened, nothing to judge.
    std::fs::write(p.join("empty.jsonl"), "").expect("write");
    let s = json(&replay(p, &["empty.jsonl", "--json"]));
    assert_eq!(
        (s["events"].as_u64(), s["tool_calls"].as_u64()),
        (Some(0), Some(0))
    );
    assert!(s["final"].is_null());

    // Hostile bytes around real records: the records are kept, the rest is counted.
    let demo = seed::demo::SESSION_LOG;
    let good = demo.lines().count();
    let mut hostile =
        b"\x00\xff\xfe not json\n{\"hook\": [1, 2\n\x1b[2J\x1b]0;pwned\x07\n".to_vec();
    hostile.extend_from_slice(demo.as_bytes());
    std::fs::write(p.join("hostile.jsonl"), hostile).expect("write");
    let s = json(&replay(p, &["hostile.jsonl", "--json"]));
    assert_eq!(s["events"], good);
    assert_eq!(s["skipped_lines"], 3);

    // Huge: the demo two hundred times over, every record counted.
    std::fs::write(p.join("huge.jsonl"), demo.repeat(200)).expect("write");
    let s = json(&replay(p, &["huge.jsonl", "--json"]));
    assert_eq!(s["events"], good * 200);
}

#[test]
fn records_of_a_newer_format_are_left_out_and_said_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path();
    let demo = seed::demo::SESSION_LOG;
    let good = demo.lines().count();
    // A newer seed's records: same shape, later version. Counting them would misread them.
    let mut log = demo.to_string();
    for line in demo.lines().take(3) {
        let mut v: Value = serde_json::from_str(line).expect("demo record");
        v["v"] = Value::from(2);
        log.push_str(&v.to_string());
        log.push('\n');
    }
    std::fs::write(p.join("mixed.jsonl"), &log).expect("write");
    let s = json(&replay(p, &["mixed.jsonl", "--json"]));
    assert_eq!(s["events"], good);
    assert_eq!(s["newer_records"], 3);
    assert_eq!(sum(&s["events_by_kind"]), good as u64);

    let out = replay(p, &["mixed.jsonl", "--summary"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("skipped:    3 records written by a newer seed"),
        "{text}"
    );
}
