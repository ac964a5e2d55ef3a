//! The store under stress: parallel hooks, kills at random instants, and bad input.

use crate::support::hook as hook_common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use hook_common::{LEAKY, Sandbox, assert_snapshot_is_fold, payload};
use serde_json::{Value, json};

fn bin() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("seed")
}

fn raw_cmd(s: &Sandbox, args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    for k in LEAKY {
        c.env_remove(k);
    }
    c.args(["hook", "--sequence", "starlog_initialization"])
        .args(args)
        .env("SEED_HOME", s.home())
        .env("SEED_CONFIG_DIR", s.dir.path().join("user-config"))
        .env("HOME", s.dir.path())
        .current_dir(s.project())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

#[test]
fn sixty_four_parallel_hooks_lose_nothing() {
    let s = Sandbox::new();
    let sid = "parallel-session";
    let mut children = Vec::new();
    for i in 0..64 {
        let (event, name) = match i % 4 {
            0 => ("PreToolUse", "mcp__starlog__check"),
            1 => ("PostToolUse", "mcp__starlog__check"),
            2 => ("PreToolUse", "Read"),
            _ => ("PostToolUse", "mcp__starlog__orient"),
        };
        let mut extra = json!({ "tool_name": name, "tool_input": { "i": i }, "tool_use_id": format!("toolu_{i}") });
        if i % 8 == 7 {
            extra["agent_id"] = json!(format!("agent{}", i % 3));
        }
        let mut c = raw_cmd(&s, &[]).spawn().unwrap();
        let p = payload(event, sid, extra);
        c.stdin.take().unwrap().write_all(p.as_bytes()).unwrap();
        children.push(c);
    }
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0));
        assert!(
            o.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let lines = s.log_lines(sid);
    assert_eq!(lines.len(), 64, "64 intact records");
    let mut ids: Vec<String> = lines
        .iter()
        .map(|l| l["tool_use_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 64);
    assert!(lines.iter().any(|l| l["agent"] == "agent1"));
    assert_snapshot_is_fold(&s.home(), sid);
}

/// A tiny deterministic generator (no rand dependency).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn kills_at_random_instants_leave_a_readable_log_and_whole_snapshots() {
    let s = Sandbox::new();
    let sid = "crash-session";
    // A big tool input makes the record line, and so the write, long.
    let big = json!({ "tool_name": "Write", "tool_use_id": "toolu_x",
        "tool_input": { "file_path": "/tmp/x", "content": "z".repeat(200_000) } });
    let p = payload("PreToolUse", sid, big);
    let snap_path = s
        .session_dir(sid)
        .join("snapshots")
        .join("starlog_initialization.json");
    let log_path = s.session_dir(sid).join("log.jsonl");
    let mut rng = Lcg(0x5eed);
    // Kill anywhere in the life of a hook: measure one, then pick instants up to 1.2× that.
    let t0 = std::time::Instant::now();
    assert_eq!(raw_cmd(&s, &[]).output_with(&p), 0);
    let span_us = (t0.elapsed().as_micros() as u64 * 6 / 5).max(1000);
    let trials = 200;
    let (mut torn, mut fallbacks) = (0, 0);
    for _ in 0..trials {
        let mut c = raw_cmd(&s, &[]).spawn().unwrap();
        let mut stdin = c.stdin.take().unwrap();
        let _ = stdin.write_all(p.as_bytes());
        drop(stdin);
        std::thread::sleep(Duration::from_micros(rng.next() % span_us));
        let _ = c.kill();
        let _ = c.wait();
        // Once written, a whole snapshot always exists: the old one steps aside before the new
        // one takes its name, so a kill leaves the new one, the old one or (between the two
        // renames) the old one under its previous name, which readers fall back to.
        seed::store::snapshot::load(&snap_path).expect("a whole snapshot exists after every kill");
        fallbacks += usize::from(!snap_path.exists());
        // The log: complete lines, plus at most one incomplete last line that readers skip.
        let bytes = std::fs::read(&log_path).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let mut parts: Vec<&str> = text.split('\n').collect();
        let tail = parts.pop().unwrap_or("");
        for line in parts {
            serde_json::from_str::<Value>(line).expect("every complete line parses");
        }
        let (_, bad) = seed::store::record::parse_records(&bytes);
        assert_eq!(bad, usize::from(!tail.is_empty()));
        torn += usize::from(!tail.is_empty());
    }
    eprintln!(
        "{trials} kills: {torn} torn tails seen, {fallbacks} snapshots read from their previous name"
    );
    // A torn tail as a crash mid-write (or a full disk) leaves one, for the next writer.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&log_path)
        .unwrap();
    f.write_all(b"{\"v\":1,\"ts\":\"2026-").unwrap();
    drop(f);
    // The next writer repairs the torn tail, and the cache agrees with the log again.
    let o = raw_cmd(&s, &[]).output_with(&p);
    assert_eq!(o, 0);
    let bytes = std::fs::read(&log_path).unwrap();
    assert!(bytes.ends_with(b"\n"));
    let temps = std::fs::read_dir(snap_path.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .count();
    assert_eq!(temps, 0, "temp files of killed hooks are cleaned up");
    assert_snapshot_is_fold(&s.home(), sid);
}

trait OutputWith {
    fn output_with(&mut self, input: &str) -> i32;
}
impl OutputWith for Command {
    fn output_with(&mut self, input: &str) -> i32 {
        let mut c = self.spawn().unwrap();
        c.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        c.wait_with_output().unwrap().status.code().unwrap_or(-1)
    }
}

/// Fail-open: exit 0, nothing on stdout, one line on stderr, a failure record.
fn assert_fail_open(s: &Sandbox, input: Vec<u8>, args: &[&str], what: &str) -> String {
    let r = s.hook(args, input);
    assert_eq!(r.code, 0, "{what}");
    assert_eq!(r.stdout, "", "{what}");
    assert!(
        r.stderr.starts_with("seed: ") && r.stderr.trim_end().lines().count() == 1,
        "{what}: {:?}",
        r.stderr
    );
    r.stderr
}

#[test]
fn bad_input_fails_open_with_a_record() {
    let s = Sandbox::new();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty stdin", vec![]),
        ("not JSON", b"hello".to_vec()),
        ("JSON array", b"[{\"session_id\":\"x\"}]".to_vec()),
        (
            "wrong types",
            br#"{"session_id": 42, "hook_event_name": "PreToolUse"}"#.to_vec(),
        ),
        (
            "missing session_id",
            br#"{"hook_event_name": "Stop", "stop_hook_active": false}"#.to_vec(),
        ),
        (
            "tool event without tool_name",
            br#"{"session_id":"s-bad","hook_event_name":"PreToolUse"}"#.to_vec(),
        ),
    ];
    for (what, input) in &cases {
        assert_fail_open(
            &s,
            input.clone(),
            &["--sequence", "starlog_initialization"],
            what,
        );
    }
    let errors = std::fs::read_to_string(s.home().join("errors.jsonl")).unwrap();
    assert_eq!(errors.lines().count(), 5);
    let session_failure = &s.log_lines("s-bad")[0];
    assert!(
        session_failure["error"]
            .as_str()
            .unwrap()
            .contains("tool_name")
    );
    // Fail-closed turns the same error into a deny on PreToolUse.
    let r = s.hook_env(&["PreToolUse"], "nope", &[("SEED_FAIL", "closed")]);
    assert_eq!(r.json()["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(
        r.json()["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .starts_with("seed: input is not JSON")
    );
}

#[test]
fn odd_but_valid_input_is_answered() {
    let s = Sandbox::new();
    let args = ["--sequence", "starlog_initialization"];
    // Lone surrogates are replaced, not fatal; pretty JSON is fine.
    let lone = "{\n    \"session_id\": \"s-odd\",\n    \"hook_event_name\": \"UserPromptSubmit\",\n    \"prompt\": \"bad \\udc9d half \\ud83d and a pair \\ud83d\\ude80\"\n  }";
    let r = s.hook(&args, lone);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(
        r.json()["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    // Invalid UTF-8 is decoded lossily.
    let mut bad =
        br#"{"session_id":"s-odd","hook_event_name":"UserPromptSubmit","prompt":"caf"#.to_vec();
    bad.extend_from_slice(b"\xe9 \xff\"}");
    let r = s.hook(&args, bad);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let lines = s.log_lines("s-odd");
    assert!(
        lines[0]["event"]["input"]["prompt"]
            .as_str()
            .unwrap()
            .contains("\u{FFFD} half \u{FFFD} and a pair 🚀")
    );
    assert_eq!(lines[1]["extra"]["repaired_utf8"], true);
    // A 50 MB prompt is accepted and kept bounded.
    let huge = format!(
        "{{\"session_id\":\"s-huge\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"{}\"}}",
        "x".repeat(50 * 1024 * 1024)
    );
    let r = s.hook(&args, huge);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let size = std::fs::metadata(s.session_dir("s-huge").join("log.jsonl"))
        .unwrap()
        .len();
    assert!(size < 1024 * 1024, "record bounded: {size} bytes");
}

#[test]
fn unwritable_state_dir_and_full_disk_fail_open() {
    let s = Sandbox::new();
    // The state dir is a regular file: nothing can be created under it.
    let file = s.dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let r = s.hook_env(
        &["--sequence", "starlog_initialization"],
        payload(
            "PreToolUse",
            "s1",
            json!({ "tool_name": "Bash", "tool_input": {} }),
        ),
        &[("SEED_HOME", file.to_str().unwrap())],
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    assert!(r.stderr.starts_with("seed: "), "{}", r.stderr);
    // A full disk: the session log is a link (owned by us) to /dev/full.
    #[cfg(target_os = "linux")]
    if std::path::Path::new("/dev/full").exists() {
        let dir = s.session_dir("s-full");
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink("/dev/full", dir.join("log.jsonl")).unwrap();
        let r = s.hook(
            &["--sequence", "starlog_initialization"],
            payload(
                "PreToolUse",
                "s-full",
                json!({ "tool_name": "Bash", "tool_input": {} }),
            ),
        );
        assert_eq!((r.code, r.stdout.as_str()), (0, ""));
        assert!(
            r.stderr.contains("No space left") || r.stderr.contains("full"),
            "{}",
            r.stderr
        );
        // The failure is recorded where it can be.
        let errors = std::fs::read_to_string(s.home().join("errors.jsonl")).unwrap();
        assert!(errors.contains("s-full"));
    }
}
