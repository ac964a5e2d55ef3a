//! Subagents stopping: SubagentStop does not end the session's work, so the unfinished main
//! sequence never blocks it and it never uses up the Stop blocks; a sequence that names
//! `SubagentStop` as a trigger still moves on it.

use crate::support::hook as hook_common;

use hook_common::{Sandbox, assert_snapshot_is_fold, payload};
use serde_json::json;

const FLOW: &str = "stateDiagram-v2
  [*] --> work
  work --> waiting : Task
  waiting --> review : SubagentStop
  review --> [*] : Edit
";

#[test]
fn subagent_stops_are_not_blocked_and_leave_the_stop_blocks_alone() {
    let s = Sandbox::new();
    let seqs = s.project().join(".seed/sequences");
    std::fs::create_dir_all(&seqs).unwrap();
    std::fs::write(seqs.join("subflow.mmd"), FLOW).unwrap();
    s.write_config("sequence = \"subflow\"\n[stop]\nblock_until_final = true\nmax_blocks = 1\n");
    let sid = "s-sub";
    let sub_stop = || {
        payload(
            "SubagentStop",
            sid,
            json!({ "agent_id": "a4c19e07b2d85f316", "agent_type": "Explore", "stop_hook_active": false,
                "agent_transcript_path": "/tmp/agent.jsonl" }),
        )
    };
    // The main sequence is unfinished, yet a subagent may stop, as often as it likes.
    for _ in 0..3 {
        let r = s.hook(&[], sub_stop());
        assert_eq!((r.stdout.as_str(), r.code, r.stderr.as_str()), ("", 0, ""));
    }
    // The sequence waits for a subagent: its stop moves it on.
    let task = json!({ "tool_name": "Task", "tool_input": { "prompt": "look" }, "tool_use_id": "toolu_t" });
    assert_eq!(s.hook(&[], payload("PostToolUse", sid, task)).stdout, "");
    assert_eq!(s.hook(&[], sub_stop()).stdout, "");
    let st = s
        .cmd()
        .args(["status", "--json", "--session", sid])
        .output()
        .unwrap();
    let st: serde_json::Value = serde_json::from_slice(&st.stdout).unwrap();
    assert_eq!(st["current"], json!(["review"]), "{st}");
    // The main agent's Stop still gets its one block: no subagent used it up.
    let stop = payload("Stop", sid, json!({ "stop_hook_active": false }));
    let r = s.hook(&[], stop.clone());
    assert_eq!(r.json()["decision"], "block", "{}", r.stdout);
    assert!(
        r.json()["reason"]
            .as_str()
            .unwrap()
            .contains("Continue with Edit")
    );
    assert_eq!(s.hook(&[], stop).stdout, "", "at most max_blocks times");
    // Subagent stops are stepped as events, never as stop gates.
    let lines = s.log_lines(sid);
    for l in lines.iter().filter(|l| l["hook"] == "SubagentStop") {
        assert_eq!(l["phase"], "advance");
        assert!(l.get("verdict").is_none(), "{l}");
        assert_eq!(l["agent"], "a4c19e07b2d85f316");
    }
    assert_snapshot_is_fold(&s.home(), sid);
}
