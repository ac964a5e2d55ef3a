//! A tool that fails: the model reads the failure, seed records it as `error.tool`, and the
//! transcript replays the same failure.

use serde_json::json;

use crate::harness::{Scenario, Turn, replay};
use crate::refusal::NOTE_FIRST;

#[test]
fn a_failing_tool_is_recorded_as_a_failure() {
    let Some(s) = Scenario::new() else { return };
    let note = s.project().join("note.md");
    let run = s
        .file(".seed/sequences/note_first.json", NOTE_FIRST)
        .sequence("note_first")
        .prompt("Write the note and run the check.")
        .model([
            Turn::tool("Write", json!({"file_path": note, "content": "plan\n"})),
            Turn::tool("Bash", json!({"command": "echo broken >&2; exit 3"})),
            Turn::text("The check failed."),
        ])
        .run();

    let failed = run.result(1);
    assert!(failed.is_error, "{failed:?}");
    assert!(failed.text.contains("Exit code 3"), "{failed:?}");
    assert!(failed.text.contains("broken"), "{failed:?}");

    let failures = run.records_of("PostToolUseFailure");
    assert_eq!(failures.len(), 1, "{failures:#?}");
    assert_eq!(failures[0]["event"]["kind"], "error.tool");
    assert_eq!(failures[0]["event"]["name"], "Bash");
    // The call itself was allowed: the sequence had reached Bash.
    let gate = &run.records_of("PreToolUse")[1];
    assert_eq!(gate["verdict"]["decision"], "allow", "{gate:#}");

    replay::agrees_with_live(&run, "note_first");
    insta::with_settings!({filters => replay::FRAME_FILTERS.to_vec()}, {
        insta::assert_snapshot!(replay::last_frame(&run, "note_first"));
    });
}
