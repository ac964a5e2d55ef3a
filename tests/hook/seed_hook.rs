//! `seed-hook`, the small executable `seed install` points the hooks at, is `seed hook`:
//! the same answers, records and failures for the same arguments and payload.

use serde_json::json;

use crate::support::hook::{Run, Sandbox, payload};

fn seed_hook(s: &Sandbox, args: &[&str], stdin: &str) -> Run {
    use std::io::Write;
    let mut c = s.std_cmd_of(env!("CARGO_BIN_EXE_seed-hook"));
    c.args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    Run {
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        code: o.status.code().unwrap_or(-1),
    }
}

/// The parts of a record that do not depend on when or how fast it was written.
fn stable(mut v: serde_json::Value) -> serde_json::Value {
    for k in ["ts", "ms"] {
        v.as_object_mut().unwrap().remove(k);
    }
    v
}

#[test]
fn seed_hook_answers_and_records_as_seed_hook_does() {
    let (a, b) = (Sandbox::new(), Sandbox::new());
    let args = [
        "--sequence",
        "tdd",
        "--enforcement",
        "enforce",
        "PreToolUse",
    ];
    // An edit before any failing test run: tdd refuses it.
    let p = payload(
        "PreToolUse",
        "s1",
        json!({"tool_name": "Edit", "tool_input": {"file_path": "src/lib.rs"}}),
    );
    let small = seed_hook(&a, &args, &p);
    let whole = b.hook(&args, p.clone());
    assert_eq!((small.code, whole.code), (0, 0));
    assert_eq!(small.json(), whole.json());
    assert_eq!(
        small.json()["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    let (la, lb) = (a.log_lines("s1"), b.log_lines("s1"));
    assert_eq!(la.len(), 1);
    assert_eq!(stable(la[0].clone()), stable(lb[0].clone()));
}

#[test]
fn seed_hook_refuses_bad_arguments_as_seed_hook_does() {
    let s = Sandbox::new();
    let p = payload(
        "PreToolUse",
        "s2",
        json!({"tool_name": "Read", "tool_input": {}}),
    );
    let run = seed_hook(&s, &["--bogus", "--fail", "closed", "PreToolUse"], &p);
    // Never exit 2 (a block by accident); fail-closed denies with the one line.
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("unknown option `--bogus`"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    let help = seed_hook(&s, &["--help"], "");
    assert_eq!(help.code, 0);
    assert!(
        help.stdout.starts_with("usage: seed-hook "),
        "{}",
        help.stdout
    );
}
