//! A refused call names the exact next call, and that call then goes through.

use serde_json::json;

use crate::harness::{Scenario, Turn, replay};

/// Write a note first; only then may the agent run commands.
pub const NOTE_FIRST: &str = r#"{
  "name": "note_first",
  "description": "Write the note, then run commands.",
  "enforcement": "enforce",
  "off_path": "deny",
  "start": ["Write"],
  "tool_transitions": {
    "Write": { "next_allowed": ["Bash"] },
    "Bash": { "next_allowed": ["Bash"] }
  }
}"#;

#[test]
fn a_refused_call_names_the_next_call_and_that_call_then_succeeds() {
    let Some(s) = Scenario::new() else { return };
    let note = s.project().join("note.md");
    let run = s
        .file(".seed/sequences/note_first.json", NOTE_FIRST)
        .sequence("note_first")
        .prompt("Run the tests.")
        .model([
            Turn::tool("Bash", json!({"command": "echo ran"})),
            Turn::tool("Write", json!({"file_path": note, "content": "plan\n"})),
            Turn::tool("Bash", json!({"command": "echo ran"})),
            Turn::text("Done."),
        ])
        .run();

    // The model reads the refusal as an error naming the one call that goes through...
    let refused = run.result(0);
    assert!(refused.is_error, "{refused:?}");
    assert_eq!(
        refused.text,
        "PreToolUse:Bash hook error: seed [note_first]: Bash comes later in \"note_first\" \
         (after 1 more call; at: \"start\"). First call Write; after that, Bash is allowed."
    );
    // ...makes that call, and then the refused one runs.
    assert!(!run.result(1).is_error, "{:?}", run.result(1));
    assert_eq!(
        std::fs::read_to_string(&note).ok().as_deref(),
        Some("plan\n")
    );
    let ran = run.result(2);
    assert_eq!((ran.text.as_str(), ran.is_error), ("ran", false));

    // seed recorded each call with the verdict the model saw.
    let gates: Vec<_> = run
        .records_of("PreToolUse")
        .iter()
        .map(|r| {
            let d = r["verdict"]["decision"].as_str().unwrap_or_default();
            format!("{} {d}", r["event"]["name"].as_str().unwrap_or_default())
        })
        .collect();
    assert_eq!(gates, ["Bash deny", "Write allow", "Bash allow"]);

    replay::agrees_with_live(&run, "note_first");
    replay::tui_replay_opens_and_quits(&run, "note_first");
    insta::with_settings!({filters => replay::FRAME_FILTERS.to_vec()}, {
        insta::assert_snapshot!(replay::last_frame(&run, "note_first"));
    });
}

#[test]
fn a_transcripts_refusal_replays_as_a_refusal_not_a_failed_run() {
    let Some(s) = Scenario::new() else { return };
    let note = s.project().join("note.md");
    let run = s
        .file(".seed/sequences/note_first.json", NOTE_FIRST)
        .sequence("note_first")
        .prompt("Write the note.")
        .model([
            Turn::tool("Bash", json!({"command": "echo ran"})),
            Turn::tool("Write", json!({"file_path": note, "content": "plan\n"})),
            Turn::text("Done."),
        ])
        .run();
    assert!(run.result(0).is_error);

    replay::refusals_agree_with_live(&run, "note_first");
    let transcript = run.transcript().display().to_string();
    let replayed = replay::summary(&run, &transcript, Some("note_first"));
    assert_eq!(replayed["denied"][0]["recorded"], "deny", "{replayed:#}");
    assert_eq!(
        replayed["events_by_kind"].get("error.tool"),
        None,
        "{replayed:#}"
    );
}
