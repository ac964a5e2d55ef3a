//! A file-size limit (`ulimit -f`) reached at the append: the write fails instead of the
//! process (SIGXFSZ would end it mid-append, with no answer), the hook answers by its fail
//! mode, the log is left as it was (no torn tail) and the failure is recorded where it fits.

use std::io::Write;
use std::process::Stdio;

use crate::support::hook as hook_common;

use hook_common::{Sandbox, payload};
use serde_json::{Value, json};

/// The limit, in `ulimit -f` blocks of 512 bytes: the session log is made larger than it.
const LIMIT_BLOCKS: u64 = 64;

/// Run the hook under `ulimit -f` through `sh`; (exit code, stdout, stderr).
fn hook_under_limit(s: &Sandbox, fail: &str, input: &str) -> (Option<i32>, String, String) {
    let script = format!("ulimit -f {LIMIT_BLOCKS} && exec \"$0\" hook --fail {fail} PreToolUse");
    let mut p = s
        .std_cmd_of("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_seed")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    p.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let o = p.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_file_size_limit_at_the_append_is_answered_and_tears_nothing() {
    for fail in ["closed", "open"] {
        let s = Sandbox::new();
        s.write_config("sequence = \"starlog_initialization\"\noff_path = \"deny\"\n");
        let sid = format!("fsize-{fail}");
        // A first call makes the session; then its log grows past the limit.
        let call = |id: &str| {
            payload(
                "PreToolUse",
                &sid,
                json!({"tool_name": "mcp__starship__fly", "tool_input": {}, "tool_use_id": id}),
            )
        };
        assert_eq!(s.hook(&[], call("t1")).code, 0);
        let log = s.session_dir(&sid).join("log.jsonl");
        let first = std::fs::read_to_string(&log).unwrap();
        let mut grown = String::new();
        while (grown.len() as u64) < LIMIT_BLOCKS * 512 + 1000 {
            grown.push_str(&first);
        }
        std::fs::write(&log, &grown).unwrap();

        let (code, stdout, stderr) = hook_under_limit(&s, fail, &call("t2"));
        assert_eq!(code, Some(0), "answered, not killed by SIGXFSZ: {stderr}");
        assert!(stderr.contains("File too large"), "{stderr}");
        if fail == "closed" {
            let v: Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        } else {
            assert_eq!(stdout, "");
        }
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            grown,
            "the log is as it was"
        );
        let errors = std::fs::read_to_string(s.home().join("errors.jsonl")).unwrap_or_default();
        let rec: Value = serde_json::from_str(errors.trim()).unwrap_or(Value::Null);
        assert_eq!(rec["session"], sid.as_str(), "{errors}");
        assert!(
            rec["error"]
                .as_str()
                .unwrap_or("")
                .contains("File too large")
        );
        assert!(rec.get("verdict").is_none(), "{rec}");
    }
}
