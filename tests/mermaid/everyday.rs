//! What the everyday walks say: a plain Claude Code's calls (built-in tools only) and their
//! results, as the hook steps them; the sequence as shipped (`advise`) or with its one line
//! switched to `enforce`.
#![allow(dead_code)]

use crate::support::mermaid::Walk;
use seed::dialects::{self, EMBEDDED};
use seed::engine::{Decision, Event, Facts, Machine, Phase, Verdict, VerdictKind};
use serde_json::{Value, json};

/// The built-in as shipped.
pub fn advise(name: &str) -> Walk {
    Walk::new(name)
}

/// The built-in with its `enforcement = "advise"` line changed to `"enforce"`, the one line a
/// user edits to refuse instead of warn.
pub fn enforce(name: &str) -> Walk {
    let file = format!("{name}.toml");
    let text = EMBEDDED
        .iter()
        .find(|(f, _)| *f == file)
        .map(|(_, t)| *t)
        .expect("an embedded manifest");
    let line = "enforcement = \"advise\"";
    assert_eq!(text.matches(line).count(), 1, "one line to switch");
    let edited = text.replace(line, "enforcement = \"enforce\"");
    let resolve = |rel: &str| {
        EMBEDDED
            .iter()
            .find(|(f, _)| *f == rel)
            .map(|(_, t)| t.to_string())
    };
    let l = dialects::load_text(&file, &edited, &resolve).expect("loads");
    let m = Machine::new(l.chart);
    let snap = m.start(&Facts::new());
    Walk {
        m,
        snap,
        facts: Facts::new(),
    }
}

pub fn read(path: &str) -> Event {
    Event::tool("Read", json!({ "file_path": path }))
}

pub fn edit(path: &str) -> Event {
    Event::tool(
        "Edit",
        json!({ "file_path": path, "old_string": "a", "new_string": "b" }),
    )
}

pub fn write(path: &str) -> Event {
    Event::tool("Write", json!({ "file_path": path, "content": "x" }))
}

pub fn bash(command: &str) -> Event {
    Event::tool("Bash", json!({ "command": command }))
}

/// A Bash call that ran (exit code 0), with what it printed.
pub fn ran(command: &str, stdout: &str) -> Event {
    bash(command).with_response(json!({
        "stdout": stdout, "stderr": "", "interrupted": false, "isImage": false
    }))
}

/// A Bash call that exited non-zero (Claude Code's PostToolUseFailure).
pub fn failed(command: &str) -> Event {
    Event::tool_error("Bash", json!({ "command": command }))
}

pub fn prompt(text: &str) -> Event {
    Event::prompt(text)
}

pub fn grep(input: Value, response: Value) -> Event {
    Event::tool("Grep", input).with_response(response)
}

/// PreToolUse, then (when it went through) the result: `done` is the PostToolUse or
/// PostToolUseFailure event of the same call.
pub fn run(w: &mut Walk, done: &Event) -> Verdict {
    let v = w.gate(&Event::tool(&done.name, done.input.clone()));
    if v.decision == Decision::Allow {
        w.advance(done);
    }
    v
}

/// The turn ends (Claude Code's Stop, `stop_hook_active` as given).
pub fn stop(w: &mut Walk, hook_active: bool) -> Verdict {
    let e = Event::lifecycle("Stop").with_input(json!({ "stop_hook_active": hook_active }));
    w.m.step(&mut w.snap, Phase::Stop, &e, &w.facts)
        .verdict
        .expect("a stop verdict")
}

/// Allowed without a word.
pub fn quiet(v: &Verdict) -> bool {
    v.decision == Decision::Allow && v.warning.is_none()
}

/// Let through with the warning (advise): the text the agent and the user read.
pub fn warned(v: &Verdict) -> &str {
    assert_eq!(v.decision, Decision::Allow, "{}", v.reason);
    assert!(
        matches!(v.kind, VerdictKind::Deny | VerdictKind::StopAllowed),
        "{:?}",
        v.kind
    );
    v.warning.as_deref().expect("a warning")
}

/// Refused (enforce): the reason the agent reads.
pub fn refused(v: &Verdict) -> &str {
    assert!(
        matches!(v.decision, Decision::Deny | Decision::Block),
        "{:?}: {}",
        v.decision,
        v.reason
    );
    &v.reason
}
