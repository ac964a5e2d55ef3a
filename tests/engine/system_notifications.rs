//! Claude Code's notices that arrive as a prompt (a background task finished) are an event of
//! their own, `lifecycle:SystemNotification`, never `prompt:…`: from the hook's payload, from a
//! record an older seed wrote as a prompt, and in every spelling Claude Code uses.

use seed::engine::{Event, EventKind};
use seed::store::record::Record;
use serde_json::json;

const NOTIFICATION: &str = "<task-notification>\n<task-id>a74bfa15b6a4f6aa0</task-id>\n<status>completed</status>\n<summary>Agent \"Survey\" finished</summary>\n</task-notification>";

#[test]
fn every_spelling_of_a_notification_is_the_notification_event() {
    for text in [
        NOTIFICATION,
        "  \n<task-notification><task-id>x</task-id></task-notification>",
        "[SYSTEM NOTIFICATION - NOT USER INPUT]\nThis is an automated background-task event.",
        "<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\n<task-notification>\n</task-notification>\n</system-reminder>",
    ] {
        let e = Event::prompt(text);
        assert_eq!(
            (e.kind, e.name.as_str()),
            (EventKind::Lifecycle, "SystemNotification"),
            "{text:?}"
        );
        assert_eq!(e.input["prompt"], text, "the whole text is kept");
    }
}

#[test]
fn prompts_that_only_mention_a_notification_stay_prompts() {
    for text in [
        "why did the <task-notification> say failed?",
        "[SYSTEM NOTIFICATION] is what I typed",
        "<system-reminder> hello",
        "",
    ] {
        let e = Event::prompt(text);
        assert_eq!(e.kind, EventKind::Prompt, "{text:?}");
    }
    assert_eq!(Event::prompt("/hope:intent go").kind, EventKind::Command);
}

#[test]
fn a_record_an_older_seed_wrote_as_a_prompt_reads_as_the_notification() {
    let name: String = NOTIFICATION.chars().take(200).collect();
    let line = json!({
        "v": 1, "ts": "2026-11-20T09:00:00.000Z", "session": "s", "hook": "UserPromptSubmit",
        "phase": "advance",
        "event": {"kind": "prompt", "name": name, "input": {"prompt": NOTIFICATION}}
    });
    let r: Record = serde_json::from_value(line).unwrap();
    let e = r.event.unwrap();
    assert_eq!(
        (e.kind, e.name.as_str()),
        (EventKind::Lifecycle, "SystemNotification")
    );
    assert_eq!(e.input["prompt"], NOTIFICATION);
    // A written `lifecycle:SystemNotification` reads back as itself.
    let again: Record = serde_json::from_value(json!({
        "hook": "UserPromptSubmit", "phase": "advance",
        "event": {"kind": "lifecycle", "name": "SystemNotification", "input": {"prompt": NOTIFICATION}}
    }))
    .unwrap();
    assert_eq!(again.event.unwrap(), Event::prompt(NOTIFICATION));
}
