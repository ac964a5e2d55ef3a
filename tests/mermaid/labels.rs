//! The label mini-language `trigger [guard] / action` and the annotations of state labels.

use seed::dialects::mermaid::annotations::{Annotations, annotate, split_rows};
use seed::dialects::mermaid::label::{Label, parse};
use seed::engine::ir::{Action, CmpOp, Guard};
use serde_json::json;

fn ok(s: &str) -> Label {
    parse(s).unwrap_or_else(|e| panic!("{s}: {e:?}"))
}

#[test]
fn triggers_are_event_names_not_prose() {
    for (text, pattern) in [
        ("starlog.orient", "starlog.orient"),
        (
            "skill:hope:intent | /hope:intent",
            "skill:hope:intent|/hope:intent",
        ),
        ("hope:intent", "hope:intent"),
        ("Stop", "lifecycle:Stop"),
        ("UserPromptSubmit", "prompt:*|/*"),
        (
            "mcp__*__odyssean_anchor(stage=init)",
            "*.odyssean_anchor(/stage=init)",
        ),
        ("Bash(git clone*)", "Bash(/command=git clone*)"),
        ("prompt:*proceed anyway*", "prompt:*proceed anyway*"),
        ("heaven-subagent.*", "heaven-subagent.*"),
    ] {
        assert_eq!(
            ok(text).trigger.map(|p| p.to_string()).as_deref(),
            Some(pattern),
            "{text}"
        );
    }
    for prose in [
        "Yes",
        "all items done",
        "≥ 8",
        "retry (max 3)",
        "Edit (re-shape)",
        "start() validated",
        "done.",
    ] {
        let e = parse(prose).expect_err(prose);
        assert!(
            e.message.contains("not an event name") || e.message.contains("expected"),
            "{prose}: {e:?}"
        );
    }
}

#[test]
fn guards_and_else() {
    assert!(ok("[else]").is_else);
    let l = ok("[!flag blocked && (score >= 8 || reader(status) == active)]");
    let g = l.guard.expect("guard");
    let mut none =
        |_: &str| -> Result<seed::engine::ir::StateId, String> { Err("no states".into()) };
    let Guard::All { of } = g.to_guard(&mut none).expect("converts") else {
        panic!("all")
    };
    assert!(matches!(&of[0], Guard::Not { .. }));
    let Guard::Any { of: any } = &of[1] else {
        panic!("any")
    };
    assert_eq!(
        any[0],
        Guard::Var {
            name: "score".into(),
            op: CmpOp::Ge,
            value: json!(8.0)
        }
    );
    assert_eq!(
        any[1],
        Guard::Reader {
            name: "status".into(),
            op: CmpOp::Eq,
            value: json!("active")
        }
    );
    let l = ok("[reader(blueprint) != {} && x ≥ 2 && tier == 'FULL' && input.stage == \"init\"]");
    let mut none = |_: &str| -> Result<seed::engine::ir::StateId, String> { Err("none".into()) };
    let Guard::All { of } = l.guard.expect("g").to_guard(&mut none).expect("ok") else {
        panic!()
    };
    assert_eq!(
        of[0],
        Guard::Reader {
            name: "blueprint".into(),
            op: CmpOp::Ne,
            value: json!({})
        }
    );
    assert!(matches!(of[3], Guard::Input { .. }));
    assert!(
        ok("[in(Review)]")
            .guard
            .expect("g")
            .to_guard(&mut none)
            .is_err(),
        "unknown state"
    );
    for bad in ["[", "[flag]", "[x ==]", "[a && ]", "[(a]", "[]", "[\"open]"] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn actions() {
    let l = ok(
        "Bash / set flag built, clear flag dirty, tier = input.tier, n = 3, mode = fast, note done, with commas",
    );
    assert_eq!(
        l.actions,
        vec![
            Action::SetFlag {
                name: "built".into(),
                value: true
            },
            Action::SetFlag {
                name: "dirty".into(),
                value: false
            },
            Action::SetVarFromInput {
                name: "tier".into(),
                pointer: "/tier".into()
            },
            Action::SetVar {
                name: "n".into(),
                value: json!(3)
            },
            Action::SetVar {
                name: "mode".into(),
                value: json!("fast")
            },
            Action::Note {
                text: "done, with commas".into()
            },
        ]
    );
    assert_eq!(ok("/ note only actions").actions.len(), 1);
    assert!(ok("/ note only actions").trigger.is_none());
    let e = parse("Bash / launch rockets").expect_err("not an action");
    assert_eq!(e.col, 7);
    assert!(parse("Bash [flag x] trailing").is_err());
}

#[test]
fn state_label_annotations() {
    let mut a = Annotations::default();
    for row in split_rows(
        "Orient\\nstarlog.orient<br>allow: Read, Grep<BR/>deny: Write\\nband: base\\nweight: 0.5\\nrecovery: call orient\\nfree text",
    ) {
        annotate(&row, &mut a, true).expect("valid");
    }
    assert_eq!(a.notes, vec!["Orient".to_string(), "free text".to_string()]);
    assert_eq!(
        a.activity.map(|(p, _)| p.to_string()).as_deref(),
        Some("starlog.orient")
    );
    assert_eq!((a.allow.len(), a.deny.len()), (2, 1));
    assert_eq!((a.band.as_deref(), a.weight), (Some("base"), Some(0.5)));
    assert_eq!(a.recovery.as_deref(), Some("call orient"));
    let mut n = Annotations::default();
    annotate("Bash", &mut n, false).expect("note");
    assert!(n.activity.is_none(), "notes have no bare-token activities");
    assert!(annotate("weight: -1", &mut n, true).is_err());
}

/// A guard's canonical text reads as the guard it came from.
mod guard_text {
    use proptest::prelude::*;
    use seed::dialects::mermaid::guard_expr::parse;
    use seed::engine::ir::StateId;

    fn guard_text() -> impl Strategy<Value = String> {
        let name = prop::sample::select(vec!["ready", "score", "tier", "input.stage", "x_1"]);
        let value = prop::sample::select(vec![
            "8", "-2.5", "'FULL'", "\"a b\"", "active", "[]", "{}", "null",
        ]);
        let op = prop::sample::select(vec!["==", "!=", "<", ">=", "≥", "contains"]);
        let leaf = prop_oneof![
            name.clone().prop_map(String::from),
            name.clone().prop_map(|n| format!("flag {n}")),
            prop::sample::select(vec!["in(Review)", "in(\"Deep.Done\")"]).prop_map(String::from),
            (name, op.clone(), value.clone()).prop_map(|(n, o, v)| format!("{n} {o} {v}")),
            (op, value).prop_map(|(o, v)| format!("reader(status) {o} {v}")),
        ];
        leaf.prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                inner.clone().prop_map(|e| format!("!({e})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) || ({b})")),
            ]
        })
    }

    fn states(name: &str) -> Result<StateId, String> {
        Err(format!("no state {name}"))
    }

    proptest! {
        #[test]
        fn canonical_guard_text_parses_back_to_the_same_guard(src in guard_text()) {
            let g = parse(&src).expect("generated guards are valid");
            let canon = g.to_string();
            let again = parse(&canon).expect("canonical text parses");
            prop_assert_eq!(again.to_string(), canon.clone());
            prop_assert_eq!(again.to_guard(&mut states), g.to_guard(&mut states), "{}", canon);
        }

        #[test]
        fn any_label_text_is_parsed_or_refused_without_panicking(src in "\\PC{0,200}") {
            let _ = seed::dialects::mermaid::label::parse(&src);
            let _ = parse(&src);
        }
    }
}

/// The guards and actions the everyday sequences read: a call's result, a list variable's
/// entries, and the per-file memory.
#[test]
fn results_lists_and_remembered_values() {
    let mut none =
        |_: &str| -> Result<seed::engine::ir::StateId, String> { Err("no states".into()) };
    let l = ok(r#"Bash [input.command in test_commands && !(result contains "FAIL")]"#);
    assert_eq!(
        l.guard.expect("guard").to_guard(&mut none).unwrap(),
        Guard::All {
            of: vec![
                Guard::InList {
                    pointer: "/command".into(),
                    var: "test_commands".into()
                },
                Guard::Not {
                    guard: Box::new(Guard::Result {
                        pointer: String::new(),
                        op: CmpOp::Contains,
                        value: json!("FAIL")
                    })
                }
            ]
        }
    );
    let l = ok(r#"Bash [result.stdout == ""]"#);
    assert_eq!(
        l.guard.expect("guard").to_guard(&mut none).unwrap(),
        Guard::Result {
            pointer: "/stdout".into(),
            op: CmpOp::Eq,
            value: json!("")
        }
    );
    let l = ok("Grep / seen += input.path, seen += result.filenames");
    assert_eq!(
        l.actions,
        vec![
            Action::Remember {
                name: "seen".into(),
                from: seed::engine::ir::ResultPart::Input,
                pointer: "/path".into()
            },
            Action::Remember {
                name: "seen".into(),
                from: seed::engine::ir::ResultPart::Response,
                pointer: "/filenames".into()
            },
        ]
    );
    for (bad, says) in [
        ("Bash [result]", "reads the call's result: compare it"),
        (
            "Bash [input.command in]",
            "expected a list variable's name after `in`",
        ),
        (
            "Bash [input.command in \"x\"]",
            "expected a list variable's name after `in`",
        ),
        (
            "Read / seen += file_path",
            "expected `input.field` or `result.field`",
        ),
        ("Read / seen += input.", "is not a field path"),
        ("Read / 9x += input.a", "is not a variable name"),
    ] {
        let e = parse(bad).expect_err(bad);
        assert!(e.message.contains(says), "{bad}: {e:?}");
    }
}
