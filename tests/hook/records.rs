//! What a record keeps of a payload: secrets redacted, long strings shortened with a note of
//! what was cut and how big it was; and configuration precedence as the hook applies it.

use crate::support::hook as hook_common;

use hook_common::{Sandbox, payload};
use serde_json::json;

const SEQ: &[&str] = &["--sequence", "starlog_initialization"];

#[test]
fn stripe_keys_are_redacted() {
    let s = Sandbox::new();
    let keys = [
        "sk_live_51HxAbCdEfGhIjKlMnOpQrStUv",
        "rk_live_51HxAbCdEfGhIjKlMnOpQrStUv",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    ];
    let command = format!(
        "curl https://api.stripe.com/v1/charges -u {}: ; export STRIPE={} T={} W={}",
        keys[0], keys[1], keys[2], keys[3]
    );
    let p = payload(
        "PreToolUse",
        "s-stripe",
        json!({ "tool_name": "Bash", "tool_input": { "command": command } }),
    );
    assert_eq!(s.hook(SEQ, p).code, 0);
    let text = std::fs::read_to_string(s.session_dir("s-stripe").join("log.jsonl")).unwrap();
    for k in keys {
        assert!(!text.contains(&k[8..]), "{k} kept in {text}");
    }
    assert!(text.contains("[REDACTED]"));
}

/// A tool input string over 256 KiB is shortened, and the record says which field, its full
/// size and how much was kept.
#[test]
fn cut_strings_are_marked_with_their_size() {
    let s = Sandbox::new();
    let big = "z".repeat(300_000);
    let p = payload(
        "PreToolUse",
        "s-cut",
        json!({ "tool_name": "Write", "tool_input": { "file_path": "/tmp/x", "content": big, "edits": [{ "new": "y".repeat(262_145) }] } }),
    );
    assert_eq!(s.hook(SEQ, p).code, 0);
    let prompt = payload(
        "UserPromptSubmit",
        "s-cut",
        json!({ "prompt": "p".repeat(400_000) }),
    );
    assert_eq!(s.hook(SEQ, prompt).code, 0);
    let small = payload(
        "PreToolUse",
        "s-cut",
        json!({ "tool_name": "Read", "tool_input": { "file_path": "/tmp/x" } }),
    );
    assert_eq!(s.hook(SEQ, small).code, 0);
    let lines = s.log_lines("s-cut");
    assert_eq!(
        lines[0]["extra"]["truncated"],
        json!([
            { "field": "tool_input/content", "size": 300_000, "kept": 262_144 },
            { "field": "tool_input/edits/0/new", "size": 262_145, "kept": 262_144 },
        ])
    );
    let content = lines[0]["event"]["input"]["content"].as_str().unwrap();
    assert!(content.ends_with("…[seed: truncated, 300000 bytes]"));
    assert_eq!(
        lines[1]["extra"]["truncated"],
        json!([{ "field": "prompt", "size": 400_000, "kept": 262_144 }])
    );
    assert!(lines[2]["extra"].get("truncated").is_none());
}

/// A per-sequence override in `.seed.toml` is a project setting: SEED_* and flags beat it.
#[test]
fn variables_and_flags_beat_a_per_sequence_override() {
    let s = Sandbox::new();
    s.write_config(
        "sequence = \"starlog_initialization\"\n[overrides.starlog_initialization]\nenforcement = \"enforce\"\noff_path = \"deny\"\n",
    );
    let bash = || {
        payload(
            "PreToolUse",
            "s-prec",
            json!({ "tool_name": "Bash", "tool_input": {} }),
        )
    };
    // The override alone: denied.
    let r = s.hook(&[], bash());
    assert_eq!(r.json()["hookSpecificOutput"]["permissionDecision"], "deny");
    // SEED_ENFORCEMENT beats it: observe says nothing.
    let r = s.hook_env(&[], bash(), &[("SEED_ENFORCEMENT", "observe")]);
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""));
    // SEED_OFF_PATH beats it: warn lets the call through with a warning.
    let r = s.hook_env(&[], bash(), &[("SEED_OFF_PATH", "warn")]);
    assert!(r.json()["systemMessage"].as_str().is_some(), "{}", r.stdout);
    // The flag beats the variable and the override.
    let r = s.hook_env(
        &["--enforcement", "advise"],
        bash(),
        &[("SEED_ENFORCEMENT", "enforce")],
    );
    assert!(r.json()["systemMessage"].as_str().is_some(), "{}", r.stdout);
}

/// A tool's result is logged once: in the record, bounded by `response_limit`, when no
/// sequence keeps results; in the stepped event, whole, when one does (a workflow's
/// `store_as`), and then the record keeps only its size.
#[test]
fn a_tool_result_is_logged_once() {
    let s = Sandbox::new();
    let response = json!({ "stdout": "9b1f0c2\n", "stderr": "" });
    let post = |session: &str, tool: &str, input: serde_json::Value| {
        payload(
            "PostToolUse",
            session,
            json!({ "tool_name": tool, "tool_input": input, "tool_response": response }),
        )
    };
    let bash = json!({ "command": "git rev-parse HEAD" });
    assert_eq!(s.hook(SEQ, post("s-plain", "Bash", bash.clone())).code, 0);
    let rec = s.log_lines("s-plain").pop().expect("a record");
    assert_eq!(rec["event"].get("response"), None, "{rec}");
    assert_eq!(rec["response"]["value"], response);

    // hiivmind_add_source keeps what its calls produce: the Read of the corpus config.
    let read = json!({ "file_path": "data/config.yaml" });
    let seq = ["--sequence", "hiivmind_add_source"];
    assert_eq!(s.hook(&seq, post("s-keeps", "Read", read)).code, 0);
    let rec = s.log_lines("s-keeps").pop().expect("a record");
    assert_eq!(rec["event"]["response"], response, "{rec}");
    assert_eq!(rec["response"]["value"], serde_json::Value::Null);
    assert!(rec["response"]["size"].as_u64().is_some_and(|n| n > 0));
}

/// A tool input nested past the JSON parser's depth is judged like any call, never waved
/// through as unreadable: the deep part is cut (and the record says so), the tool is denied
/// off the railroad.
#[test]
fn input_nested_too_deep_is_judged_not_waved_through() {
    let s = Sandbox::new();
    for (session, levels) in [("s-deep-130", 130), ("s-deep-100k", 100_000)] {
        let deep = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        let p = format!(
            r#"{{"hook_event_name":"PreToolUse","session_id":"{session}","tool_name":"Bash","tool_input":{{"command":"ls","x":{deep}}}}}"#
        );
        let r = s.hook(&["--sequence", "compound_intelligence"], p);
        assert_eq!(r.code, 0);
        let v = r.json();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
        let rec = s.log_lines(session).pop().expect("a record");
        assert_eq!(rec["event"]["input"]["command"], "ls");
        assert_eq!(rec["extra"]["flattened_too_deep"], 1, "{rec}");
    }
}
