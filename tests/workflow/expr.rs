//! The expression language of `evaluate` / `evaluate_expression`: parsed into typed guards,
//! never executed. Errors carry the character offset; parsing never panics; the canonical text
//! parses back to the same expression and the same guard.

use crate::support::workflow as workflow_common;

use proptest::prelude::*;
use seed::dialects::workflow::expr::{MAX_CHARS, compile, parse};
use seed::engine::ir::{CmpOp, Guard};
use serde_json::{Value, json};
use workflow_common::*;

fn is_flag(name: &str) -> bool {
    name == "ready"
}

fn g(src: &str) -> Guard {
    match compile(src, &is_flag) {
        Ok(g) => g,
        Err(e) => panic!("{src}: {e:?}"),
    }
}

fn var(name: &str, op: CmpOp, value: Value) -> Guard {
    Guard::Var {
        name: name.into(),
        op,
        value,
    }
}

fn not(g: Guard) -> Guard {
    Guard::Not { guard: Box::new(g) }
}

fn flag(name: &str) -> Guard {
    Guard::Flag { name: name.into() }
}

#[test]
fn comparisons_become_variable_and_count_guards() {
    let count = |name: &str, op: CmpOp, value: f64| Guard::Count {
        name: name.into(),
        op,
        value,
    };
    let cases: Vec<(&str, Guard)> = vec![
        ("n == 0", var("n", CmpOp::Eq, json!(0))),
        ("0 == n", var("n", CmpOp::Eq, json!(0))),
        (
            "source_count != 0",
            var("source_count", CmpOp::Ne, json!(0)),
        ),
        ("a >= 1.5", var("a", CmpOp::Ge, json!(1.5))),
        ("a < -2", var("a", CmpOp::Lt, json!(-2))),
        ("3 < a", var("a", CmpOp::Gt, json!(3))),
        ("name != 'it\\'s'", var("name", CmpOp::Ne, json!("it's"))),
        (
            "kind == \"llms-txt\"",
            var("kind", CmpOp::Eq, json!("llms-txt")),
        ),
        ("url == null", var("url", CmpOp::Eq, json!(null))),
        (
            "${source_url} != null",
            var("source_url", CmpOp::Ne, json!(null)),
        ),
        (
            "config.sources.0.id == 'react'",
            var("config.sources.0.id", CmpOp::Eq, json!("react")),
        ),
        (
            "tags contains \"rust\"",
            var("tags", CmpOp::Contains, json!("rust")),
        ),
        (
            "len(config.sources) == 0",
            count("config.sources", CmpOp::Eq, 0.0),
        ),
        ("2 <= len(xs)", count("xs", CmpOp::Ge, 2.0)),
        ("len(xs)", count("xs", CmpOp::Gt, 0.0)),
    ];
    for (src, guard) in cases {
        assert_eq!(g(src), guard, "{src}");
    }
}

#[test]
fn flags_truthiness_and_logic() {
    let set = |name: &str| Guard::All {
        of: vec![
            var(name, CmpOp::Ne, json!(null)),
            var(name, CmpOp::Ne, json!(false)),
        ],
    };
    let cases: Vec<(&str, Guard)> = vec![
        ("ready", flag("ready")),
        ("flags.other", flag("other")),
        ("!ready", not(flag("ready"))),
        ("not ready", not(flag("ready"))),
        ("ready == false", not(flag("ready"))),
        ("ready != false", flag("ready")),
        ("source_url", set("source_url")),
        ("true", Guard::True),
        ("false", not(Guard::True)),
        (
            "ready && n > 1 || !x",
            Guard::Any {
                of: vec![
                    Guard::All {
                        of: vec![flag("ready"), var("n", CmpOp::Gt, json!(1))],
                    },
                    not(set("x")),
                ],
            },
        ),
        (
            "ready and (a == 1 or not b)",
            Guard::All {
                of: vec![
                    flag("ready"),
                    Guard::Any {
                        of: vec![var("a", CmpOp::Eq, json!(1)), not(set("b"))],
                    },
                ],
            },
        ),
        (
            "a == 1 && b == 2 && c == 3",
            Guard::All {
                of: vec![
                    var("a", CmpOp::Eq, json!(1)),
                    var("b", CmpOp::Eq, json!(2)),
                    var("c", CmpOp::Eq, json!(3)),
                ],
            },
        ),
    ];
    for (src, guard) in cases {
        assert_eq!(g(src), guard, "{src}");
    }
}

#[test]
fn errors_name_the_offending_character() {
    let cases: Vec<(&str, usize, &str)> = vec![
        ("", 0, "empty expression"),
        ("   ", 0, "empty expression"),
        ("a ==", 4, "ends early"),
        ("a = 1", 2, "write `==`"),
        ("(a == 1", 7, "expected `)`"),
        ("a b", 2, "after a complete expression"),
        ("len(1)", 4, "takes a variable path"),
        ("len a", 4, "`(` after len"),
        ("1 == 2", 0, "comparing two literals"),
        ("a == b", 5, "comparing two variables"),
        ("'abc", 0, "unclosed string"),
        ("'\\q'", 1, "unknown escape"),
        ("a. == 1", 0, "not a variable path"),
        ("len(a) == 'x'", 10, "compares with a number"),
        ("ready > 1", 0, "compares only with == or !="),
        ("'x' contains a", 13, "needs the variable on its left"),
        ("a # b", 2, "unexpected `#`"),
        ("42", 0, "a literal alone is not a condition"),
        ("- a", 0, "must be followed by a number"),
        ("${unclosed", 0, "unclosed `${`"),
        ("1.2.3 == a", 0, "not a number"),
        ("a == ()", 6, "expected a value"),
    ];
    for (src, offset, needle) in cases {
        let e = compile(src, &is_flag).expect_err(src);
        assert_eq!(e.offset, offset, "{src}: {e:?}");
        assert!(
            e.message.contains(needle),
            "{src}: {e:?} should say {needle:?}"
        );
    }
}

#[test]
fn size_and_depth_are_bounded() {
    let long = format!("a == '{}'", "x".repeat(MAX_CHARS));
    assert!(
        compile(&long, &is_flag)
            .unwrap_err()
            .message
            .contains("longer than")
    );
    let deep = format!("{}a", "!".repeat(65));
    assert!(
        compile(&deep, &is_flag)
            .unwrap_err()
            .message
            .contains("nested deeper than 64")
    );
    let ok = format!("{}a{}", "(".repeat(60), ")".repeat(60));
    assert!(compile(&ok, &is_flag).is_ok());
    let wide = vec!["a == 1"; 300].join(" || ");
    assert!(
        matches!(g(&wide), Guard::Any { of } if of.len() == 300),
        "long chains stay flat"
    );
}

#[test]
fn canonical_text() {
    for (src, canon) in [
        ("a&&b||!c", "(a && b) || !c"),
        ("(a || b)&&c", "(a || b) && c"),
        ("len(x)>=2", "len(x) >= 2"),
        ("not (a == 'q\"')", "!(a == \"q\\\"\")"),
        ("${u} != null and ready", "u != null && ready"),
        ("a == (b == 1)", "a == (b == 1)"),
        ("a || b && c", "a || (b && c)"),
        ("-0.5 < a", "-0.5 < a"),
    ] {
        assert_eq!(parse(src).unwrap().to_string(), canon, "{src}");
    }
}

#[test]
fn compiled_guards_decide_branches_on_workflow_state() {
    let run = |expr: &str| {
        let cond = format!(
            "      type: evaluate_expression\n      expression: {}",
            Value::String(expr.into())
        );
        let yaml = wf("c", &format!("  c:\n    type: conditional\n    condition:\n{cond}\n    branches:\n      true: done\n      false: failed"))
            .replace("name: t\n", "name: t\ninitial_state:\n  n: 3\n  xs: [1, 2]\n  kind: git\n  config: {sources: []}\n  flags:\n    ready: true\n");
        Run::new(&yaml).here()
    };
    for (expr, at) in [
        ("n == 3 && ready", "done"),
        ("len(xs) > 2", "failed"),
        ("len(config.sources) == 0", "done"),
        ("kind == 'git' && !(n < 3)", "done"),
        ("xs contains 2", "done"),
        ("missing", "failed"),
        ("missing == null", "done"),
        ("'3' == n", "done"),
    ] {
        assert_eq!(run(expr), at, "{expr}");
    }
}

/// Valid expression text from the grammar.
fn expr_text() -> impl Strategy<Value = String> {
    let path = prop::sample::select(vec!["a", "b.c", "ready", "flags.f", "x_1.y.0", "${v}"]);
    let lit = prop::sample::select(vec![
        "1",
        "-2.5",
        "0",
        "'s'",
        "\"t\\\"q\"",
        "true",
        "null",
        "1e3",
    ]);
    let op = prop::sample::select(vec!["==", "!=", "<", "<=", ">", ">="]);
    let leaf = prop_oneof![
        path.clone().prop_map(String::from),
        (path.clone(), op.clone(), lit.clone()).prop_map(|(p, o, l)| format!("{p} {o} {l}")),
        (lit, op, path.clone()).prop_map(|(l, o, p)| format!("{l}{o}{p}")),
        path.prop_map(|p| format!("len({})", p.trim_start_matches("${").trim_end_matches('}'))),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|e| format!("!({e})")),
            inner.clone().prop_map(|e| format!("not {e}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) or ({b})")),
            inner.prop_map(|e| format!("( {e} )")),
        ]
    })
}

proptest! {
    #[test]
    fn parsing_any_text_never_panics(src in ".{0,200}") {
        let _ = compile(&src, &is_flag);
    }

    #[test]
    fn parsing_token_soup_never_panics(parts in prop::collection::vec(prop::sample::select(vec![
        "a", "len", "(", ")", "==", "!", "&&", "||", "'", "\"", "1", "-", "${", "}", ".", "contains", "null", " ", "=", "<", "\\",
    ]), 0..40)) {
        let _ = compile(&parts.concat(), &is_flag);
    }

    #[test]
    fn canonical_text_round_trips(src in expr_text()) {
        let e = parse(&src).expect("generated text is valid");
        let canon = e.to_string();
        let again = parse(&canon).expect("canonical text parses");
        prop_assert_eq!(again.to_string(), canon.clone());
        // Same meaning: both texts compile to the same guard (or to the same error).
        let g1 = compile(&src, &is_flag).map_err(|e| e.message);
        let g2 = compile(&canon, &is_flag).map_err(|e| e.message);
        prop_assert_eq!(g1, g2);
    }
}
