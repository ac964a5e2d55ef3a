//! Consequences that act on the world: the tool call each one waits for (the pattern that
//! recognises it, and the call as the agent makes it), with `${var}` in a URL, a path or a
//! command taking the variable's value when the call is judged.

use crate::support::workflow as workflow_common;

use std::collections::BTreeMap;

use seed::engine::{Event, Pattern, VerdictKind};
use serde_json::{Value, json};
use workflow_common::*;

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
