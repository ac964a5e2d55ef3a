//! `seed validate` on transitions that never fire: a choice branch after one with no
//! condition (or the same one), a guard wanting a value nothing ever gives its variable or
//! flag, a `[false]` edge; the states only they lead to are reported unreachable, with why.

use crate::support::mermaid as mermaid_common;

use mermaid_common::diagram::load;
use seed::dialects::load_text;
use seed::engine::Machine;
use seed::engine::build::ChartBuilder;
use seed::engine::ir::{Dialect, Guard, StateId, StateKind, Transition, Trigger};
use seed::engine::lint::Lint;

fn lint(text: &str) -> Vec<Lint> {
    Machine::new(load(text).chart).lint()
}

fn with<'a>(lints: &'a [Lint], code: &str) -> Vec<&'a str> {
    lints
        .iter()
        .filter(|l| l.code == code)
        .map(|l| l.message.as_str())
        .collect()
}

#[test]
fn a_branch_after_one_with_no_condition_is_shadowed_and_its_target_unreachable() {
    let lints = lint(
        "stateDiagram-v2\n  [*] --> ask\n  state pick <<choice>>\n  ask --> pick : Bash\n  pick --> team : Team\n  pick --> solo : Subagent or Solo\n  team --> [*] : Edit\n  solo --> [*] : Write\n",
    );
    assert_eq!(
        with(&lints, "shadowed"),
        [
            "choice `pick`: the branch `pick → solo` is never taken: `pick → team` before it has no condition"
        ]
    );
    let unreachable = with(&lints, "unreachable");
    assert_eq!(unreachable.len(), 1, "{unreachable:?}");
    assert!(
        unreachable[0].starts_with("state `solo` can never be entered: `pick → solo` never fires"),
        "{}",
        unreachable[0]
    );
    // At the shadowed edge's line.
    let at = lints
        .iter()
        .find(|l| l.code == "shadowed")
        .and_then(|l| l.span);
    assert_eq!(at.map(|s| s.line), Some(6));
}

#[test]
fn a_branch_with_the_same_condition_as_an_earlier_one_is_shadowed() {
    let lints = lint(
        "stateDiagram-v2\n  [*] --> ask\n  state pick <<choice>>\n  ask --> pick : Bash / mode = \"a\"\n  pick --> one : [mode == \"a\"]\n  pick --> two : [mode == \"a\"]\n  pick --> three : [else]\n  one --> [*] : Edit\n  two --> [*] : Edit\n  three --> [*] : Edit\n",
    );
    assert_eq!(
        with(&lints, "shadowed"),
        [
            "choice `pick`: the branch `pick → two` is never taken: `pick → one` before it has the same condition"
        ]
    );
}

#[test]
fn a_guard_no_value_of_its_variable_satisfies_never_holds() {
    let lints = lint(
        "stateDiagram-v2\n  [*] --> ask\n  state pick <<choice>>\n  ask --> pick : Bash / mode = \"panel\"\n  ask --> pick : Grep / mode = \"single\"\n  pick --> explore : [mode == \"explore\"]\n  pick --> other : [else]\n  explore --> [*] : Edit\n  other --> [*] : Edit\n",
    );
    let impossible = with(&lints, "impossible-guard");
    assert_eq!(impossible.len(), 1, "{impossible:?}");
    assert!(
        impossible[0].contains("nothing gives `mode` the value \"explore\"")
            && impossible[0].contains("\"panel\", \"single\""),
        "{}",
        impossible[0]
    );
    assert!(
        with(&lints, "unreachable")
            .iter()
            .any(|m| m.starts_with("state `explore` can never be entered")),
        "{lints:?}"
    );
    // A value from the call's input could be anything: no finding.
    let lints = lint(
        "stateDiagram-v2\n  [*] --> ask\n  state pick <<choice>>\n  ask --> pick : Bash / mode = input.mode\n  pick --> explore : [mode == \"explore\"]\n  pick --> other : [else]\n  explore --> [*] : Edit\n  other --> [*] : Edit\n",
    );
    assert!(with(&lints, "impossible-guard").is_empty(), "{lints:?}");
    assert!(with(&lints, "unreachable").is_empty(), "{lints:?}");
}

#[test]
fn a_flag_that_is_never_set_or_never_cleared() {
    let manifest = |flags: &str| {
        let text = format!("name = \"f\"\ndiagram = \"d.mmd\"\n[flags]\n{flags}\n");
        let l = load_text("f.toml", &text, &|_| {
            Some("stateDiagram-v2\n  [*] --> a\n  a --> b : Bash [flag ready]\n  a --> c : Edit [!flag ready]\n  b --> [*]\n  c --> [*]\n".into())
        })
        .unwrap_or_else(|e| panic!("{e}"));
        Machine::new(l.chart).lint()
    };
    let lints = manifest("ready = false");
    assert_eq!(
        with(&lints, "impossible-guard"),
        ["the guard of `a → b` never holds: flag `ready` is never set"]
    );
    let lints = manifest("ready = true");
    assert_eq!(
        with(&lints, "impossible-guard"),
        ["the guard of `a → c` never holds: flag `ready` is always set"]
    );
}

#[test]
fn a_switched_off_edge_reports_what_it_leaves_unreachable_and_why() {
    let text = "name = \"f\"\ndiagram = \"d.mmd\"\n[[edge]]\nfrom = \"a\"\nto = \"b\"\nlabel = \"[false]\"\nwhy = \"the score is the model's\"\n[[policy]]\nwhen = \"mode == \\\"x\\\"\"\ndeny = [\"Write\"]\n[vars]\nmode = \"y\"\n";
    let l = load_text("f.toml", text, &|_| {
        Some("stateDiagram-v2\n  [*] --> a\n  a --> b : scored\n  a --> c : Edit\n  b --> [*]\n  c --> [*]\n".into())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let lints = Machine::new(l.chart).lint();
    assert_eq!(
        with(&lints, "unreachable"),
        ["state `b` can never be entered: `a → b` is switched off: the score is the model's"]
    );
    // A policy whose `when` never holds never applies.
    assert_eq!(
        with(&lints, "impossible-guard"),
        [
            "a policy of `f` never applies: its `when` never holds: nothing gives `mode` the value \"x\" (it is only ever \"y\")"
        ]
    );
}

#[test]
fn a_choice_with_guarded_branches_and_a_default_has_no_finding() {
    let lints = lint(
        "stateDiagram-v2\n  [*] --> ask\n  state pick <<choice>>\n  ask --> pick : Bash / mode = input.m\n  pick --> one : [mode == \"a\"]\n  pick --> two : [mode == \"b\"]\n  pick --> three : [else]\n  one --> [*] : Edit\n  two --> [*] : Edit\n  three --> [*] : Edit\n",
    );
    for code in ["shadowed", "impossible-guard", "unreachable"] {
        assert!(with(&lints, code).is_empty(), "{code}: {lints:?}");
    }
}

/// A choice `C` after `x.pick` with one branch per guard.
fn choice_with(guards: &[&str]) -> String {
    let mut text = String::from(
        "stateDiagram-v2\n  [*] --> A\n  state C <<choice>>\n  A --> C : x.pick / set flag ready, set flag b, n = input.n\n",
    );
    for (i, g) in guards.iter().enumerate() {
        text.push_str(&format!("  C --> D{i} : [{g}]\n  D{i} --> [*] : x.d{i}\n"));
    }
    text
}

#[test]
fn a_choice_whose_guards_cover_every_case_has_a_default_in_effect() {
    for guards in [
        &["flag ready", "!flag ready"][..],
        &["!flag ready", "flag ready"],
        &["n == \"1\"", "n != \"1\""],
        &["flag ready && flag b", "!flag ready", "!flag b"],
        &["flag ready || flag b", "!(flag ready || flag b)"],
        &["true"],
    ] {
        let lints = lint(&choice_with(guards));
        assert!(
            with(&lints, "choice-without-default").is_empty(),
            "{guards:?}: {lints:?}"
        );
    }
    for guards in [
        &["flag ready", "n >= 8"][..],
        &["flag ready && flag b", "!flag ready"],
        // An unset `n` is neither: both comparisons are false, and the choice raises.
        &["n >= 8", "n < 8"],
    ] {
        let lints = lint(&choice_with(guards));
        assert_eq!(
            with(&lints, "choice-without-default"),
            ["choice `C` has no default branch: when no guard holds it raises error.choice"],
            "{guards:?}"
        );
    }
}

#[test]
fn the_engine_decides_coverage_from_the_guards_whatever_the_dialect() {
    let mut b = ChartBuilder::new("ir", Dialect::WorkflowYaml, false);
    let pick = b
        .add_state(StateId::ROOT, "pick", StateKind::Choice)
        .expect("unique");
    let flag = Guard::Flag {
        name: "ready".into(),
    };
    for (name, guard) in [
        ("yes", flag.clone()),
        (
            "no",
            Guard::Not {
                guard: Box::new(flag),
            },
        ),
    ] {
        let id = b
            .add_state(StateId::ROOT, name, StateKind::Atomic)
            .expect("unique");
        b.add_transition(Transition {
            source: pick,
            targets: vec![id],
            trigger: Trigger::Always,
            guard: Some(guard),
            actions: Vec::new(),
            label: None,
            span: None,
        });
    }
    let lints = Machine::new(b.finish().expect("builds")).lint();
    assert!(
        with(&lints, "choice-without-default").is_empty(),
        "{lints:?}"
    );
}
