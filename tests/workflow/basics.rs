//! Workflow YAML dialect (seed 003), node by node: what each node type compiles to and how it
//! behaves when driven the way the hook drives it (PreToolUse gate, then PostToolUse).

use crate::support::workflow as workflow_common;

use seed::engine::ir::{Outcome, StateKind, Trigger};
use seed::engine::{Decision, VerdictKind};
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
fn an_action_waits_for_its_tool_call_then_goes_to_on_success() {
    let mut r = Run::new(&wf("clone", CLONE));
    assert_eq!(r.at(), ["clone"]);
    assert_eq!(
        r.next_tool().as_deref(),
        Some("Bash(command=\"git clone ${source_url}\")")
    );
    // Some other Bash command fits nowhere: off path (the default policy warns and allows).
    let v = r.call("Bash", json!({"command": "ls"}));
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::OffPath, Decision::Allow)
    );
    assert!(v.warning.is_some());
    assert_eq!(
        r.at(),
        ["clone"],
        "an off-path call does not move the workflow"
    );
    let v = r.call(
        "Bash",
        json!({"command": "git clone https://x/y .source/y"}),
    );
    assert_eq!(v.kind, VerdictKind::Advance);
    assert_eq!(r.at(), ["done"]);
    assert!(r.snap.halted && r.snap.failed.is_none());
    assert_eq!(r.progress(), 100.0);
}

#[test]
fn a_failed_tool_call_goes_to_on_failure() {
    let mut r = Run::new(&wf("clone", CLONE));
    r.fail("Bash", json!({"command": "git clone https://x/y"}));
    assert_eq!(r.at(), ["failed"]);
    let rec = r.m.recovery(&r.snap, None);
    assert!(
        rec.suggestions.iter().any(|s| s.contains("try again")),
        "{rec:?}"
    );
}

#[test]
fn without_on_failure_a_failed_call_leaves_the_node_waiting_for_a_retry() {
    let yaml = wf(
        "clone",
        "  clone:\n    type: action\n    actions:\n      - type: clone_repo\n    on_success: done",
    );
    let mut r = Run::new(&yaml);
    r.fail("Bash", json!({"command": "git clone x"}));
    assert_eq!(r.at(), ["clone"]);
    r.call("Bash", json!({"command": "git clone x"}));
    assert_eq!(r.at(), ["done"]);
}

const THREE_CALLS: &str = "
  fetch:
    type: action
    actions:
      - type: create_directory
        path: .source
      - type: clone_repo
      - type: set_flag
        flag: cloned
      - type: get_sha
        store_as: sha
    on_success: done
    on_failure: failed";

#[test]
fn several_tool_calls_are_sub_steps_taken_in_file_order() {
    let loaded = load(&wf("fetch", THREE_CALLS));
    let keys: Vec<&str> = loaded.chart.states.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(
        keys[1..5],
        [
            "fetch",
            "fetch.create_directory",
            "fetch.clone_repo",
            "fetch.get_sha"
        ]
    );
    let mut r = Run::new(&wf("fetch", THREE_CALLS));
    assert_eq!(r.at(), ["fetch.create_directory"]);
    // Out of order: the clone is not expected yet.
    let v = r.gate("Bash", json!({"command": "git clone x"}));
    assert_eq!(v.kind, VerdictKind::OffPath);
    assert_eq!(
        r.call("Bash", json!({"command": "mkdir -p .source"})).kind,
        VerdictKind::Advance
    );
    assert_eq!(r.at(), ["fetch.clone_repo"]);
    let p1 = r.progress();
    r.call("Bash", json!({"command": "git clone x .source/x"}));
    assert_eq!(r.at(), ["fetch.get_sha"]);
    assert!(r.progress() > p1, "sub-steps advance progress");
    assert_eq!(
        r.flag("cloned"),
        None,
        "state actions wait for the node to finish"
    );
    r.call_with(
        "Bash",
        json!({"command": "git rev-parse HEAD"}),
        json!({"stdout": "4f2a9c1e\n", "stderr": "", "interrupted": false}),
    );
    assert_eq!(r.at(), ["done"]);
    assert_eq!(r.flag("cloned"), Some(true));
    assert_eq!(
        r.var("sha"),
        json!("4f2a9c1e"),
        "store_as keeps the result: the commit the command printed"
    );
}

#[test]
fn a_failure_in_any_sub_step_goes_to_on_failure() {
    let mut r = Run::new(&wf("fetch", THREE_CALLS));
    r.call("Bash", json!({"command": "mkdir -p .source"}));
    r.fail("Bash", json!({"command": "git clone x"}));
    assert_eq!(r.at(), ["failed"]);
}

const PROBE: &str = "
  probe:
    type: action
    actions:
      - type: web_fetch
        url: \"${site}/llms.txt\"
        store_as: manifest
        allow_failure: true
    on_success: decide
  decide:
    type: conditional
    condition:
      type: fetch_succeeded
      from: manifest
    branches:
      true: done
      false: failed";

#[test]
fn allow_failure_sends_a_failed_call_to_on_success_and_records_the_status() {
    let mut r = Run::new(&wf("probe", PROBE));
    let url = json!({"url": "https://docs.example.com/llms.txt", "prompt": "x"});
    assert_eq!(
        r.gate("WebFetch", json!({"url": "https://elsewhere/x"}))
            .kind,
        VerdictKind::OffPath
    );
    r.fail("WebFetch", url.clone());
    assert_eq!(r.var("manifest")["status"], json!(0));
    assert_eq!(
        r.at(),
        ["failed"],
        "fetch_succeeded is false after a failed fetch"
    );
    let mut r = Run::new(&wf("probe", PROBE));
    r.call_with(
        "WebFetch",
        url,
        json!({"code": 200, "codeText": "OK", "result": "# Docs\n- [Intro](intro.md)"}),
    );
    assert_eq!(r.var("manifest")["status"], json!(200));
    assert_eq!(
        r.var("manifest")["result"],
        json!("# Docs\n- [Intro](intro.md)"),
        "store_as keeps what the fetch returned"
    );
    assert_eq!(r.at(), ["done"]);
}

#[test]
fn an_action_that_only_changes_state_passes_at_once() {
    let yaml = wf(
        "mark",
        "  mark:\n    type: action\n    actions:\n      - type: set_flag\n        flag: seen\n        value: true\n    on_success: done",
    );
    let loaded = load(&yaml);
    let mark = loaded.chart.find("mark").unwrap();
    assert_eq!(
        loaded.chart.state(mark).weight,
        0.0,
        "no step to count for progress"
    );
    let r = Run::new(&yaml);
    assert_eq!(r.at(), ["done"]);
    assert_eq!(r.flag("seen"), Some(true));
}

const BRANCH: &str = "
  route:
    type: conditional
    description: Route on the flag
    condition:
      type: flag_set
      flag: ready
    branches:
      true: done
      false: failed";

#[test]
fn a_conditional_is_a_choice_whose_false_branch_is_the_default() {
    let loaded = load(&wf("route", BRANCH).replace(
        "name: t\n",
        "name: t\ninitial_state:\n  flags:\n    ready: true\n",
    ));
    let route = loaded.chart.find("route").unwrap();
    assert!(matches!(loaded.chart.state(route).kind, StateKind::Choice));
    let ts: Vec<_> = loaded
        .chart
        .transitions_from(route)
        .map(|(_, t)| t)
        .collect();
    assert_eq!(ts.len(), 2);
    assert!(ts.iter().all(|t| t.trigger == Trigger::Always));
    assert!(
        ts[0].guard.is_some() && ts[1].guard.is_none(),
        "ordered: guarded true, then default false"
    );
    assert_eq!(
        Run::of(seed::engine::Machine::new(loaded.chart), &[]).at(),
        ["done"]
    );
    let off = wf("route", BRANCH).replace(
        "name: t\n",
        "name: t\ninitial_state:\n  flags:\n    ready: false\n",
    );
    assert_eq!(Run::new(&off).at(), ["failed"]);
}

const GATE: &str = "
  check:
    type: validation_gate
    validations:
      - type: file_exists
        path: data/a.md
      - type: directory_exists
        path: data/uploads
    on_valid: done
    on_invalid: failed";

#[test]
fn a_validation_gate_needs_every_validation_to_hold() {
    let both = [
        ("file_exists:data/a.md", json!(true)),
        ("directory_exists:data/uploads", json!(true)),
    ];
    assert_eq!(Run::with_facts(&wf("check", GATE), &both).at(), ["done"]);
    let one = [("file_exists:data/a.md", json!(true))];
    assert_eq!(Run::with_facts(&wf("check", GATE), &one).at(), ["failed"]);
}

const ASK: &str = "
  ask:
    type: user_prompt
    store_as: choice
    prompt:
      question: What now?
      header: Next
      options:
        - id: go
          label: Go on
          description: continue
        - id: stop
          label: Stop here
    on_response:
      go:
        consequence:
          - type: set_state
            field: mode
            value: going
        next_node: done
      stop:
        next_node: failed";

#[test]
fn a_user_prompt_routes_on_the_chosen_option_label_or_id() {
    let mut r = Run::new(&wf("ask", ASK));
    // Asking (PreToolUse has no answers yet) is allowed and moves nothing.
    let v = r.gate("AskUserQuestion", json!({"questions": []}));
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::Neutral, Decision::Allow)
    );
    // An answer that matches no option keeps the prompt waiting.
    r.call("AskUserQuestion", answer("Maybe later"));
    assert_eq!(r.at(), ["ask"]);
    assert_eq!(
        r.call("AskUserQuestion", answer("Go on")).kind,
        VerdictKind::Advance
    );
    assert_eq!(r.at(), ["done"]);
    assert_eq!(r.var("mode"), json!("going"));
    assert_eq!(
        r.var("choice"),
        json!("Go on"),
        "store_as keeps the chosen answer"
    );
    assert_eq!(r.var("user_responses.ask"), json!({"q?": "Go on"}));
    let mut r = Run::new(&wf("ask", ASK));
    r.call("AskUserQuestion", answer("stop"));
    assert_eq!(r.at(), ["failed"], "the option id matches too");
}

#[test]
fn a_default_handler_takes_typed_answers() {
    let yaml = wf(
        "ask",
        &ASK.replace(
            "      stop:\n        next_node: failed",
            "      default:\n        next_node: failed",
        ),
    );
    let mut r = Run::new(&yaml);
    r.call("AskUserQuestion", answer("https://github.com/x/y"));
    assert_eq!(r.at(), ["failed"]);
}

#[test]
fn a_reference_waits_for_a_read_of_its_document() {
    let yaml = wf(
        "guide",
        "  guide:\n    type: reference\n    doc: \"${CLAUDE_PLUGIN_ROOT}/lib/patterns/build.md\"\n    section: first build\n    next_node: done",
    );
    let loaded = load(&yaml);
    let g = loaded.chart.find("guide").unwrap();
    // Shown as written; `${CLAUDE_PLUGIN_ROOT}` is the host's, never set in the workflow, so
    // any plugin root matches.
    assert_eq!(
        loaded.chart.state(g).activity.as_ref().unwrap().to_string(),
        "Read(/file_path=${CLAUDE_PLUGIN_ROOT}/lib/patterns/build.md)"
    );
    let mut r = Run::new(&yaml);
    assert_eq!(
        r.call("Read", json!({"file_path": "/x/README.md"})).kind,
        VerdictKind::Neutral
    );
    assert_eq!(r.at(), ["guide"]);
    r.call(
        "Read",
        json!({"file_path": "/plugins/corpus/lib/patterns/build.md"}),
    );
    assert_eq!(r.at(), ["done"]);
}

#[test]
fn endings_are_final_states_with_message_and_recovery() {
    let loaded = load(&wf("clone", CLONE));
    let failed = loaded.chart.state(loaded.chart.find("failed").unwrap());
    assert_eq!(
        failed.kind,
        StateKind::Final {
            outcome: Outcome::Error,
            message: Some("broke".into()),
            recovery: Some("try again".into())
        }
    );
    let done = loaded.chart.state(loaded.chart.find("done").unwrap());
    assert!(matches!(
        done.kind,
        StateKind::Final {
            outcome: Outcome::Success,
            ..
        }
    ));
}
