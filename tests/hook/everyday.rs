//! An everyday sequence through `seed hook`, as Claude Code runs it: the test command's
//! result reaches the sequence (its exit code as PostToolUseFailure, its output in the
//! PostToolUse response), and the end of a turn is warned about (advise) or held (enforce).

use crate::support::hook as hook_common;

use hook_common::{Sandbox, assert_snapshot_is_fold, payload};
use serde_json::{Value, json};

fn send(s: &Sandbox, args: &[&str], event: &str, extra: Value) -> Value {
    let r = s.hook(args, payload(event, "s-everyday", extra));
    assert_eq!(r.code, 0, "{}", r.stderr);
    if r.stdout.trim().is_empty() {
        Value::Null
    } else {
        r.json()
    }
}

fn bash(s: &Sandbox, args: &[&str], command: &str, stdout: Option<&str>) -> Value {
    let input = json!({ "command": command });
    let pre = send(
        s,
        args,
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": input, "tool_use_id": command}),
    );
    match stdout {
        Some(out) => send(
            s,
            args,
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": input, "tool_use_id": command,
                   "tool_response": {"stdout": out, "stderr": "", "interrupted": false, "isImage": false}}),
        ),
        None => send(
            s,
            args,
            "PostToolUseFailure",
            json!({"tool_name": "Bash", "tool_input": input, "tool_use_id": command,
                   "error": "Exit code 101\ntest result: FAILED"}),
        ),
    };
    pre
}

fn stop(s: &Sandbox, args: &[&str]) -> Value {
    send(s, args, "Stop", json!({"stop_hook_active": false}))
}

#[test]
fn a_red_turn_is_told_in_advise_mode_and_held_in_enforce_mode() {
    for enforce in [false, true] {
        let s = Sandbox::new();
        let mut args = vec!["--sequence", "tdd"];
        if enforce {
            args.extend(["--enforcement", "enforce"]);
        }
        // A piped run exits 0: its output says it failed.
        bash(
            &s,
            &args,
            "cargo test 2>&1 | tail -3",
            Some("test result: FAILED. 1 failed"),
        );
        let answer = stop(&s, &args);
        let text = "seed [tdd]: \"tdd\" is at \"red\", where the turn does not end yet. Run the tests and make them pass before ending the turn.";
        if enforce {
            assert_eq!(answer, json!({"decision": "block", "reason": text}));
        } else {
            assert_eq!(answer, json!({"systemMessage": text}));
        }
        // The run passes: the turn ends quietly.
        bash(&s, &args, "cargo test", Some("test result: ok. 2 passed"));
        assert_eq!(stop(&s, &args), Value::Null);
        assert_snapshot_is_fold(&s.home(), "s-everyday");
    }
}

#[test]
fn a_failed_test_command_is_the_red_step() {
    let s = Sandbox::new();
    let args = ["--sequence", "tdd", "--enforcement", "enforce"];
    let edit = json!({"tool_name": "Edit", "tool_input": {"file_path": "/home/dev/work/p/src/lib.rs", "old_string": "a", "new_string": "b"}});
    let refused = send(&s, &args, "PreToolUse", edit.clone());
    assert_eq!(
        refused["hookSpecificOutput"]["permissionDecision"],
        json!("deny"),
        "{refused}"
    );
    bash(&s, &args, "cargo test", None);
    assert_eq!(send(&s, &args, "PreToolUse", edit), Value::Null);
}
