//! The hook's time budget under the real Claude Code. While something else holds seed's session
//! log (here a command the agent ran), a hook cannot do its work: seed answers by its fail mode
//! once `hook_budget_ms` is spent, well inside Claude Code's timeout, and records the lapse
//! where it can (`errors.jsonl`, the log being held). And when the hook process itself fails
//! past Claude Code's timeout, `"onFailure": "block"` (written by `seed install` under
//! `fail = "closed"`) makes Claude Code refuse the call rather than let it through.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::{Run, Scenario, Turn};

/// Bash may always run: a refusal below comes from the hook's failure, never the sequence.
const ANY_BASH: &str = r#"{
  "name": "any_bash",
  "description": "Commands, any number.",
  "enforcement": "enforce",
  "off_path": "deny",
  "start": ["Bash"],
  "tool_transitions": { "Bash": { "next_allowed": ["Bash"] } }
}"#;

/// Holds the session's log locked, in the background, until the test creates `release` in the
/// project (at most a minute); returns once the lock is taken.
fn hold_the_log(root: &Path) -> String {
    let logs = root.join("seed/sessions");
    format!(
        "(flock -x {}/*/log.jsonl sh -c 'i=0; while [ ! -e release ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done' >/dev/null 2>&1 &); sleep 1",
        logs.display()
    )
}

/// Lets the holder go and waits until the log is free again.
fn release(run: &Run) {
    std::fs::write(run.project().join("release"), "").expect("release file");
    let log = std::fs::File::open(run.seed_log()).expect("the session log");
    let start = Instant::now();
    while log.try_lock().is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the holder never let go"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The failure records of this session that only `errors.jsonl` holds.
fn errors_of(run: &Run) -> Vec<Value> {
    let id = run.session_id();
    std::fs::read_to_string(run.root().join("seed/errors.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["session"] == id.as_str())
        .collect()
}

/// A session whose second command runs while the log is held, under `fail`.
fn held_log_session(fail: &str, budget_ms: u64) -> Option<Run> {
    let s = Scenario::new()?;
    let hold = hold_the_log(s.project().parent().expect("sandbox root"));
    let config = format!("fail = \"{fail}\"\nhook_budget_ms = {budget_ms}\n");
    let run = s
        .file(".seed/sequences/any_bash.json", ANY_BASH)
        .file(".seed.toml", &config)
        .sequence("any_bash")
        .prompt("Run the two commands.")
        .model([
            Turn::tool("Bash", json!({"command": hold})),
            Turn::tool("Bash", json!({"command": "echo two"})),
            Turn::text("Done."),
        ])
        .run();
    release(&run);
    Some(run)
}

/// The lapse of the second command's PreToolUse, as recorded: over its budget, answered by
/// `fail`, within the budget and far inside Claude Code's timeout.
fn assert_lapse_recorded(run: &Run, fail: &str, budget_ms: u64) {
    let errors = errors_of(run);
    let gate = errors
        .iter()
        .find(|r| r["hook"] == "PreToolUse")
        .unwrap_or_else(|| panic!("no PreToolUse lapse in errors.jsonl: {errors:#?}"));
    assert_eq!(gate["extra"]["fail"], fail, "{gate:#}");
    assert_eq!(gate["extra"]["budget_ms"], budget_ms, "{gate:#}");
    let ms = gate["ms"].as_f64().unwrap_or(f64::MAX);
    assert!(
        ms >= budget_ms as f64 && ms < budget_ms as f64 + 1500.0,
        "answered after {ms} ms"
    );
    // Every face counts them as lapses, none as a fail-closed refusal.
    let (code, out, err) = run.seed(&["status", "--session", &run.session_id(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("status --json");
    assert_eq!(
        v["hook_failures"],
        json!({"lapses": errors.len(), "failed_closed": 0}),
        "{errors:#?}"
    );
}

#[test]
fn under_fail_closed_a_hook_out_of_time_refuses_the_call_within_its_budget() {
    let Some(run) = held_log_session("closed", 500) else {
        return;
    };
    assert!(!run.result(0).is_error, "{:?}", run.result(0));
    let refused = run.result(1);
    assert!(refused.is_error, "{refused:?}");
    assert_eq!(
        refused.text,
        "PreToolUse:Bash hook error: seed: ran out of time: not done within hook_budget_ms = 500, \
         so answered per `fail`"
    );
    assert_lapse_recorded(&run, "closed", 500);
}

#[test]
fn under_fail_open_a_hook_out_of_time_lets_the_call_run_and_says_so() {
    let Some(run) = held_log_session("open", 500) else {
        return;
    };
    let ran = run.result(1);
    assert_eq!((ran.text.as_str(), ran.is_error), ("two", false), "{ran:?}");
    assert_lapse_recorded(&run, "open", 500);
}

/// Sets the timeout of seed's PreToolUse handlers (seconds) and keeps or drops `onFailure`.
fn pre_tool_use_handlers(settings: &mut Value, timeout: u64, block: bool) {
    let groups = settings["hooks"]["PreToolUse"]
        .as_array_mut()
        .expect("PreToolUse");
    for h in groups
        .iter_mut()
        .flat_map(|g| g["hooks"].as_array_mut().into_iter().flatten())
    {
        assert_eq!(
            h["onFailure"], "block",
            "seed install wrote it under fail closed: {h}"
        );
        h["timeout"] = json!(timeout);
        if !block {
            h.as_object_mut().expect("handler").remove("onFailure");
        }
    }
}

/// A hook Claude Code's timeout kills (1 s here, below seed's own budget) never answers; with
/// `"onFailure": "block"` Claude Code refuses the call, without it the call runs.
fn killed_hook_session(block: bool) -> Option<Run> {
    let s = Scenario::new()?;
    let hold = hold_the_log(s.project().parent().expect("sandbox root"));
    let run = s
        .file(".seed/sequences/any_bash.json", ANY_BASH)
        .file(".seed.toml", "fail = \"closed\"\nhook_budget_ms = 3000\n")
        .sequence("any_bash")
        .settings(|v| pre_tool_use_handlers(v, 1, block))
        .prompt("Run the two commands.")
        .model([
            Turn::tool("Bash", json!({"command": hold})),
            Turn::tool("Bash", json!({"command": "echo two"})),
            Turn::text("Done."),
        ])
        .run();
    release(&run);
    Some(run)
}

#[test]
fn on_failure_block_refuses_a_call_whose_hook_claude_code_had_to_kill() {
    let Some(run) = killed_hook_session(true) else {
        return;
    };
    let refused = run.result(1);
    assert!(refused.is_error, "{refused:?}");
    assert!(!refused.text.contains("two"), "{refused:?}");
    assert!(
        // `seed install` writes `seed-hook` when it sits beside `seed`, `seed hook` otherwise.
        ["seed-hook", "seed hook"]
            .iter()
            .any(|cmd| refused.text.starts_with(&format!(
                "PreToolUse:Bash hook error: [{cmd} --sequence any_bash PreToolUse"
            ))),
        "{refused:?}"
    );
    assert!(
        refused
            .text
            .contains("timed out; blocking because onFailure is"),
        "{refused:?}"
    );
    // seed never answered: Claude Code killed it first, so it recorded no verdict for it.
    let gates = run.records_of("PreToolUse");
    assert_eq!(
        gates.len(),
        1,
        "only the first command was judged: {gates:#?}"
    );
}

#[test]
fn without_on_failure_block_the_same_killed_hook_lets_the_call_through() {
    let Some(run) = killed_hook_session(false) else {
        return;
    };
    let ran = run.result(1);
    assert_eq!((ran.text.as_str(), ran.is_error), ("two", false), "{ran:?}");
}
