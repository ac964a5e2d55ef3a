//! Stop holds an unfinished sequence: the agent cannot stop up to `max_blocks` times per
//! prompt, whatever it does in between, and then it may.

use serde_json::json;

use crate::harness::{Scenario, Turn, replay};

/// Write, then run twice; the agent may not stop before (two blocks per prompt).
const HELD: &str = r#"{
  "name": "held",
  "description": "Write the note, run the check, run it again.",
  "enforcement": "enforce",
  "off_path": "deny",
  "stop": { "block_until_final": true, "max_blocks": 2 },
  "start": ["Write"],
  "tool_transitions": {
    "Write": { "next_allowed": ["Bash"] },
    "Bash": { "next_allowed": ["Read"] }
  }
}"#;

#[test]
fn stop_blocks_up_to_its_limit_in_every_prompt_even_after_more_calls() {
    let Some(s) = Scenario::new() else { return };
    let note = s.project().join("note.md");
    let run = s
        .file(".seed/sequences/held.json", HELD)
        .sequence("held")
        .prompt("Write the note.")
        .prompt("Anything else?")
        .model([
            // First prompt: a step, a stop (held), another step, a stop (held), a stop (let go).
            Turn::tool("Write", json!({"file_path": note, "content": "plan\n"})),
            Turn::text("Written."),
            Turn::tool("Bash", json!({"command": "echo ran"})),
            Turn::text("Ran it."),
            Turn::text("Stopping anyway."),
            // Second prompt: held twice more, then let go.
            Turn::text("Nothing."),
            Turn::text("Still nothing."),
            Turn::text("Stopping."),
        ])
        .run();

    let held = run.sent_texts_with("Stop hook feedback:");
    assert_eq!(held.len(), 4, "two blocks in each prompt: {held:#?}");
    assert!(held[0].contains("[held]"), "{held:#?}");
    let blocks: Vec<_> = run
        .records_of("Stop")
        .iter()
        .map(|r| {
            r["verdict"]["decision"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(
        blocks,
        ["block", "block", "allow", "block", "block", "allow"]
    );
    assert_eq!(run.results().len(), 2, "both prompts ended");

    replay::agrees_with_live(&run, "held");
}
