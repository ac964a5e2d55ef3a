//! Seed 003's own "Workflow Schema" example, as written: it loads, and walks as its comments
//! say ("Detect state via preconditions, Set flags via consequences, Decide next node based on
//! flags").

use crate::support::workflow as workflow_common;

use seed::engine::lint::Severity;
use serde_json::{Value, json};
use workflow_common::*;

/// Seed 003, "### Workflow Schema", verbatim.
const SCHEMA_EXAMPLE: &str = r#"name: "skill-name"
version: "1.0.0"
description: "Trigger description"

# Gate entry - all must pass
entry_preconditions:
  - type: config_exists
  - type: tool_available
    tool: git

# Initial flags and computed values
initial_state:
  phase: "start"
  source_type: null
  flags:
    config_found: false
    manifest_detected: false
    is_first_source: false

start_node: locate_corpus

nodes:
  locate_corpus:
    type: action
    actions:
      - type: read_config
        store_as: "config"
      - type: set_flag
        flag: config_found
        value: true
      - type: count_sources
        from: config
        store_as: "source_count"
      - type: evaluate
        expression: "source_count == 0"
        set_flag: is_first_source
    on_success: detect_source_type
    on_failure: error_no_config

  detect_source_type:
    type: conditional
    description: "Route based on detected state"
    condition:
      type: flag_set
      flag: manifest_detected
    branches:
      true: present_manifest_option
      false: ask_source_type

endings:
  success:
    type: success
    message: "Source added successfully"
  error_no_config:
    type: error
    message: "No config.yaml found"
    recovery: "hiivmind-corpus-init"
"#;

fn read_config(content: &str) -> (Value, Value) {
    (
        json!({"file_path": "/home/me/corpus/data/config.yaml"}),
        json!({"type": "text", "file": {"content": content}}),
    )
}

#[test]
fn the_seeds_schema_example_loads_as_written() {
    let loaded = try_load(SCHEMA_EXAMPLE).unwrap_or_else(|e| panic!("{e}"));
    let errors: Vec<_> = loaded
        .warnings
        .iter()
        .filter(|l| l.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // The excerpt names two nodes it leaves out: each is told where it is named.
    let undefined: Vec<(u32, String)> = loaded
        .warnings
        .iter()
        .filter(|l| l.code == "workflow-undefined-node")
        .map(|l| (l.span.map_or(0, |s| s.line), l.message.clone()))
        .collect();
    assert_eq!(
        undefined,
        [
            (47, "`present_manifest_option` is not a node or an ending: the workflow ends there, as an error".to_string()),
            (48, "`ask_source_type` is not a node or an ending: the workflow ends there, as an error".to_string()),
        ]
    );
}

/// `count_sources` (from: config, store_as: source_count) counts the config's `sources`; the
/// `evaluate` after it reads the count: "source_count == 0" → is_first_source.
#[test]
fn count_sources_counts_the_configs_sources_for_the_next_evaluate() {
    let facts = [
        ("config_exists", json!(true)),
        ("tool_available:git", json!(true)),
    ];
    let mut r = Run::with_facts(SCHEMA_EXAMPLE, &facts);
    assert_eq!(r.at(), ["locate_corpus"]);
    let (input, response) = read_config("sources:\n  - id: a\n  - id: b\n");
    r.call_with("Read", input, response);
    assert_eq!(r.var("source_count"), json!(2));
    assert_eq!(
        (r.flag("config_found"), r.flag("is_first_source")),
        (Some(true), Some(false))
    );
    // "false: ask_source_type", a node the excerpt leaves out: an error ending that says so.
    assert_eq!(r.at(), ["ask_source_type"]);
    let ended = r.m.progress(&r.snap).ended.expect("ended");
    assert_eq!(
        ended.message.as_deref(),
        Some("`ask_source_type` is not defined in this workflow")
    );

    for (content, count) in [
        ("sources: []\n", 0),
        ("corpus: x\n", 0),
        ("sources: {a: 1}\n", 1),
    ] {
        let mut r = Run::with_facts(SCHEMA_EXAMPLE, &facts);
        let (input, response) = read_config(content);
        r.call_with("Read", input, response);
        assert_eq!(r.var("source_count"), json!(count), "{content}");
        assert_eq!(r.flag("is_first_source"), Some(count == 0), "{content}");
    }
}

#[test]
fn count_sources_needs_from_and_store_as() {
    for (missing, yaml) in [
        ("from", "      - type: count_sources\n        store_as: n"),
        (
            "store_as",
            "      - type: count_sources\n        from: config",
        ),
    ] {
        let nodes = format!("  a:\n    type: action\n    actions:\n{yaml}\n    on_success: done");
        let e = load_err(&wf("a", &nodes));
        assert!(
            e.message
                .contains(&format!("`count_sources` needs `{missing}`")),
            "{e}"
        );
    }
}

/// A target nobody declares is a warning with the name most likely meant, not a load error.
#[test]
fn an_undefined_target_is_told_with_the_name_meant() {
    let nodes = "  a:\n    type: action\n    actions:\n      - type: clone_repo\n    on_success: doen\n    on_failure: failed";
    let loaded = load(&wf("a", nodes));
    let w = loaded
        .warnings
        .iter()
        .find(|l| l.code == "workflow-undefined-node")
        .expect("a warning");
    assert_eq!(
        w.message,
        "`doen` is not a node or an ending (did you mean `done`?): the workflow ends there, as an error"
    );
    assert_eq!(w.span.map(|s| (s.line, s.col)), Some((8, 17)));
}

/// Seed 003's `config_exists` "data/config.yaml exists" and `read_config` "Read config.yaml":
/// the corpus's paths are the project's. A step naming `data/config.yaml` matches the Read the
/// agent makes with the absolute path inside the project, and not a file of that name
/// elsewhere.
#[test]
fn a_relative_path_is_the_file_inside_the_project() {
    let facts = [
        ("config_exists", json!(true)),
        ("tool_available:git", json!(true)),
        ("CLAUDE_PROJECT_DIR", json!("/home/me/corpus")),
    ];
    let read = |path: &str| json!({ "file_path": path });
    let config = json!({"type": "text", "file": {"content": "sources: []\n"}});
    for outside in [
        "/tmp/evil/data/config.yaml",
        "/home/me/corpus/vendor/data/config.yaml",
        "/home/me/corpus-old/data/config.yaml",
        "/home/me/corpus/data/config.yaml.bak",
    ] {
        let mut r = Run::with_facts(SCHEMA_EXAMPLE, &facts);
        r.call_with("Read", read(outside), config.clone());
        assert_eq!(
            r.at(),
            ["locate_corpus"],
            "{outside} is not the project's config"
        );
        assert_eq!(r.var("config"), Value::Null, "{outside}");
    }
    let mut r = Run::with_facts(SCHEMA_EXAMPLE, &facts);
    r.call_with(
        "Read",
        read("/home/me/corpus/data/config.yaml"),
        config.clone(),
    );
    assert_eq!(r.var("source_count"), json!(0));
    assert_ne!(r.at(), ["locate_corpus"]);
    // A project directory given with a trailing slash is the same directory.
    let mut slash = facts.to_vec();
    slash[2] = ("CLAUDE_PROJECT_DIR", json!("/home/me/corpus/"));
    let mut r = Run::with_facts(SCHEMA_EXAMPLE, &slash);
    r.call_with(
        "Read",
        read("/home/me/corpus/data/config.yaml"),
        config.clone(),
    );
    assert_eq!(r.var("source_count"), json!(0));
    // Where the project's directory was not sampled (an old log), the file of that name
    // anywhere, as before.
    let mut r = Run::with_facts(SCHEMA_EXAMPLE, &facts[..2]);
    r.call_with("Read", read("/srv/corpus/data/config.yaml"), config);
    assert_eq!(r.var("source_count"), json!(0));
    // The chart asks the host for the project's directory.
    let loaded = load(SCHEMA_EXAMPLE);
    let reader = loaded.chart.reader("CLAUDE_PROJECT_DIR").expect("declared");
    assert_eq!(reader.kind.path(), "${CLAUDE_PROJECT_DIR}");
}
