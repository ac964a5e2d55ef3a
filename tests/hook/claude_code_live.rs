//! What the live Claude Code (2.1.328) sends that recorded payloads never showed: deferred
//! tools loaded through `ToolSearch`, background-task notifications arriving as prompts, and
//! `stop_hook_active` staying true for the rest of a turn.

use crate::support::hook as hook_common;

use hook_common::{Sandbox, payload};
use serde_json::{Value, json};

/// A PreToolUse as 2.1.328 sends it (`tool_use_id` and the model's input as given).
fn pre(tool: &str, input: Value, id: &str) -> Value {
    json!({ "tool_name": tool, "tool_input": input, "tool_use_id": id })
}

#[test]
fn tool_search_loading_seeds_tools_is_never_refused_or_warned_about() {
    for (sequence, mode) in [
        ("compound_intelligence", "enforce"),
        ("odyssean_anchor", "enforce"),
        ("hope", "advise"),
    ] {
        let s = Sandbox::new();
        s.write_config(&format!(
            "sequence = \"{sequence}\"\nenforcement = \"{mode}\"\n"
        ));
        let sid = "7d1c4a52-0f0e-4c59-9a51-5b0a2c6f0d11";
        let input = json!({ "query": "select:mcp__seed__who_am_i,mcp__seed__what_do_i_do", "max_results": 5 });
        let r = s.hook(
            &[],
            payload("PreToolUse", sid, pre("ToolSearch", input, "toolu_01Ts")),
        );
        assert_eq!(
            (r.stdout.as_str(), r.code),
            ("", 0),
            "{sequence}: {}",
            r.stderr
        );
        let gate = s.log_lines(sid).pop().expect("recorded");
        assert_eq!(gate["verdict"]["kind"], "neutral", "{sequence}: {gate}");
    }
}

/// What 2.1.328 hands the hook when a background subagent finishes.
const NOTIFICATION: &str = "<task-notification>\n<task-id>a74bfa15b6a4f6aa0</task-id>\n<tool-use-id>toolu_01AbCd</tool-use-id>\n<status>completed</status>\n<summary>Agent \"Survey the files\" finished</summary>\n<result>The project holds the notes.</result>\n</task-notification>";

#[test]
fn a_task_notification_is_recorded_as_such_and_is_no_prompt() {
    let s = Sandbox::new();
    s.write_config("sequence = \"hope\"\ninject_every = 1\n");
    let sid = "7d1c4a52-0f0e-4c59-9a51-5b0a2c6f0d12";
    let prompt = |text: &str| payload("UserPromptSubmit", sid, json!({ "prompt": text }));
    let status = || {
        let out = s
            .cmd()
            .args(["status", "--session", sid, "--json"])
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["step"].clone()
    };
    let r = s.hook(&[], prompt("add a caching layer"));
    assert!(r.stdout.contains("[SEED SEQUENCE]"), "{}", r.stdout);
    let before = status();

    let r = s.hook(&[], prompt(NOTIFICATION));
    assert_eq!((r.stdout.as_str(), r.code), ("", 0), "{}", r.stderr);
    let rec = s.log_lines(sid).pop().unwrap();
    assert_eq!(rec["hook"], "UserPromptSubmit");
    assert_eq!(
        (&rec["event"]["kind"], &rec["event"]["name"]),
        (&json!("lifecycle"), &json!("SystemNotification")),
        "{rec}"
    );
    assert_eq!(rec["event"]["input"]["prompt"], NOTIFICATION);
    assert_eq!(status(), before, "the sequence did not move");

    // A prompt of the user's still gets the line (inject_every = 1).
    let r = s.hook(&[], prompt("and add metrics"));
    assert!(r.stdout.contains("[SEED SEQUENCE]"), "{}", r.stdout);
}

/// Write, then Bash, then Read: unfinished until all three ran.
const HELD: &str = r#"{
  "name": "held",
  "enforcement": "enforce",
  "off_path": "deny",
  "stop": { "block_until_final": true, "max_blocks": 2 },
  "start": ["Write"],
  "tool_transitions": { "Write": { "next_allowed": ["Bash"] }, "Bash": { "next_allowed": ["Read"] } }
}"#;

#[test]
fn stop_is_held_max_blocks_times_per_prompt_as_claude_code_sends_it() {
    let s = Sandbox::new();
    let seqs = s.project().join(".seed/sequences");
    std::fs::create_dir_all(&seqs).unwrap();
    std::fs::write(seqs.join("held.json"), HELD).unwrap();
    s.write_config("sequence = \"held\"\n");
    let sid = "7d1c4a52-0f0e-4c59-9a51-5b0a2c6f0d13";
    let send = |event: &str, extra: Value| s.hook(&[], payload(event, sid, extra));
    let stop = |active: bool| {
        let r = send(
            "Stop",
            json!({ "stop_hook_active": active, "last_assistant_message": "Done." }),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        if r.stdout.is_empty() {
            "allow".to_string()
        } else {
            r.json()["decision"].as_str().unwrap().to_string()
        }
    };
    let ran = |tool: &str, id: &str| {
        let call = pre(tool, json!({ "command": "echo ran" }), id);
        assert_eq!(send("PreToolUse", call.clone()).stdout, "");
        let mut post = call;
        post["tool_response"] = json!({ "stdout": "ran", "stderr": "", "interrupted": false });
        assert_eq!(send("PostToolUse", post).stdout, "");
    };
    send("UserPromptSubmit", json!({ "prompt": "Write the note." }));
    ran("Write", "toolu_01W");
    // As 2.1.328 sends it: after the first block, `stop_hook_active` stays true for the turn.
    let mut decisions = vec![stop(false)];
    ran("Bash", "toolu_02B");
    decisions.extend([stop(true), stop(true)]);
    send("UserPromptSubmit", json!({ "prompt": "Anything else?" }));
    decisions.extend([stop(false), stop(true), stop(true)]);
    assert_eq!(
        decisions,
        ["block", "block", "allow", "block", "block", "allow"]
    );
}
