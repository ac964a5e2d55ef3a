//! A hook answers within its budget (`hook_budget_ms`), by its fail mode when the work is not
//! done by then: Claude Code would let the call through on its own timeout, whatever `fail`
//! says. A hook cut by its deadline writes nothing but the lapse.

use std::io::Write;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::support::hook as hook_common;

use hook_common::{Sandbox, payload};
use serde_json::{Value, json};

/// A sequence whose first step is `w.start`: any other call is refused.
const GATE: &str = r#"{"name":"gate","description":"x","enforcement":"enforce","off_path":"deny",
  "tool_transitions":{"w.start":{"next_allowed":["w.next"]}}}"#;

/// Wait for `child` at most a minute (a hook that never answers fails the test, not hangs it).
fn finish(mut child: Child) -> (i32, String, String) {
    for _ in 0..600 {
        if child.try_wait().unwrap().is_some() {
            let o = child.wait_with_output().unwrap();
            return (
                o.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&o.stdout).into_owned(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("the hook did not answer within a minute");
}

fn errors_log(s: &Sandbox) -> Vec<Value> {
    std::fs::read_to_string(s.home().join("errors.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A payload that never ends (stdin held open): the hook answers by its fail mode once its
/// budget is spent, and records the lapse.
#[test]
fn a_payload_that_never_ends_is_answered_by_the_fail_mode_once_the_budget_is_spent() {
    for fail in ["closed", "open"] {
        let s = Sandbox::new();
        let mut child = s
            .std_cmd()
            .args(["hook", "--fail", fail, "PreToolUse"])
            .env("SEED_HOOK_BUDGET_MS", "300")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"{\"session_id\":\"never-ends\",").unwrap();
        let (code, stdout, stderr) = finish(child);
        drop(stdin);
        assert_eq!(code, 0, "{stderr}");
        let line =
            "seed: ran out of time: not done within hook_budget_ms = 300, so answered per `fail`";
        assert_eq!(stderr.trim_end(), line);
        if fail == "closed" {
            let v: Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
            let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap_or("");
            assert!(reason.contains("ran out of time"), "{reason}");
        } else {
            assert_eq!(stdout, "", "fail-open gives no decision");
        }
        let errors = errors_log(&s);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0]["error"], line);
        assert_eq!(errors[0]["extra"]["fail"], fail);
        // Marked as over budget: a lapse, never counted as a fail-closed refusal.
        assert_eq!(errors[0]["extra"]["budget_ms"], 300);
    }
}

/// `n` stepped records of a neutral tool, as hooks leave them, with no snapshot: the next
/// hook folds them all.
fn long_log(s: &Sandbox, session: &str, n: usize) {
    let dir = s.session_dir(session);
    std::fs::create_dir_all(&dir).unwrap();
    let mut w = std::io::BufWriter::new(std::fs::File::create(dir.join("log.jsonl")).unwrap());
    for i in 0..n {
        writeln!(
            w,
            r#"{{"v":1,"ts":"2026-11-22T00:00:00.000Z","session":"{session}","hook":"PreToolUse","phase":"gate","event":{{"kind":"tool","name":"Read","input":{{"file_path":"/tmp/f{i}.rs"}}}},"sequences":["gate"],"ms":0.4}}"#
        )
        .unwrap();
    }
    w.flush().unwrap();
}

/// A hook cut by its budget while it folds a long log (holding the log's lock) writes the
/// lapse and nothing else: no verdict, no snapshot, no temp file; the same hook with time
/// enough judges the call.
#[test]
fn a_hook_cut_while_it_folds_writes_the_lapse_and_nothing_else() {
    let s = Sandbox::new();
    std::fs::write(s.project().join("gate.json"), GATE).unwrap();
    let n = 100_000;
    long_log(&s, "long", n);
    s.write_config("fail = \"closed\"\nhook_budget_ms = 200\n");
    let call = payload(
        "PreToolUse",
        "long",
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    let r = s.hook(&["--sequence", "gate.json", "PreToolUse"], call.clone());
    assert_eq!(r.code, 0);
    let v = r.json();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(r.stderr.contains("ran out of time"), "{}", r.stderr);
    let lines = s.log_lines("long");
    assert_eq!(lines.len(), n + 1, "the lapse, appended whole");
    let lapse = &lines[n];
    assert!(
        lapse["error"]
            .as_str()
            .unwrap_or("")
            .contains("hook_budget_ms = 200"),
        "{lapse}"
    );
    assert!(lapse.get("verdict").is_none(), "{lapse}");
    let dir = s.session_dir("long");
    let left: Vec<String> = walk(&dir)
        .into_iter()
        .filter(|p| p.contains("snapshots/") || p.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // With time enough, the same call is judged (and refused by the sequence, not the clock).
    s.write_config("fail = \"closed\"\nhook_budget_ms = 25000\n");
    let r = s.hook(&["--sequence", "gate.json", "PreToolUse"], call);
    assert_eq!(r.stderr, "");
    let reason = r.json()["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(!reason.contains("ran out of time"), "{reason}");
    assert!(s.log_lines("long")[n + 1].get("verdict").is_some());
}

/// A budget past Claude Code's timeout would let a slow call through: it is capped, and
/// the hook says where it was set.
#[test]
fn a_budget_past_the_timeout_is_capped_with_a_warning() {
    let s = Sandbox::new();
    std::fs::write(s.project().join("gate.json"), GATE).unwrap();
    s.write_config("hook_budget_ms = 90000\n");
    let call = payload(
        "PreToolUse",
        "cap",
        json!({"tool_name": "Bash", "tool_input": {}}),
    );
    let r = s.hook(&["--sequence", "gate.json", "PreToolUse"], call);
    assert!(
        r.stderr
            .contains(".seed.toml:1:1: hook_budget_ms = 90000 is past Claude Code's hook timeout")
            && r.stderr.contains("answering after 25000 ms"),
        "{}",
        r.stderr
    );
    let r = s.hook_env(
        &["--sequence", "gate.json", "PreToolUse"],
        payload("PreToolUse", "cap", json!({"tool_name": "Bash"})),
        &[("SEED_HOOK_BUDGET_MS", "soon")],
    );
    assert!(
        r.stderr
            .contains("SEED_HOOK_BUDGET_MS: not a number: `soon`"),
        "{}",
        r.stderr
    );
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.display().to_string());
        }
    }
    out
}
