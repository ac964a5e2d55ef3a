//! Subagents under seed: their calls are recorded with the agent that made them, a subagent
//! stopping is never held, and a background task's notification is not a prompt.

use serde_json::{Value, json};

use crate::harness::{Run, Scenario, Turn, replay};

/// Delegate, then write the note; commands and reads are neutral (the subagent's work).
const DELEGATE: &str = r#"{
  "name": "delegate",
  "description": "Delegate the survey, then write the note.",
  "enforcement": "enforce",
  "off_path": "deny",
  "neutral_tools": ["Bash", "Read", "Glob", "Grep"],
  "stop": { "block_until_final": true, "max_blocks": 1 },
  "start": ["Agent"],
  "tool_transitions": {
    "Agent": { "next_allowed": ["Write"] }
  }
}"#;

fn agent(marker: &str, background: bool) -> Value {
    json!({
        "description": "Survey the files",
        "prompt": format!("{marker} List the files in the project."),
        "subagent_type": "general-purpose",
        "run_in_background": background,
    })
}

/// The subagent's script: one command, then its report.
fn survey() -> [Turn; 2] {
    [
        Turn::tool("Bash", json!({"command": "ls -a"})),
        Turn::text("The project holds the .claude and .seed folders."),
    ]
}

/// The records of hook `hook` made inside a subagent (they name its agent id).
fn in_subagent(run: &Run, hook: &str) -> Vec<Value> {
    run.records_of(hook)
        .into_iter()
        .filter(|r| r["agent"].as_str().is_some_and(|a| !a.is_empty()))
        .collect()
}

#[test]
fn a_foreground_subagents_calls_carry_the_agent_and_its_stop_is_never_held() {
    let Some(s) = Scenario::new() else { return };
    let note = s.project().join("note.md");
    let run = s
        .file(".seed/sequences/delegate.json", DELEGATE)
        .sequence("delegate")
        .prompt("Survey the project, then write the note.")
        .model([
            Turn::tool("Agent", agent("[survey-fg]", false)),
            Turn::text("The survey is in."),
            // The Stop above is held once: the note is still to write.
            Turn::tool(
                "Write",
                json!({"file_path": note, "content": "survey done\n"}),
            ),
            Turn::text("Done."),
        ])
        .subagent("[survey-fg]", survey())
        .run();

    assert!(run.result_in("[survey-fg]", 0, 0).text.contains(".seed"));
    let report = run.result(0);
    assert!(
        !report.is_error && report.text.contains("The project holds"),
        "{report:?}"
    );

    let sub = in_subagent(&run, "PreToolUse");
    assert_eq!(sub.len(), 1, "{sub:#?}");
    assert_eq!(sub[0]["event"]["name"], "Bash");
    let stops = run.records_of("SubagentStop");
    assert_eq!(stops.len(), 1, "{stops:#?}");
    assert_eq!(stops[0]["agent"], sub[0]["agent"], "the same subagent");
    assert_ne!(stops[0]["verdict"]["decision"], "block", "{:#}", stops[0]);
    let held = run.sent_texts_with("Stop hook feedback:");
    assert_eq!(
        held.len(),
        1,
        "the main agent's Stop is held once: {held:#?}"
    );

    replay::agrees_with_live(&run, "delegate");
    insta::with_settings!({filters => replay::FRAME_FILTERS.to_vec()}, {
        insta::assert_snapshot!(replay::last_frame(&run, "delegate"));
    });
}

#[test]
fn a_background_subagents_notification_is_not_stepped_as_a_prompt() {
    let Some(s) = Scenario::new() else { return };
    let note = s.project().join("note.md");
    let run = s
        .file(".seed/sequences/delegate.json", DELEGATE)
        .sequence("delegate")
        .prompt("Survey the project in the background, then write the note.")
        .model([
            Turn::tool("Agent", agent("[survey-bg]", true)),
            Turn::tool(
                "Write",
                json!({"file_path": note, "content": "survey started\n"}),
            ),
            Turn::text("Waiting for the survey."),
            // The task notification arrives as a user turn.
            Turn::text("The survey is in."),
        ])
        .subagent("[survey-bg]", survey())
        .run();

    let notified = run.sent_texts_with("<task-notification>");
    assert!(!notified.is_empty(), "{:#?}", run.sent_texts());
    let submits = run.records_of("UserPromptSubmit");
    assert_eq!(
        submits.len(),
        2,
        "the prompt and the notification: {submits:#?}"
    );
    let prompts = submits
        .iter()
        .filter(|r| r["event"]["kind"] == "prompt")
        .count();
    assert_eq!(
        prompts, 1,
        "only the user's prompt is a prompt: {submits:#?}"
    );
    assert_eq!(in_subagent(&run, "PreToolUse").len(), 1);

    replay::agrees_with_live(&run, "delegate");
}
