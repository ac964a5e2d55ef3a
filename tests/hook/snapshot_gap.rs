//! A snapshot is a cache of the log. Once written it always exists (a new one is renamed
//! over it), but it may be missing (removed by hand, never saved) or behind the log (a hook
//! killed between its append and its save, a save that failed): readers then fold the log, or
//! step the records the snapshot lacks, and show the same thing, never an error.

use crate::support::hook as hook_common;

use hook_common::{Sandbox, assert_snapshot_is_fold, payload};
use serde_json::{Value, json};

fn walk(s: &Sandbox, sid: &str) {
    s.write_config("sequences = [\"starlog_initialization\", \"giint_workflow\"]\n");
    for (event, tool) in [
        ("PreToolUse", "mcp__starlog__check"),
        ("PostToolUse", "mcp__starlog__check"),
    ] {
        let p = payload(event, sid, json!({ "tool_name": tool, "tool_input": {} }));
        assert_eq!(s.hook(&[], p).stderr, "");
    }
}

/// The sessions' payloads ran in another directory than the sandbox's project: named.
fn status(s: &Sandbox, sid: &str) -> (i32, Value, String) {
    let o = s
        .cmd()
        .args(["status", "--json", "--session", sid])
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        serde_json::from_slice(&o.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn readers_without_a_snapshot_fold_the_log_and_show_the_same() {
    let s = Sandbox::new();
    let sid = "s-gap";
    walk(&s, sid);
    let before = status(&s, sid);
    assert_eq!(before.0, 0, "{}", before.2);
    let listed = seed::store::sessions::list(&s.home()).unwrap();
    let snaps = s.session_dir(sid).join("snapshots");
    // The gap: every snapshot gone at once (the worst case; a hook removes one at a time).
    for e in std::fs::read_dir(&snaps).unwrap().flatten() {
        std::fs::remove_file(e.path()).unwrap();
    }
    // The session list still knows the session's sequences (from the saved charts).
    let during = seed::store::sessions::list(&s.home()).unwrap();
    assert_eq!(during[0].sequences, listed[0].sequences);
    assert_eq!(
        during[0].sequences,
        ["giint_workflow", "starlog_initialization"]
    );
    assert_eq!(during[0].records, listed[0].records, "counted from the log");
    // `status` folds the log: the same answer, no error.
    let gap = status(&s, sid);
    assert_eq!((gap.0, &gap.1, gap.2.as_str()), (0, &before.1, ""));
    // The next hook folds too, answers the same, and saves the snapshots again.
    let p = payload(
        "PreToolUse",
        sid,
        json!({ "tool_name": "mcp__starlog__orient", "tool_input": {} }),
    );
    let r = s.hook(&[], p.clone());
    assert_eq!(r.stderr, "");
    let with_snapshots = s.hook(&[], p);
    assert_eq!(r.stdout, with_snapshots.stdout);
    assert_snapshot_is_fold(&s.home(), sid);
}

/// A snapshot behind the log, as a hook killed between its append and its save leaves it:
/// the next hook steps the records it lacks, answers as a whole fold would, and saves a
/// snapshot equal to the fold.
#[test]
fn a_snapshot_behind_the_log_is_brought_up_to_date() {
    let s = Sandbox::new();
    let sid = "s-behind";
    walk(&s, sid);
    let snaps = s.session_dir(sid).join("snapshots");
    let saved: Vec<(std::path::PathBuf, Vec<u8>)> = std::fs::read_dir(&snaps)
        .unwrap()
        .flatten()
        .map(|e| (e.path(), std::fs::read(e.path()).unwrap()))
        .collect();
    // Two more steps: orient is allowed now, then done; the snapshots move on.
    for event in ["PreToolUse", "PostToolUse"] {
        let p = payload(
            event,
            sid,
            json!({ "tool_name": "mcp__starlog__orient", "tool_input": {} }),
        );
        assert_eq!(s.hook(&[], p).stderr, "");
    }
    let before = status(&s, sid);
    // Put the old snapshots back: they cover the first two records of four.
    for (path, bytes) in &saved {
        std::fs::write(path, bytes).unwrap();
    }
    let p = payload("UserPromptSubmit", sid, json!({ "prompt": "go on" }));
    assert_eq!(s.hook(&[], p).stderr, "");
    assert_snapshot_is_fold(&s.home(), sid);
    let mut after = status(&s, sid);
    assert_eq!((after.0, after.2.as_str()), (0, ""));
    // The prompt is one more event, and moves neither sequence.
    let mut before = before.1;
    for seq in before.as_array_mut().unwrap() {
        seq["events"] = json!(seq["events"].as_u64().unwrap() + 1);
        // The session's last event is the prompt's.
        seq["session"]["last_event"] = Value::Null;
    }
    let mut after = after.1.take();
    for seq in after.as_array_mut().unwrap() {
        seq["session"]["last_event"] = Value::Null;
    }
    assert_eq!(after, before);
}
