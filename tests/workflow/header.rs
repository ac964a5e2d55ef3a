//! The workflow's header: entry preconditions, initial state, settings, and where states come
//! from in the file.

use crate::support::workflow as workflow_common;

use seed::engine::ir::{Dialect, Enforcement, OffPathPolicy, StateKind};
use serde_json::json;
use workflow_common::*;

const CLONE: &str = "
  clone:
    type: action
    actions:
      - type: clone_repo
        url: \"${source_url}\"
    on_success: done
    on_failure: failed";

#[test]
fn entry_preconditions_gate_the_start() {
    let yaml = wf("clone", CLONE).replace("start_node:", "entry_preconditions:\n  - type: config_exists\n  - type: tool_available\n    tool: git\nstart_node:");
    let ok = [
        ("config_exists", json!(true)),
        ("tool_available:git", json!(true)),
    ];
    assert_eq!(Run::with_facts(&yaml, &ok).at(), ["clone"]);
    let r = Run::with_facts(&yaml, &[("config_exists", json!(true))]);
    assert_eq!(r.at(), ["entry_preconditions_failed"]);
    let st =
        r.m.chart
            .state(r.m.chart.find("entry_preconditions_failed").unwrap());
    let StateKind::Final {
        message: Some(m),
        recovery: Some(rec),
        ..
    } = &st.kind
    else {
        panic!("{st:?}")
    };
    assert!(
        m.contains("config_exists") && m.contains("tool_available(git)"),
        "{m}"
    );
    assert!(rec.contains("hold"), "{rec}");
    let chosen = yaml.replace("start_node:", "on_entry_failure: failed\nstart_node:");
    assert_eq!(Run::with_facts(&chosen, &[]).at(), ["failed"]);
}

#[test]
fn initial_state_fields_are_variables_and_flags_are_flags() {
    let yaml = wf("clone", CLONE).replace(
        "start_node:",
        "initial_state:\n  phase: start\n  source_url: null\n  limits: {max: 3}\n  flags:\n    config_found: false\n    dry_run: true\nstart_node:",
    );
    let loaded = load(&yaml);
    let vars = &loaded.chart.vars;
    assert_eq!(vars["phase"], json!("start"));
    assert_eq!(vars["source_url"], json!(null));
    assert_eq!(vars["limits"], json!({"max": 3}));
    assert_eq!(vars["flags.dry_run"], json!(true));
    let r = Run::new(&yaml);
    assert_eq!(
        (r.flag("config_found"), r.flag("dry_run")),
        (Some(false), Some(true))
    );
    assert_eq!(r.var("phase"), json!("start"));
}

#[test]
fn header_settings_and_their_defaults() {
    let loaded = load(&wf("clone", CLONE));
    assert_eq!(loaded.chart.dialect, Dialect::WorkflowYaml);
    let neutral: Vec<String> = loaded.chart.neutral.iter().map(|p| p.to_string()).collect();
    // Looking around, and the workflow's own skill (named after the workflow, `t`).
    assert_eq!(
        neutral,
        ["Read", "Glob", "Grep", "TodoWrite", "skill:t|skill:*:t"]
    );
    assert_eq!(loaded.chart.settings.off_path, OffPathPolicy::Warn);
    let strict = wf("clone", CLONE).replace(
        "start_node:",
        "description: strict one\nversion: 1.2\nenforcement: advise\noff_path: deny\nneutral_tools: [Read, \"mcp__docs__*\"]\nstart_node:",
    );
    let loaded = load(&strict);
    assert_eq!(loaded.chart.description, "strict one");
    assert_eq!(loaded.chart.settings.enforcement, Enforcement::Advise);
    assert_eq!(loaded.chart.settings.off_path, OffPathPolicy::Deny);
    assert_eq!(loaded.chart.neutral.len(), 3);
}

#[test]
fn states_keep_file_order_and_source_positions() {
    let loaded = load(&wf("clone", CLONE));
    let keys: Vec<&str> = loaded
        .chart
        .states
        .iter()
        .skip(1)
        .map(|s| s.key.as_str())
        .collect();
    assert_eq!(keys, ["clone", "done", "failed"]);
    let clone = loaded.chart.state(loaded.chart.find("clone").unwrap());
    let span = clone.span.unwrap();
    assert_eq!((span.line, span.col), (5, 3), "the node's name in the file");
}
