//! A background task's notification reaches the hook as a prompt: Claude Code 2.1 sends
//! `<task-notification>…` through UserPromptSubmit when a background subagent finishes. It is
//! no user prompt, so hope stays where it is instead of starting a new intent.

use crate::support::mermaid as mermaid_common;

use mermaid_common::{Walk, skill, tool};
use seed::engine::{Event, VerdictKind};
use serde_json::json;

/// The prompt text Claude Code 2.1.328 gives the hook for a finished background subagent.
const NOTIFICATION: &str = "<task-notification>\n<task-id>a74bfa15b6a4f6aa0</task-id>\n\
<tool-use-id>toolu_01AbCd</tool-use-id>\n\
<output-file>/tmp/claude-1000/-home-dev-notes/5c0ffee0/tasks/a74bfa15b6a4f6aa0.output</output-file>\n\
<status>completed</status>\n<summary>Agent \"Survey the files\" finished</summary>\n\
<result>The project holds the notes.</result>\n</task-notification>";

/// The same notice as the model reads it (some versions hand the hook this form too).
const WRAPPED: &str = "<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\n\
This is an automated background-task event, NOT a message from the user.\n\n\
<task-notification>\n<task-id>a74bfa15b6a4f6aa0</task-id>\n<status>completed</status>\n\
</task-notification>\n</system-reminder>";

fn completed() -> Walk {
    let mut w = Walk::new("hope");
    w.advance(&Event::prompt("add a caching layer"));
    w.call(&tool("AskUserQuestion", json!({})), VerdictKind::Advance);
    for e in [
        skill("hope:shape"),
        skill("hope:consult"),
        skill("hope:consult"),
    ] {
        w.call(&e, VerdictKind::Advance);
    }
    w.advance(&Event::lifecycle("Stop"))
        .expect("completed", 95.0, Some("hope:intent"));
    w
}

#[test]
fn a_notification_after_the_work_is_done_leaves_hope_completed() {
    for text in [NOTIFICATION, WRAPPED] {
        let mut w = completed();
        let flags = w.snap.flags.clone();
        w.advance(&Event::prompt(text))
            .expect("completed", 95.0, Some("hope:intent"));
        assert_eq!(w.snap.flags, flags, "no flag cleared");
        // The user's own next prompt still starts a new intent.
        w.advance(&Event::prompt("now add metrics"));
        assert_eq!(w.at(), ["intent.acknowledge"]);
    }
}

#[test]
fn a_notification_while_waiting_for_the_need_is_no_need() {
    let mut w = Walk::new("hope");
    w.advance(&Event::lifecycle("SessionStart"));
    w.advance(&Event::prompt(NOTIFICATION))
        .expect("user_need", 0.0, Some("hope:intent"));
}
