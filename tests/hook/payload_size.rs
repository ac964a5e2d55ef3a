//! What a payload keeps, whatever it sends: the call is judged on what is kept, the record
//! says what was cut and how large it was, and nothing the payload holds (numbers past any
//! float, millions of values, a result of megabytes) makes it unreadable.

use crate::support::hook as hook_common;

use hook_common::{Sandbox, payload};
use serde_json::{Value, json};

/// A sequence whose first step is `w.start`: any other call is refused.
const GATE: &str = r#"{"name":"gate","description":"x","enforcement":"enforce","off_path":"deny",
  "tool_transitions":{"w.start":{"next_allowed":["w.next"]}}}"#;

fn sandbox() -> Sandbox {
    let s = Sandbox::new();
    std::fs::write(s.project().join("gate.json"), GATE).unwrap();
    s
}

fn decision(v: &Value) -> &str {
    v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("")
}

/// `1e400` is JSON but no `f64`: the payload is read (the number kept as its digits) and the
/// call judged, not answered as "not JSON" (which fail-open would let through).
#[test]
fn a_number_past_any_float_does_not_make_the_payload_unreadable() {
    let s = sandbox();
    let text = payload("PreToolUse", "huge-number", json!({"tool_name": "Bash"})).replace(
        "\"tool_name\"",
        "\"tool_input\":{\"n\":1e400,\"m\":[-1e999,2]},\"tool_name\"",
    );
    assert!(serde_json::from_str::<Value>(&text).is_err(), "{text}");
    let r = s.hook(&["--sequence", "gate.json", "PreToolUse"], text);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(decision(&r.json()), "deny", "judged: {}", r.stdout);
    let rec = &s.log_lines("huge-number")[0];
    assert_eq!(
        rec["event"]["input"],
        json!({"n": "1e400", "m": ["-1e999", 2]})
    );
    assert_eq!(rec["extra"]["quoted_huge_numbers"], 2);
    assert!(rec.get("error").is_none(), "{rec}");
}

/// Millions of one-letter strings: a megabyte of them is kept (the call judged on it), the
/// rest skipped unread, and the record says so with the size as sent.
#[test]
fn a_tool_input_of_millions_of_values_keeps_a_megabyte_and_says_so() {
    let s = sandbox();
    let n = 2_000_000;
    let many = vec!["a"; n];
    let text = payload(
        "PreToolUse",
        "many",
        json!({"tool_name": "Bash", "tool_input": {"command": "ls", "a": many}}),
    );
    let r = s.hook(&["--sequence", "gate.json", "PreToolUse"], text);
    assert_eq!(decision(&r.json()), "deny", "{}", r.stderr);
    let rec = &s.log_lines("many")[0];
    let kept = rec["event"]["input"]["a"].as_array().map_or(0, Vec::len);
    assert!((1000..n).contains(&kept), "{kept} of {n} kept");
    assert_eq!(rec["event"]["input"]["command"], "ls");
    let cut = &rec["extra"]["truncated"][0];
    assert_eq!(cut["field"], "tool_input/a");
    assert!(cut["size"].as_u64().unwrap_or(0) >= 4 * n as u64, "{cut}");
    assert!(
        cut["kept"].as_u64().unwrap_or(u64::MAX) <= 1024 * 1024,
        "{cut}"
    );
    let line = std::fs::read_to_string(s.session_dir("many").join("log.jsonl")).unwrap();
    assert!(
        line.len() < 4 * 1024 * 1024,
        "record of {} bytes",
        line.len()
    );
}

/// A result of megabytes is recorded as its first `response_limit` bytes and its size; the
/// short members after its bulk (a fetch's `code`) still reach the sequence.
#[test]
fn a_result_of_megabytes_is_recorded_as_its_start_and_its_size() {
    let s = sandbox();
    let bulk = vec!["line of output"; 700_000];
    let text = payload(
        "PostToolUse",
        "big-result",
        json!({"tool_name": "WebFetch", "tool_input": {"url": "https://example.com"},
               "tool_response": {"content": bulk, "code": 200, "codeText": "OK"}}),
    );
    let sent = text.len() as u64;
    let r = s.hook(&["--sequence", "gate.json", "PostToolUse"], text);
    assert_eq!((r.code, r.stderr.as_str(), r.stdout.as_str()), (0, "", ""));
    let rec = &s.log_lines("big-result")[0];
    let resp = &rec["response"];
    assert_eq!(resp["truncated"], true);
    assert!(resp["size"].as_u64().unwrap_or(0) > sent - 1000, "{resp}");
    assert_eq!(resp["value"].as_str().map_or(0, str::len), 16 * 1024);
    assert!(
        resp["value"]
            .as_str()
            .unwrap_or("")
            .starts_with("{\"content\":[\"line of output\"")
    );
}
