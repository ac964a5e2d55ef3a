//! The JSON guards of the master dialect (a constraint's `when`): every form the engine
//! evaluates, and mistakes refused at their line and column instead of read as something else.

use crate::support::walk as common;

use common::Walk;
use seed::dialects::load_text;
use seed::engine::{Decision, Machine};
use serde_json::json;

fn none(_: &str) -> Option<String> {
    None
}

/// A sequence whose one constraint has the given `when` (on line 6, from column 13).
fn with_when(when: &str) -> String {
    format!(
        "{{\n  \"name\": \"g\",\n  \"tool_transitions\": {{ \"s.a\": {{ \"next_allowed\": [\"s.b\"] }}, \"s.b\": {{ \"next_allowed\": [\"s.c\"] }} }},\n  \"state_readers\": {{ \"r\": \"exists:${{HOME}}/x\" }},\n  \"state_constraints\": {{ \"c\": {{\n    \"when\": {when},\n    \"disallowed_tools\": [\"Write\"]\n  }} }},\n  \"neutral_tools\": [\"Write\"],\n  \"progress_layers\": {{ \"early\": {{ \"range\": [0, 50], \"steps\": [\"s.a\"] }}, \"late\": [50, 100] }}\n}}"
    )
}

fn error(when: &str) -> (u32, u32, String) {
    let e = load_text("g.json", &with_when(when), &none).unwrap_err();
    (e.line, e.col, e.message)
}

#[test]
fn a_misspelt_key_is_an_error_at_the_key() {
    // `vlaue` would have compared the reader with `true`.
    let (line, col, msg) = error(r#"{ "reader": "r", "vlaue": "active" }"#);
    assert_eq!((line, col), (6, 30), "{msg}");
    assert_eq!(
        msg,
        "`when` of `c`: unknown key `vlaue` in a `reader` guard: it takes op and value"
    );
    // Inside a combinator, at the key itself.
    let (line, col, msg) =
        error(r#"{ "all": [{ "flag": "f" }, { "reader": "r", "value": 1, "opp": "!=" }] }"#);
    assert_eq!((line, col), (6, 69), "{msg}");
    assert!(
        msg.contains("unknown key `opp` in a `reader` guard"),
        "{msg}"
    );
    let (_, _, msg) = error(r#"{ "flag": "f", "value": true }"#);
    assert!(
        msg.ends_with("unknown key `value` in a `flag` guard: it takes nothing else"),
        "{msg}"
    );
}

#[test]
fn one_object_is_one_guard() {
    // `all` and `any` side by side: one of them would be dropped without a word.
    let (line, col, msg) = error(r#"{ "all": [{ "flag": "f" }], "any": [{ "flag": "g" }] }"#);
    assert_eq!((line, col), (6, 41), "at the second form: {msg}");
    assert!(
        msg.contains("a guard is one form: `all` and `any` in one object"),
        "{msg}"
    );
    let (_, _, msg) = error(r#"{ "reader": "r", "flag": "f" }"#);
    assert!(msg.contains("`flag` and `reader`"), "{msg}");
    let (line, col, msg) = error(r#"{ "when": 1 }"#);
    assert_eq!((line, col), (6, 15), "{msg}");
    assert!(msg.contains("a guard needs one of all, any, not"), "{msg}");
    let (_, _, msg) = error(r#"[1]"#);
    assert!(msg.contains("a guard must be an object"), "{msg}");
    let (_, _, msg) = error(r#"{ "reader": "r", "op": "~" }"#);
    assert!(msg.contains("unknown operator \"~\""), "{msg}");
    let (_, _, msg) = error(r#"{ "in": 3 }"#);
    assert!(msg.contains("`in` must be a step"), "{msg}");
    let (_, _, msg) = error(r#"{ "in": "nowhere" }"#);
    assert!(
        msg.contains(
            "`in` names `nowhere`, which is neither a tool of tool_transitions nor a layer"
        ),
        "{msg}"
    );
}

fn walk(when: &str) -> Walk {
    let loaded = load_text("g.json", &with_when(when), &none).expect("loads");
    Walk::new(Machine::new(loaded.chart))
}

#[test]
fn in_names_a_step_or_a_layer() {
    // At step `s.a`: the constraint applies there only.
    let mut w = walk(r#"{ "in": "s.a" }"#);
    assert_eq!(w.gate("Write").decision, Decision::Allow, "at the start");
    w.call("mcp__s__a");
    assert_eq!(w.gate("Write").decision, Decision::Deny, "at s.a");
    w.call("mcp__s__b");
    assert_eq!(w.gate("Write").decision, Decision::Allow, "at s.b");

    // In layer `late` (s.b and s.c): from the second step on.
    let mut w = walk(r#"{ "all": [{ "in": "late" }, { "not": { "reader": "r" } }] }"#);
    w.call("mcp__s__a");
    assert_eq!(w.gate("Write").decision, Decision::Allow, "in `early`");
    w.call("mcp__s__b");
    assert_eq!(w.gate("Write").decision, Decision::Deny, "in `late`");
    w.fact("r", json!(true));
    assert_eq!(
        w.gate("Write").decision,
        Decision::Allow,
        "the reader lifts it"
    );
}

#[test]
fn input_matches_a_pointer_into_the_call() {
    // A call whose input matches: a glob for a string, equality otherwise, presence alone.
    for (when, denied, allowed) in [
        (
            r#"{ "input": "/file_path", "value": "*.env" }"#,
            json!({"file_path": "app/.env"}),
            json!({"file_path": "src/main.rs"}),
        ),
        (
            r#"{ "input": "limit", "value": 3 }"#,
            json!({"limit": 3}),
            json!({"limit": 4}),
        ),
        (
            r#"{ "input": "/force" }"#,
            json!({"force": false}),
            json!({"file_path": "x"}),
        ),
    ] {
        let mut w = walk(when);
        assert_eq!(
            w.gate_with("Write", denied.clone()).decision,
            Decision::Deny,
            "{when} {denied}"
        );
        assert_eq!(
            w.gate_with("Write", allowed.clone()).decision,
            Decision::Allow,
            "{when} {allowed}"
        );
    }
}

#[test]
fn every_guard_form_loads() {
    for when in [
        r#"{ "reader": "r", "op": "!=", "value": "x" }"#,
        r#"{ "var": "v", "op": ">=", "value": 2 }"#,
        r#"{ "flag": "f" }"#,
        r#"{ "file_exists": "${HOME}/y" }"#,
        r#"{ "not": { "in": "s.b" } }"#,
        r#"{ "any": [{ "in": "early" }, { "input": "/x" }] }"#,
    ] {
        load_text("g.json", &with_when(when), &none).unwrap_or_else(|e| panic!("{when}: {e}"));
    }
}

/// `all` of nothing always holds and `any` of nothing never does: refused where written, not
/// reported later as a guard that "never holds" for no reason.
#[test]
fn an_empty_combinator_is_an_error_at_its_key() {
    let (line, col, msg) = error(r#"{ "any": [] }"#);
    assert_eq!((line, col), (6, 15), "{msg}");
    assert_eq!(msg, "`when` of `c`: `any` must list at least one guard");
    let (line, col, msg) = error(r#"{ "not": { "all": [] } }"#);
    assert_eq!((line, col), (6, 24), "{msg}");
    assert_eq!(msg, "`when` of `c`: `all` must list at least one guard");
}
