//! Every consequence type of seed 003: state changes become data actions, outside-world effects
//! become the tool call the agent must make (the node's activity).

mod workflow_common;

use std::collections::BTreeMap;

use seed::engine::ir::{Action, Trigger};
use seed::engine::pattern::Pattern;
use seed::engine::{Event, VerdictKind};
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

/// The activity (tool call pattern) of an outside-world consequence.
/// A consequence, the pattern its node waits for, the call as shown, and a call that is that step.
type Case<'a> = (&'a str, &'a str, Option<&'a str>, (&'a str, Value));

fn activity(cons: &str) -> (Pattern, Option<String>) {
    let nodes = format!(
        "  a:\n    type: action\n    actions:\n{}\n    on_success: done",
        indent(&format!("- {}", cons.replace('\n', "\n  ")), 6)
    );
    let loaded = load(&wf("a", &nodes));
    let st = loaded.chart.state(loaded.chart.find("a").unwrap());
    (st.activity.clone().unwrap(), st.call.clone())
}

#[test]
fn outside_world_consequences_become_the_tool_call_the_agent_makes() {
    let config = json!({"file_path": "/home/u/corpus/data/config.yaml"});
    // The consequence; the pattern its node waits for; the call as shown (`next`, recovery,
    // views); a call that is that step.
    let cases: Vec<Case> = vec![
        (
            "type: read_config\nstore_as: config",
            "Read(/file_path=*/data/config.yaml)",
            Some(r#"Read(file_path="data/config.yaml")"#),
            ("Read", config.clone()),
        ),
        (
            "type: write_config_entry\npath: sources\nvalue: x",
            "Write(/file_path=*/data/config.yaml)|Edit(/file_path=*/data/config.yaml)",
            Some(r#"Edit(file_path="data/config.yaml")"#),
            ("Edit", config.clone()),
        ),
        (
            "type: add_source\nspec: {id: a}",
            "Write(/file_path=*/data/config.yaml)|Edit(/file_path=*/data/config.yaml)",
            Some(r#"Edit(file_path="data/config.yaml")"#),
            ("Write", config.clone()),
        ),
        (
            "type: update_source\nid: a",
            "Write(/file_path=*/data/config.yaml)|Edit(/file_path=*/data/config.yaml)",
            Some(r#"Edit(file_path="data/config.yaml")"#),
            ("Edit", config),
        ),
        (
            "type: write_file",
            "Write|Edit",
            None,
            ("Write", json!({"file_path": "/anything"})),
        ),
        (
            "type: cache_web_content\npath: data/web/a.md",
            "Write(/file_path=*/data/web/a.md)|Edit(/file_path=*/data/web/a.md)",
            Some(r#"Write(file_path="data/web/a.md")"#),
            ("Write", json!({"file_path": "/c/data/web/a.md"})),
        ),
        (
            "type: create_directory\npath: .source",
            "Bash(/command=*mkdir *.source*)",
            Some(r#"Bash(command="mkdir -p .source")"#),
            ("Bash", json!({"command": "mkdir -p .source"})),
        ),
        (
            "type: clone_repo\nurl: u\ndest: d\nbranch: main\ndepth: 1",
            "Bash(/command=*git *clone *u*d*)",
            Some(r#"Bash(command="git clone --depth 1 --branch main u d")"#),
            ("Bash", json!({"command": "git clone --depth 1 u d"})),
        ),
        (
            "type: get_sha\nrepo_path: d\nstore_as: sha",
            "Bash(/command=*d* rev-parse*)",
            Some(r#"Bash(command="git -C d rev-parse HEAD")"#),
            ("Bash", json!({"command": "git -C d rev-parse HEAD"})),
        ),
        (
            "type: git_pull",
            "Bash(/command=*git *pull*)",
            Some(r#"Bash(command="git pull")"#),
            ("Bash", json!({"command": "git pull --ff-only"})),
        ),
        (
            "type: git_fetch\nrepo_path: .source/a",
            "Bash(/command=*.source/a* fetch*)",
            Some(r#"Bash(command="git -C .source/a fetch")"#),
            (
                "Bash",
                json!({"command": "cd .source/a && git fetch origin"}),
            ),
        ),
        (
            "type: web_fetch",
            "WebFetch",
            None,
            ("WebFetch", json!({"url": "https://x"})),
        ),
        (
            "type: invoke_pattern\npath: lib/corpus/patterns/scan.md\nsection: s\ncontext: {a: 1}",
            "Read(/file_path=*/lib/corpus/patterns/scan.md)",
            Some(r#"Read(file_path="lib/corpus/patterns/scan.md")"#),
            (
                "Read",
                json!({"file_path": "/p/lib/corpus/patterns/scan.md"}),
            ),
        ),
        (
            "type: spawn_agent\nsubagent_type: scanner\nprompt: go",
            "Task|Agent",
            None,
            ("Task", json!({"prompt": "go"})),
        ),
        (
            "type: invoke_skill\nskill: hiivmind-corpus-build",
            "skill:hiivmind-corpus-build",
            Some(r#"Skill(skill="hiivmind-corpus-build")"#),
            ("Skill", json!({"skill": "hiivmind-corpus-build"})),
        ),
        (
            "type: run_command\ncommand: \"npm test*\"",
            "Bash(/command=npm test*)",
            Some(r#"Bash(command="npm test*")"#),
            ("Bash", json!({"command": "npm test -- --quiet"})),
        ),
    ];
    let aliases = BTreeMap::new();
    for (cons, pattern, call, (tool, input)) in cases {
        let (p, shown) = activity(cons);
        assert_eq!(p.to_string(), pattern, "{cons}");
        assert_eq!(shown.as_deref(), call, "{cons}");
        assert!(
            p.matches(&Event::tool(tool, input), &aliases),
            "{cons} matches its call"
        );
        assert!(
            !p.matches(
                &Event::tool("Bash", json!({"command": "rm -rf /"})),
                &aliases
            ),
            "{cons} does not match an unrelated call"
        );
    }
}

/// A workflow that fetches `${source_url}/llms.txt` and then caches it under `${source_id}`.
const FETCH: &str = "  a:\n    type: action\n    actions:\n      - type: web_fetch\n        url: \"${source_url}/llms.txt\"\n      - type: write_file\n        path: \"data/llms/${source_id}/llms.txt\"\n    on_success: done";

fn fetching(initial: &str) -> Run {
    Run::new(&wf("a", FETCH).replace(
        "start_node:",
        &format!("initial_state:\n{initial}\nstart_node:"),
    ))
}

#[test]
fn a_reference_in_a_call_is_the_variables_value_when_the_call_is_judged() {
    let mut r = fetching("  source_url: \"https://docs.example.com\"\n  source_id: react");
    // Shown as written, with the values the variables hold now.
    assert_eq!(
        r.next_tool().as_deref(),
        Some("WebFetch(url=\"https://docs.example.com/llms.txt\")")
    );
    // Another site is no step of the workflow.
    let evil = r.call(
        "WebFetch",
        json!({"url": "https://evil.example.org/llms.txt"}),
    );
    assert_ne!(evil.kind, VerdictKind::Advance, "{}", evil.reason);
    assert_eq!(r.at(), ["a.web_fetch"]);
    r.call(
        "WebFetch",
        json!({"url": "https://docs.example.com/llms.txt"}),
    );
    assert_eq!(r.at(), ["a.write_file"]);
    // Views show each step's call with the values the session holds (or as written).
    let step = r.m.chart.find("a.write_file").unwrap();
    assert_eq!(
        r.m.activity_call(step, Some(&r.snap)).as_deref(),
        Some("Write(file_path=\"data/llms/react/llms.txt\")")
    );
    assert_eq!(
        r.m.activity_call(step, None).as_deref(),
        Some("Write(file_path=\"data/llms/${source_id}/llms.txt\")")
    );
    assert_eq!(
        r.next_tool().as_deref(),
        Some("Write(file_path=\"data/llms/react/llms.txt\")")
    );
    let other = r.call("Write", json!({"file_path": "/c/data/llms/vue/llms.txt"}));
    assert_ne!(other.kind, VerdictKind::Advance);
    r.call("Write", json!({"file_path": "/c/data/llms/react/llms.txt"}));
    assert_eq!(r.at(), ["done"]);
}

#[test]
fn a_reference_to_an_unset_variable_matches_any_value_until_it_is_set() {
    let mut r = fetching("  source_url: null\n  source_id: null");
    // What the call will need is named as written.
    assert_eq!(
        r.next_tool().as_deref(),
        Some("WebFetch(url=\"${source_url}/llms.txt\")")
    );
    let v = r.call(
        "WebFetch",
        json!({"url": "https://any.example.net/llms.txt"}),
    );
    assert_eq!(v.kind, VerdictKind::Advance);
    // The literal part still has to fit.
    let mut r = fetching("  source_url: null");
    let v = r.call(
        "WebFetch",
        json!({"url": "https://any.example.net/index.html"}),
    );
    assert_ne!(v.kind, VerdictKind::Advance);
    assert_eq!(r.at(), ["a.web_fetch"]);
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
