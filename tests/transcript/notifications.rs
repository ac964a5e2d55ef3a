//! A background task's notification in a transcript: a user line Claude Code wrote itself
//! (2.1.x marks it `"origin": {"kind": "task-notification"}`; older files only by its text).
//! It is `lifecycle:SystemNotification` under UserPromptSubmit, never a prompt.

use seed::engine::EventKind;
use seed::protocol::transcript::parse_transcript_str;
use serde_json::json;

const NOTIFICATION: &str = "<task-notification>\n<task-id>a74bfa15b6a4f6aa0</task-id>\n<status>completed</status>\n<summary>Agent \"Survey the files\" finished</summary>\n</task-notification>";

fn submits(text: &str) -> Vec<(EventKind, String)> {
    parse_transcript_str(text)
        .records
        .iter()
        .filter(|r| r.hook == "UserPromptSubmit")
        .map(|r| {
            let e = r.event.as_ref().expect("an event");
            (e.kind, e.name.clone())
        })
        .collect()
}

#[test]
fn a_notification_line_is_the_notification_event_not_a_prompt() {
    let marked = json!({"type": "user", "message": {"role": "user", "content": NOTIFICATION},
        "origin": {"kind": "task-notification", "producer": "session-task"},
        "promptSource": "system", "turnOrigin": "task_notification"});
    // Marked, with text that does not say so (the mark decides).
    let marked_plain = json!({"type": "user", "message": {"role": "user", "content": "Agent finished"},
        "origin": {"kind": "task-notification"}});
    // Older files: the text alone.
    let unmarked = json!({"type": "user", "message": {"role": "user", "content": NOTIFICATION}});
    let typed = json!({"type": "user", "message": {"role": "user", "content": "now add metrics"},
        "origin": {"kind": "human"}});
    let text = format!("{marked}\n{marked_plain}\n{unmarked}\n{typed}\n");
    let notice = (EventKind::Lifecycle, "SystemNotification".to_string());
    assert_eq!(
        submits(&text),
        [
            notice.clone(),
            notice.clone(),
            notice,
            (EventKind::Prompt, "now add metrics".to_string()),
        ]
    );
}

#[test]
fn a_hostile_origin_is_ignored() {
    for origin in [json!("task-notification"), json!({"kind": 5}), json!([1])] {
        let line = json!({"type": "user", "message": {"content": "hello"}, "origin": origin});
        assert_eq!(
            submits(&format!("{line}\n")),
            [(EventKind::Prompt, "hello".to_string())]
        );
    }
}
