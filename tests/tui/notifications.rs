//! The dashboard's fold reads a background task's notification (Claude Code sends it through
//! UserPromptSubmit) as the notice it is: hope stays `completed`, and the timeline shows a
//! `SystemNotification` event row, not a prompt; also for a log an older seed wrote, where the
//! notification was recorded as a prompt.

use crate::support::tui as tui_common;

use serde_json::json;

use seed::store::record::Record;
use seed::tui::rows::RowKind;
use seed::tui::{Entry, Model, Seq, SessionInfo};
use tui_common::{Script, walks};

const NOTIFICATION: &str = "<task-notification>\n<task-id>a74bfa15b6a4f6aa0</task-id>\n<status>completed</status>\n<summary>Agent \"Survey the files\" finished</summary>\n</task-notification>";

/// hope through a Plan session: a need, its question, shape and consult, and the turn's end.
fn completed() -> Script {
    let mut s = Script::of("hope", "s-notice");
    s.lifecycle("SessionStart")
        .prompt("add a caching layer")
        .call("AskUserQuestion", walks::answer("Redis"), 3000, Some(true))
        .call("Skill", walks::skill("hope:shape"), 300, Some(true))
        .call("Skill", walks::skill("hope:consult"), 900, Some(true))
        .call("Skill", walks::skill("hope:consult"), 900, Some(true));
    s.lifecycle("Stop");
    s
}

fn model(records: &[Record]) -> Model {
    let machine = tui_common::machine("hope");
    let info = SessionInfo {
        id: "s-notice".into(),
        source: String::new(),
        project: None,
        started: None,
    };
    let mut m = Model::new(info, vec![Seq::new(machine, true)], "default");
    let entries = records
        .iter()
        .enumerate()
        .map(|(i, r)| Entry {
            offset: i as u64,
            record: r.clone(),
        })
        .collect();
    m.apply_records(entries);
    m
}

fn last_row(m: &Model) -> (RowKind, String) {
    let r = m.rows.iter().last().expect("a row");
    (r.kind, m.rows.name(r).to_string())
}

#[test]
fn a_notification_leaves_hope_completed_and_is_no_prompt_row() {
    let mut s = completed();
    assert_eq!(
        model(&s.records).status().expect("status").step,
        "completed"
    );
    s.prompt(NOTIFICATION);
    let m = model(&s.records);
    assert_eq!(m.status().expect("status").step, "completed");
    assert_eq!(
        last_row(&m),
        (RowKind::Lifecycle, "SystemNotification".into())
    );
}

#[test]
fn an_older_logs_notification_recorded_as_a_prompt_folds_the_same() {
    let mut records = completed().records;
    let name: String = NOTIFICATION.chars().take(200).collect();
    let old: Record = serde_json::from_value(json!({
        "v": 1, "ts": "2026-01-15T14:05:00.000Z", "session": "s-notice",
        "hook": "UserPromptSubmit", "phase": "advance", "sequences": ["hope"],
        "event": {"kind": "prompt", "name": name, "input": {"prompt": NOTIFICATION}},
        "extra": {"prompt": NOTIFICATION}
    }))
    .unwrap();
    records.push(old);
    let m = model(&records);
    assert_eq!(m.status().expect("status").step, "completed");
    assert_eq!(
        last_row(&m),
        (RowKind::Lifecycle, "SystemNotification".into())
    );
}
