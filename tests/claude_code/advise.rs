//! Advise mode lets an off-path call through with a warning the model reads beside the result.

use serde_json::json;

use crate::harness::{Scenario, Turn, replay};
use crate::refusal::NOTE_FIRST;

#[test]
fn advise_mode_warns_beside_the_result_and_lets_the_call_run() {
    let Some(s) = Scenario::new() else { return };
    let run = s
        .file(".seed/sequences/note_first.json", NOTE_FIRST)
        .file(".seed.toml", "enforcement = \"advise\"\n")
        .sequence("note_first")
        .prompt("Run the tests.")
        .model([
            Turn::tool("Bash", json!({"command": "echo ran"})),
            Turn::text("Done."),
        ])
        .run();

    let ran = run.result(0);
    assert_eq!((ran.text.as_str(), ran.is_error), ("ran", false));
    let warning = run.sent_texts_with("PreToolUse:Bash hook additional context:");
    assert_eq!(warning.len(), 1, "{:#?}", run.sent_texts());
    assert!(warning[0].contains("First call Write"), "{warning:#?}");

    let gate = &run.records_of("PreToolUse")[0];
    assert_eq!(gate["verdict"]["decision"], "allow", "{gate:#}");
    assert_eq!(gate["verdict"]["mode"], "advise", "{gate:#}");
    assert!(
        gate["verdict"]["warning"]
            .as_str()
            .is_some_and(|w| w.contains("First call Write")),
        "{gate:#}"
    );
}

#[test]
fn advise_mode_replays_as_advice_not_refusals() {
    let Some(s) = Scenario::new() else { return };
    let run = s
        .file(".seed/sequences/note_first.json", NOTE_FIRST)
        .file(".seed.toml", "enforcement = \"advise\"\n")
        .sequence("note_first")
        .prompt("Run the tests.")
        .model([
            Turn::tool("Bash", json!({"command": "echo ran"})),
            Turn::text("Done."),
        ])
        .run();
    replay::agrees_with_live(&run, "note_first");
    insta::with_settings!({filters => replay::FRAME_FILTERS.to_vec()}, {
        insta::assert_snapshot!(replay::last_frame(&run, "note_first"));
    });
}
