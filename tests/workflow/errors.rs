//! What goes wrong, and where: every load error names file:line:column and what was expected;
//! the dialect's lints (schema validation, path coverage); hostile and huge input fails fast
//! and clearly.

use crate::support::workflow as workflow_common;

use std::time::{Duration, Instant};

use seed::engine::Machine;
use seed::engine::lint::Severity;
use workflow_common::*;

const ACTION: &str = "  a:\n    type: action\n    actions:\n      - type: clone_repo\n    on_success: done\n    on_failure: failed";

fn cond(condition: &str) -> String {
    wf(
        "c",
        &format!(
            "  c:\n    type: conditional\n    condition:\n{condition}\n    branches:\n      true: done\n      false: failed"
        ),
    )
}

/// `(line, col, message contains)` for each broken file.
#[test]
fn load_errors_point_at_the_problem() {
    let base = wf("a", ACTION);
    let cases: Vec<(String, (u32, u32), &str)> = vec![
        (
            "name: t\nstart_node: a\nnodes:\n  a:\n\ttype: action\n".into(),
            (5, 2),
            "tabs",
        ),
        ("name: t\nnodes: [\n".into(), (2, 8), "expected a mapping"),
        (
            base.replace("on_success: done", "on_sucess: done"),
            (8, 5),
            "unknown field `on_sucess`",
        ),
        (
            base.replace("type: action", "type: loop"),
            (5, 11),
            "unknown node type `loop`: expected one of action, conditional",
        ),
        (
            base.replace("    type: action\n", ""),
            (4, 3),
            "node `a` has no `type`",
        ),
        (
            base.replace("    on_success: done", ""),
            (4, 3),
            "action node `a` needs `on_success`",
        ),
        (
            base.replace("clone_repo", "count_pages"),
            (7, 15),
            "unknown consequence type `count_pages`",
        ),
        (
            base.replace("clone_repo", "clone_repo\n        bogus: 1"),
            (8, 9),
            "unknown field `bogus`",
        ),
        (
            base.replace("      - type: clone_repo", "      - url: x"),
            (7, 9),
            "consequence without `type`",
        ),
        (
            cond("      type: flag_is\n      flag: x"),
            (7, 13),
            "unknown precondition type `flag_is`: expected one of config_exists",
        ),
        (
            cond("      type: flag_set"),
            (7, 13),
            "`flag_set` needs `flag`",
        ),
        (
            cond("      type: evaluate_expression\n      expression: \"len(a) = 0\""),
            (8, 27),
            "`=` is not an operator",
        ),
        (
            cond("      type: evaluate_expression\n      expression: len(a) == b"),
            (8, 29),
            "comparing two variables is not supported",
        ),
        (
            cond("      type: file_exists\n      path: \"${source_id}/x\""),
            (7, 13),
            "expands only ${CLAUDE_PROJECT_DIR}",
        ),
        (
            cond("      type: source_cloned\n      id: \"${source_id}\""),
            (7, 13),
            "cannot expand workflow variables",
        ),
        (
            cond("      type: all_of\n      conditions: []"),
            (7, 13),
            "non-empty `conditions`",
        ),
        (
            base.replace(
                "start_node: a",
                "start_node: a\ninitial_state:\n  flags:\n    x: maybe",
            ),
            (5, 5),
            "flag `x` must be true or false",
        ),
        (base.replace("name: t\n", ""), (1, 1), "missing `name`"),
        (
            base.replace("start_node: a\n", ""),
            (1, 1),
            "missing `start_node`",
        ),
        (
            base.replace("start_node: a", "start_node: zz"),
            (2, 13),
            "`zz` is not a node or an ending",
        ),
        (
            base.replace("start_node: a", "start_node: done"),
            (2, 13),
            "names an ending",
        ),
        (
            base.replace("  failed:", "  a:"),
            (14, 3),
            "`a` is both a node and an ending",
        ),
        (
            format!("{base}nodes:\n  b: {{type: action}}\n"),
            (18, 1),
            "duplicate mapping key",
        ),
        (
            base.replace("type: success", "type: fine"),
            (12, 11),
            "expected success or error",
        ),
        ("# only a comment\n".into(), (1, 1), "missing `name`"),
        ("- a\n- b\n".into(), (1, 1), "expected a mapping"),
        (
            "---\nname: a\n---\nname: b\n".into(),
            (3, 1),
            "more than one YAML document",
        ),
        (
            "name: t\nstart_node: a\nnodes: {}\n".into(),
            (1, 1),
            "no `nodes`",
        ),
    ];
    for (yaml, (line, col), needle) in cases {
        let e = load_err(&yaml);
        assert_eq!((e.line, e.col), (line, col), "{e}\n--- for ---\n{yaml}");
        assert!(e.message.contains(needle), "{e} should say {needle:?}");
        assert!(
            e.to_string()
                .starts_with(&format!("wf.yaml:{line}:{col}: ")),
            "{e}"
        );
        assert!(!e.message.contains('\n'), "one line: {e}");
    }
}

#[test]
fn node_kinds_need_their_keys() {
    let cases = [
        (
            "  c:\n    type: conditional\n    branches: {true: done, false: failed}",
            "needs `condition`",
        ),
        (
            "  c:\n    type: conditional\n    condition: {type: config_exists}\n    branches: {true: done}",
            "`branches` needs `false`",
        ),
        (
            "  c:\n    type: validation_gate\n    validations: []\n    on_valid: done\n    on_invalid: failed",
            "non-empty `validations`",
        ),
        (
            "  c:\n    type: validation_gate\n    validations: [{type: config_exists}]\n    on_valid: done",
            "needs `on_invalid`",
        ),
        (
            "  c:\n    type: reference\n    next_node: done",
            "needs `doc`",
        ),
        (
            "  c:\n    type: user_prompt\n    on_response: {a: {next_node: done}}",
            "needs `prompt`",
        ),
        (
            "  c:\n    type: user_prompt\n    prompt: {question: q, options: [{id: a, label: A}, {id: b, label: B}]}\n    on_response: {z: {next_node: done}}",
            "response `z` matches no option of `c`: expected one of a, b or `default`",
        ),
        (
            "  c:\n    type: user_prompt\n    prompt: {question: q, options: [{id: a, label: A}, {id: b, label: B}]}\n    on_response: {a: {consequence: [{type: clone_repo}], next_node: done}}",
            "only an action node can wait for it",
        ),
        (
            "  c:\n    type: user_prompt\n    prompt: {question: q, options: [{id: a}]}\n    on_response: {a: {next_node: done}}",
            "needs a `label`",
        ),
    ];
    for (node, needle) in cases {
        let e = load_err(&wf("c", node));
        assert!(
            e.message.contains(needle) && e.line > 0,
            "{e} should say {needle:?}"
        );
    }
}

/// Lint codes, leaving out the unreachable `failed` ending most of these small files have.
fn lint_codes(yaml: &str) -> Vec<String> {
    let lints = load(yaml).warnings;
    lints
        .iter()
        .filter(|l| !l.message.contains("`failed`"))
        .map(|l| l.code.clone())
        .collect()
}

#[test]
fn lints_cover_paths_schema_and_texts() {
    // Path coverage: an orphan node; a node that can never finish.
    // An orphan node of two steps is one finding, the engine's (which every dialect gets):
    // the node, not each step, and not again as a dialect lint.
    let orphan = wf(
        "a",
        &format!(
            "{ACTION}\n  b:\n    type: action\n    actions: [{{type: git_pull}}, {{type: git_fetch}}]\n    on_success: done"
        ),
    );
    assert!(lint_codes(&orphan).is_empty(), "{:?}", lint_codes(&orphan));
    let loaded = load(&orphan);
    let mut all = loaded.warnings.clone();
    all.extend(Machine::new(loaded.chart).lint());
    let about_b: Vec<String> = all
        .iter()
        .filter(|l| l.message.contains("`b"))
        .map(|l| format!("{}: {}", l.code, l.message))
        .collect();
    assert_eq!(about_b, ["unreachable: state `b` can never be entered"]);
    let trapped = wf(
        "a",
        "  a:\n    type: action\n    actions: [{type: git_pull}]\n    on_success: b\n  b:\n    type: action\n    actions: [{type: git_fetch}]\n    on_success: a",
    );
    let lints = load(&trapped).warnings;
    assert!(
        lints
            .iter()
            .any(|l| l.code == "workflow-no-ending" && l.severity == Severity::Error),
        "{lints:?}"
    );
    // Loops of eventless moves only.
    let spin = wf(
        "a",
        "  a:\n    type: conditional\n    condition: {type: flag_set, flag: f}\n    branches: {true: done, false: b}\n  b:\n    type: action\n    actions: [{type: note, message: again}]\n    on_success: a",
    );
    assert!(lint_codes(&spin).contains(&"workflow-eventless-loop".to_string()));
    // `${var}` naming nothing.
    let text = wf(
        "a",
        &ACTION.replace("clone_repo", "clone_repo\n        url: \"${repo_url}\""),
    );
    let lints = load(&text).warnings;
    assert_eq!(codes(&lints), ["workflow-unknown-variable"]);
    let span = lints[0].span.unwrap();
    assert_eq!((span.line, span.col), (8, 15));
    // `${var}` reading a variable that starts as null and that nothing sets: the call (here a
    // clone's URL) would never have it. Once something stores it, no finding.
    let never = wf(
        "a",
        &ACTION.replace("clone_repo", "clone_repo\n        url: \"${repo_url}\""),
    )
    .replace(
        "start_node:",
        "initial_state:\n  repo_url: null\nstart_node:",
    );
    let lints = load(&never).warnings;
    assert_eq!(codes(&lints), ["workflow-never-written"]);
    assert!(
        lints[0].message.contains("`repo_url`"),
        "{}",
        lints[0].message
    );
    let stored = never.replace(
        "      - type: clone_repo",
        "      - type: web_fetch\n        store_as: repo_url\n      - type: clone_repo",
    );
    assert!(codes(&load(&stored).warnings).is_empty());
    // Keys a node type does not use, an on_failure that cannot happen.
    let stray = wf(
        "a",
        "  a:\n    type: action\n    actions: [{type: note, message: hi}]\n    branches: {true: done, false: done}\n    on_success: done\n    on_failure: failed",
    );
    assert_eq!(
        lint_codes(&stray),
        ["workflow-unused-key", "workflow-unused-key"]
    );
    // Prompts: AskUserQuestion shows 2 to 4 options; an option without a handler waits forever.
    let prompt = wf(
        "p",
        "  p:\n    type: user_prompt\n    prompt: {question: q, options: [{id: a, label: A}]}\n    on_response: {a: {next_node: done}}",
    );
    assert_eq!(lint_codes(&prompt), ["workflow-prompt-options"]);
    let unhandled = wf(
        "p",
        "  p:\n    type: user_prompt\n    prompt: {question: q, options: [{id: a, label: A}, {id: b, label: B}]}\n    on_response: {a: {next_node: done}}",
    );
    assert_eq!(lint_codes(&unhandled), ["workflow-unhandled-option"]);
}

#[test]
fn engine_lints_see_workflow_charts_whole() {
    // An initial choice on readers: every branch is reachable whatever the facts at lint time.
    let gated = wf("a", ACTION).replace(
        "start_node:",
        "entry_preconditions: [{type: config_exists}]\nstart_node:",
    );
    let lints = Machine::new(load(&gated).chart).lint();
    assert!(lints.iter().all(|l| l.code != "unreachable"), "{lints:?}");
    // A flag nobody declares or sets.
    let unset = cond("      type: flag_set\n      flag: ghost");
    let lints = Machine::new(load(&unset).chart).lint();
    assert!(
        lints.iter().any(|l| l.code == "undefined-flag"),
        "{lints:?}"
    );
    // The shipped workflow is clean.
    let shipped = seed::dialects::builtin("hiivmind_add_source")
        .unwrap()
        .unwrap();
    assert!(shipped.warnings.is_empty(), "{:?}", shipped.warnings);
    assert!(Machine::new(shipped.chart).lint().is_empty());
}

fn quick<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "{what} took {:?}",
        t.elapsed()
    );
    out
}

#[test]
fn hostile_yaml_fails_fast_with_a_clear_error() {
    let mut laughs =
        String::from("name: t\ninitial_state:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..8 {
        let refs = vec![format!("*l{}", i - 1); 10].join(", ");
        laughs.push_str(&format!("  l{i}: &l{i} [{refs}]\n"));
    }
    let e = quick("alias bomb", || load_err(&laughs));
    assert!(e.message.contains("alias"), "{e}");
    let deep_flow = format!(
        "name: t\ninitial_state:\n  x: {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let e = quick("deep flow nesting", || load_err(&deep_flow));
    assert!(e.message.contains("nested deeper than 32 levels"), "{e}");
    let mut deep_block = String::from(
        "name: t\nstart_node: a\nnodes:\n  a:\n    type: conditional\n    condition:\n",
    );
    for i in 0..200 {
        let pad = " ".repeat(6 + 4 * i);
        deep_block.push_str(&format!("{pad}type: all_of\n{pad}conditions:\n{pad}  -\n"));
    }
    let e = quick("deep block nesting", || load_err(&deep_block));
    assert!(e.message.contains("too deeply nested"), "{e}");
    let long_expr = cond(&format!(
        "      type: evaluate_expression\n      expression: \"{}\"",
        "(".repeat(5000)
    ));
    let e = quick("long expression", || load_err(&long_expr));
    assert!(e.message.contains("longer than 4096"), "{e}");
    let nested_expr = cond(&format!(
        "      type: evaluate_expression\n      expression: \"{}x{}\"",
        "(".repeat(70),
        ")".repeat(70)
    ));
    assert!(
        load_err(&nested_expr)
            .message
            .contains("nested deeper than 64")
    );
    for junk in [
        "\u{0}\u{1}\u{2}",
        "name: \"\\ud800\"",
        "\u{feff}name: [}",
        "{{{{",
        "name: t\nnodes: !!binary aGVsbG8=\n",
    ] {
        assert!(try_load(junk).is_err(), "{junk:?}");
    }
}

fn chain(n: usize) -> String {
    let mut s = String::from("name: huge\nstart_node: n0\nnodes:\n");
    for i in 0..n {
        let next = if i + 1 == n {
            "done".to_string()
        } else {
            format!("n{}", i + 1)
        };
        s.push_str(&format!(
            "  n{i}: {{type: action, actions: [{{type: git_pull}}], on_success: {next}}}\n"
        ));
    }
    s + "endings:\n  done: {type: success}\n"
}

#[test]
fn huge_workflows_load_or_fail_clearly() {
    // 50,000 nodes are ~550,000 YAML nodes: the parser's budget stops them early.
    let e = quick("50k nodes", || load_err(&chain(50_000)));
    assert!(e.line > 4 && e.message.contains("too large"), "{e}");
    let e = quick("2,001 nodes", || load_err(&chain(2_001)));
    assert_eq!((e.line, e.col), (4, 3));
    assert!(
        e.message
            .contains("2002 nodes and endings: a workflow may have at most 2000"),
        "{e}"
    );
    let loaded = quick("1,500 nodes", || load(&chain(1_500)));
    assert_eq!(loaded.chart.states.len(), 1 + 1_500 + 1);
    let big_text = wf("a", ACTION).replace(
        "name: t",
        &format!("name: t\ndescription: \"{}\"", "x".repeat(1 << 20)),
    );
    assert_eq!(load(&big_text).chart.description.len(), 1 << 20);
}
