//! The `[SEED SEQUENCE]` line reaches the model at the session's start and with a prompt once
//! the sequence has moved.

use serde_json::json;

use crate::harness::{Scenario, Turn, replay};
use crate::refusal::NOTE_FIRST;

#[test]
fn the_sequence_line_arrives_at_session_start_and_with_the_next_prompt() {
    let Some(s) = Scenario::new() else { return };
    let note = s.project().join("note.md");
    let run = s
        .file(".seed/sequences/note_first.json", NOTE_FIRST)
        .sequence("note_first")
        .prompt("Write the note.")
        .prompt("Now run it.")
        .model([
            Turn::tool("Write", json!({"file_path": note, "content": "plan\n"})),
            Turn::text("Written."),
            Turn::tool("Bash", json!({"command": "echo ran"})),
            Turn::text("Ran."),
        ])
        .run();

    let start = run.sent_texts_with("SessionStart hook additional context:");
    assert_eq!(start.len(), 1, "{start:#?}");
    assert!(
        start[0].starts_with(
            "SessionStart hook additional context: [SEED SEQUENCE] \"note_first\" · at: start · next: Write · 0% done"
        ),
        "{start:#?}"
    );
    let prompt = run.sent_texts_with("UserPromptSubmit hook additional context:");
    assert_eq!(
        prompt.len(),
        1,
        "only the prompt after the move carries it: {prompt:#?}"
    );
    assert!(
        prompt[0].contains("[SEED SEQUENCE] \"note_first\" · last call: Write · next: Bash"),
        "{prompt:#?}"
    );

    let prompts: Vec<_> = run
        .records_of("UserPromptSubmit")
        .iter()
        .map(|r| r["event"]["kind"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(prompts, ["prompt", "prompt"]);
    assert_eq!(run.records_of("SessionStart").len(), 1);

    replay::agrees_with_live(&run, "note_first");
    insta::with_settings!({filters => replay::FRAME_FILTERS.to_vec()}, {
        insta::assert_snapshot!(replay::last_frame(&run, "note_first"));
    });
}
