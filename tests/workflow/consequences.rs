//! Every consequence type of seed 003 that changes workflow state: data actions, `evaluate`,
//! checkpoints and what `store_as` keeps (the calls outside-world ones wait for are in
//! `workflow_world_calls.rs`).

use crate::support::workflow as workflow_common;

use seed::engine::ir::{Action, Trigger};
use serde_json::{Value, json};
use workflow_common::*;

/// The data actions of a state-only consequence.
fn actions(cons: &str) -> Vec<Action> {
    let nodes = format!(
        "  a:\n    type: action\n    actions:\n{}\n    on_success: done",
        indent(&format!("- {}", cons.replace('\n', "\n  ")), 6)
    );
    let loaded = load(&wf("a", &nodes));
    let a = loaded.chart.find("a").unwrap();
    let (_, t) = loaded.chart.transitions_from(a).next().unwrap();
    assert_eq!(
        t.trigger,
        Trigger::Always,
        "no tool call: the node passes at once"
    );
    t.actions.clone()
}

#[test]
fn state_consequences_are_data_actions() {
    let set = |name: &str, value: Value| Action::SetVar {
        name: name.into(),
        value,
    };
    let cases: Vec<(&str, Action)> = vec![
        (
            "type: set_flag\nflag: f\nvalue: true",
            Action::SetFlag {
                name: "f".into(),
                value: true,
            },
        ),
        (
            "type: set_flag\nflag: f\nvalue: false",
            Action::SetFlag {
                name: "f".into(),
                value: false,
            },
        ),
        (
            "type: set_flag\nflag: f",
            Action::SetFlag {
                name: "f".into(),
                value: true,
            },
        ),
        (
            "type: set_state\nfield: source_type\nvalue: git",
            set("source_type", json!("git")),
        ),
        (
            "type: set_state\nfield: url\nvalue: null",
            set("url", json!(null)),
        ),
        (
            "type: set_state\nfield: url\nvalue: \"${source_url}/llms.txt\"",
            set("url", json!("${source_url}/llms.txt")),
        ),
        (
            "type: set_state\nfield: flags.f\nvalue: true",
            Action::SetFlag {
                name: "f".into(),
                value: true,
            },
        ),
        (
            "type: append_state\nfield: history\nvalue: {node: a}",
            Action::AppendVar {
                name: "history".into(),
                value: json!({"node": "a"}),
            },
        ),
        (
            "type: merge_state\nfield: source\nvalue: {type: git, depth: 1}",
            Action::MergeVar {
                name: "source".into(),
                value: json!({"type": "git", "depth": 1}),
            },
        ),
        (
            "type: create_checkpoint\nname: before",
            Action::Checkpoint {
                name: "before".into(),
            },
        ),
        (
            "type: rollback_checkpoint\nname: before",
            Action::Rollback {
                name: "before".into(),
            },
        ),
        (
            "type: note\nmessage: hello",
            Action::Note {
                text: "hello".into(),
            },
        ),
    ];
    for (cons, action) in cases {
        assert_eq!(actions(cons), vec![action], "{cons}");
    }
}

#[test]
fn checkpoints_roll_state_back() {
    let steps = "- type: set_state\n  field: x\n  value: 1\n- type: set_flag\n  flag: f\n- type: create_checkpoint\n  name: cp\n- type: set_state\n  field: x\n  value: 2\n- type: set_flag\n  flag: f\n  value: false\n- type: rollback_checkpoint\n  name: cp";
    let r = Run::new(&wf(
        "a",
        &format!(
            "  a:\n    type: action\n    actions:\n{}\n    on_success: done",
            indent(steps, 6)
        ),
    ));
    assert_eq!((r.var("x"), r.flag("f")), (json!(1), Some(true)));
}

#[test]
fn evaluate_sets_a_flag_through_a_choice_after_the_actions_before_it() {
    let steps = "- type: set_state\n  field: n\n  value: 0\n- type: evaluate\n  expression: \"n == 0\"\n  set_flag: empty\n- type: set_state\n  field: n\n  value: 5\n- type: evaluate\n  expression: \"n > 3\"\n  set_flag: big";
    let yaml = wf(
        "a",
        &format!(
            "  a:\n    type: action\n    actions:\n{}\n    on_success: done",
            indent(steps, 6)
        ),
    );
    let loaded = load(&yaml);
    assert!(
        loaded.chart.find("a/evaluate1").is_some() && loaded.chart.find("a/evaluate2").is_some()
    );
    let r = Run::new(&yaml);
    assert_eq!(r.at(), ["done"]);
    assert_eq!((r.flag("empty"), r.flag("big")), (Some(true), Some(true)));
    assert_eq!(r.var("n"), json!(5));
}

#[test]
fn store_as_keeps_the_result_of_the_action() {
    let yaml = wf(
        "a",
        "  a:\n    type: action\n    actions:\n      - type: read_config\n        store_as: config\n      - type: evaluate\n        expression: \"len(config.sources) == 0\"\n        set_flag: is_first_source\n    on_success: done",
    );
    // read_config: the file the Read returned, parsed.
    let read = json!({"file_path": "/c/data/config.yaml"});
    let mut r = Run::new(&yaml);
    r.call_with(
        "Read",
        read.clone(),
        json!({"type": "text", "file": {"filePath": "/c/data/config.yaml",
            "content": "corpus: react\nsources:\n  - id: react-docs\n    type: git\n", "numLines": 4}}),
    );
    assert_eq!(
        r.var("config"),
        json!({"corpus": "react", "sources": [{"id": "react-docs", "type": "git"}]})
    );
    assert_eq!(r.flag("is_first_source"), Some(false));
    // An empty corpus: no sources yet.
    let mut r = Run::new(&yaml);
    r.call_with(
        "Read",
        read.clone(),
        json!({"type": "text", "file": {"content": "corpus: react\nsources: []\n"}}),
    );
    assert_eq!(r.flag("is_first_source"), Some(true));
    // No result known (too large for the host to pass on): nothing is stored.
    let mut r = Run::new(&yaml);
    r.call("Read", read.clone());
    assert_eq!(r.var("config"), Value::Null);
    // A file that is not YAML stays text.
    let mut r = Run::new(&yaml);
    r.call_with(
        "Read",
        read,
        json!({"type": "text", "file": {"content": "sources: [unclosed"}}),
    );
    assert_eq!(r.var("config"), json!("sources: [unclosed"));
}

#[test]
fn state_values_and_notes_read_the_variables_they_name() {
    // The config is read, then later actions copy parts of it by `${…}`.
    let yaml = wf(
        "a",
        "  a:\n    type: action\n    actions:\n      - type: read_config\n        store_as: config\n      - type: set_state\n        field: corpus\n        value: \"${config.corpus}\"\n      - type: set_state\n        field: first\n        value: \"${config.sources.0}\"\n      - type: set_state\n        field: url\n        value: \"https://${config.corpus}.dev/llms.txt\"\n      - type: append_state\n        field: seen\n        value: \"${config.sources.0.id}\"\n      - type: merge_state\n        field: meta\n        value: {owner: \"${config.corpus}\", root: \"${CLAUDE_PROJECT_DIR}\"}\n      - type: evaluate\n        expression: \"url == 'https://react.dev/llms.txt'\"\n        set_flag: url_ok\n    on_success: done",
    );
    let mut r = Run::new(&yaml);
    r.call_with(
        "Read",
        json!({"file_path": "/c/data/config.yaml"}),
        json!({"type": "text", "file": {"content": "corpus: react\nsources:\n  - id: react-docs\n    type: git\n"}}),
    );
    assert_eq!(r.var("corpus"), json!("react"));
    // A whole `${…}` keeps the value's type.
    assert_eq!(r.var("first"), json!({"id": "react-docs", "type": "git"}));
    assert_eq!(r.var("url"), json!("https://react.dev/llms.txt"));
    assert_eq!(r.var("seen"), json!(["react-docs"]));
    // What seed cannot know stays as written: host variables are the agent's to fill in.
    assert_eq!(
        r.var("meta"),
        json!({"owner": "react", "root": "${CLAUDE_PROJECT_DIR}"})
    );
    assert_eq!(r.flag("url_ok"), Some(true));
}
