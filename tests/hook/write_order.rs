//! When a write fails, the log never says something the answer did not do. What can fail the
//! hook (the chart, `session.json`, the record itself) comes first, and a failure there
//! leaves only the failure record, answered per `fail`; the snapshot is saved after the
//! record, and failing to save it is a warning: the answer and the record agree, and the next
//! hook steps the records the snapshot lacks.

use crate::support::hook as hook_common;

use hook_common::{Run, Sandbox, assert_snapshot_is_fold, payload};
use serde_json::{Value, json};

/// A project whose sequence denies calls off its path.
fn sandbox() -> Sandbox {
    let s = Sandbox::new();
    s.write_config("sequence = \"starlog_initialization\"\noff_path = \"deny\"\n");
    s
}

/// A call the sequence denies (it starts at `starlog.check`).
fn denied_call(session: &str, id: &str) -> String {
    payload(
        "PreToolUse",
        session,
        json!({ "tool_name": "mcp__starship__fly", "tool_input": {}, "tool_use_id": id }),
    )
}

fn decision(r: &Run) -> Value {
    if r.stdout.is_empty() {
        return Value::Null;
    }
    r.json()["hookSpecificOutput"]["permissionDecision"].clone()
}

fn errors(s: &Sandbox) -> Vec<Value> {
    let text = std::fs::read_to_string(s.home().join("errors.jsonl")).unwrap_or_default();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every record of the session's log and the errors log that names the call.
fn records_of(s: &Sandbox, session: &str, id: &str) -> Vec<Value> {
    let mut all = s.log_lines(session);
    all.extend(errors(s));
    all.into_iter().filter(|r| r["tool_use_id"] == id).collect()
}

/// Put a directory (with a file in it) where seed wants to write a file: any write there
/// fails, for root too.
fn block(path: &std::path::Path) {
    std::fs::create_dir_all(path).unwrap();
    std::fs::write(path.join("in-the-way"), "x").unwrap();
}

fn unblock(path: &std::path::Path) {
    std::fs::remove_dir_all(path).unwrap();
}

/// The chart (saved on a session's first hook) cannot be written: the hook fails before its
/// record, so the log holds the failure and no verdict, and the answer is the fail mode's.
#[test]
fn a_failure_before_the_record_leaves_only_the_failure() {
    for (fail, expected) in [("open", Value::Null), ("closed", json!("deny"))] {
        let s = sandbox();
        let sid = format!("s-chart-{fail}");
        block(
            &s.session_dir(&sid)
                .join("charts")
                .join("starlog_initialization.json"),
        );
        let r = s.hook_env(&[], denied_call(&sid, "t1"), &[("SEED_FAIL", fail)]);
        assert_eq!((r.code, decision(&r)), (0, expected.clone()), "{fail}");
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        let recs = s.log_lines(&sid);
        assert_eq!(recs.len(), 1, "{recs:?}");
        assert!(recs[0]["error"].as_str().unwrap().contains("cannot write"));
        assert_eq!(recs[0]["extra"]["fail"], fail);
        assert!(recs[0].get("verdict").is_none(), "{}", recs[0]);
    }
}

/// `session.json` cannot be written: the same, on a later hook.
#[test]
fn a_session_file_that_cannot_be_written_fails_before_the_record() {
    let s = sandbox();
    let sid = "s-meta";
    let r = s.hook(&[], denied_call(sid, "t1"));
    assert_eq!(decision(&r), "deny");
    let meta = s.session_dir(sid).join("session.json");
    std::fs::remove_file(&meta).unwrap();
    block(&meta);
    let r = s.hook(&[], denied_call(sid, "t2"));
    assert_eq!((decision(&r), r.stderr.lines().count()), (Value::Null, 1));
    let recs = records_of(&s, sid, "t2");
    assert!(recs.iter().all(|r| r.get("verdict").is_none()), "{recs:?}");
}

/// A full disk at the append (the log is a link of ours to /dev/full): no record anywhere says
/// the call was denied, while the fail-open answer let it through.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_at_the_append_leaves_no_verdict_behind() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full");
        return;
    }
    let s = sandbox();
    let sid = "s-full";
    let dir = s.session_dir(sid);
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink("/dev/full", dir.join("log.jsonl")).unwrap();
    let r = s.hook(&[], denied_call(sid, "t1"));
    assert_eq!(decision(&r), Value::Null);
    assert!(r.stderr.contains("No space left"), "{}", r.stderr);
    // (The session log is /dev/full itself: never read it, it has no end.)
    let errors = errors(&s);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].get("verdict").is_none(), "{}", errors[0]);
    assert_eq!(errors[0]["session"], sid);
    assert!(
        errors[0]["error"]
            .as_str()
            .unwrap()
            .contains("No space left")
    );
    assert!(
        !dir.join("snapshots/starlog_initialization.json").exists(),
        "no snapshot covers a record that was not written"
    );
}

/// The snapshot cannot be saved after the record: the answer and the record agree (denied),
/// the hook warns, and once the way is clear the next hook brings the snapshot up to date.
#[test]
fn a_snapshot_that_cannot_be_saved_is_a_warning_and_the_record_stands() {
    let s = sandbox();
    let sid = "s-snap";
    let r = s.hook(&[], denied_call(sid, "t1"));
    assert_eq!(decision(&r), "deny");
    let snap = s
        .session_dir(sid)
        .join("snapshots")
        .join("starlog_initialization.json");
    std::fs::remove_file(&snap).unwrap();
    block(&snap);
    let r = s.hook(&[], denied_call(sid, "t2"));
    assert_eq!(decision(&r), "deny");
    assert!(
        r.stderr.starts_with("seed: warning: snapshot not saved") && r.stderr.lines().count() == 1,
        "{}",
        r.stderr
    );
    let recs = records_of(&s, sid, "t2");
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["verdict"]["decision"], "deny");
    assert!(recs[0].get("error").is_none());
    // Allowed calls move the sequence while no snapshot can be saved; then it can again.
    for event in ["PreToolUse", "PostToolUse"] {
        let p = payload(
            event,
            sid,
            json!({ "tool_name": "mcp__starlog__check", "tool_input": {}, "tool_use_id": "t3" }),
        );
        let r = s.hook(&[], p);
        assert_eq!(decision(&r), Value::Null);
    }
    unblock(&snap);
    let r = s.hook(&[], denied_call(sid, "t4"));
    assert_eq!((decision(&r), r.stderr.as_str()), (json!("deny"), ""));
    assert_snapshot_is_fold(&s.home(), sid);
}
