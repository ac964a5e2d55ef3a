//! The Mermaid dialect: how unlabelled and prose-labelled edges are read, the dialect's lints,
//! errors at `file:line:column`, huge input, and arbitrary input that must never panic.

use crate::support::mermaid as mermaid_common;

use mermaid_common::diagram::{error, from, lints, load, state, walk};
use seed::dialects::load_text;
use seed::engine::ir::Trigger;
use seed::engine::{Event, Facts, Machine, Phase};
use serde_json::json;

#[test]
fn prose_labels_are_documentation_and_never_make_an_edge_fire_by_itself() {
    let l = load(
        "stateDiagram-v2\n  [*] --> A\n  A --> B : user says Yes\n  B --> C : Edit (re-shape)\n",
    );
    let w = lints(&l, "unparsed-label");
    assert_eq!(w.len(), 2);
    assert_eq!(w[0].span.map(|s| (s.line, s.col)), Some((3, 13)));
    assert!(w[0].message.contains("never taken"), "{}", w[0].message);
    let ab = from(&l.chart, "A")[0];
    assert_eq!(ab.label.as_deref(), Some("user says Yes"));
    assert!(
        ab.guard.as_ref().is_some_and(|g| g.is_never()),
        "no activity on either side and no event in the label: never taken, not eventless"
    );
    assert_eq!(walk(&l, &[]), vec!["A"], "the sequence waits at A");
    // validate says why B is out of reach and that A has no way out.
    let found = Machine::new(l.chart.clone()).lint();
    let unreachable = found
        .iter()
        .find(|x| x.code == "unreachable" && x.message.contains("`B`"))
        .expect("B unreachable");
    assert!(
        unreachable
            .message
            .contains("`user says Yes` names no event"),
        "{}",
        unreachable.message
    );
    assert!(
        found
            .iter()
            .any(|x| x.code == "dead-end" && x.message.contains("`A`"))
    );
}

#[test]
fn a_prose_edge_fires_when_an_activity_is_bound_to_either_state() {
    let l = load(
        "stateDiagram-v2\n  state \"B\\ntool: Bash\" as B\n  [*] --> A\n  A --> B : when the tests pass\n  B --> [*]\n",
    );
    let w = lints(&l, "unparsed-label");
    assert!(
        w[0].message.contains("taken when `Bash` is observed"),
        "{}",
        w[0].message
    );
    assert_eq!(walk(&l, &[]), vec!["A"]);
    assert_eq!(walk(&l, &[Event::tool("Bash", json!({}))]), vec!["B"]);
}

#[test]
fn a_label_meant_as_the_mini_language_that_does_not_parse_is_an_error_at_its_column() {
    let line =
        |label: &str| format!("stateDiagram-v2\n  [*] --> A\n  A --> B : {label}\n  B --> [*]\n");
    // The label starts at column 13 of line 3.
    for (label, col, expected) in [
        ("x.go [a == ]", 24, "expected a value after the comparison"),
        ("x.go [[[", 18, "expected `]`"),
        (
            "x.go [flag a] extra",
            27,
            "expected `[guard]`, `/ actions` or the end",
        ),
        ("[flag a", 13, "expected `]`"),
        ("x.go / bogus", 20, "is not an action"),
        ("/ bogus", 15, "is not an action"),
        ("x.go | oops", 20, "`oops` is not an event name"),
        ("x.go oops", 18, "after `x.go`, found `oops`"),
        ("Yes [flag a]", 13, "`Yes` is not an event name"),
    ] {
        let e = error(&line(label));
        assert_eq!((e.line, e.col), (3, col), "{label}: {e}");
        assert!(e.message.contains(expected), "{label}: {e}");
        assert!(
            e.message.contains(&format!("label `{label}`")),
            "{label}: {e}"
        );
    }
    // Prose, `/` and parentheses included, stays documentation.
    for prose in [
        "user says Yes",
        "Build / Debug / Plan (spec ≥ 5, approach known)",
        "\"proceed anyway\" (max 3 rounds)",
        "Read the brief",
        "done.",
        "≥ 8",
    ] {
        let l = load(&line(prose));
        assert_eq!(lints(&l, "unparsed-label").len(), 1, "{prose}");
    }
}

#[test]
fn unlabelled_edges_read_by_their_source_and_target() {
    let l = load(
        "stateDiagram-v2\n  state \"Clarify\\ntool: AskUserQuestion\" as clarify\n  state \"Plan\\nTodoWrite\" as plan\n  [*] --> wait\n  wait --> clarify\n  clarify --> plan\n  plan --> idle\n  idle --> done\n  clarify --> clarify\n  done --> done\n",
    );
    let c = &l.chart;
    let t = |k: &str| {
        from(c, k)
            .into_iter()
            .find(|t| !t.targets.is_empty())
            .map(|t| t.trigger.clone())
    };
    // Target-triggered: wait has no activity, clarify's activity moves into it.
    assert!(format!("{:?}", t("wait")).contains("AskUserQuestion"));
    // Completion: clarify has an activity, observing it again completes it.
    assert!(format!("{:?}", t("clarify")).contains("AskUserQuestion"));
    assert!(format!("{:?}", t("plan")).contains("TodoWrite"));
    // Neither side has an activity: eventless.
    assert_eq!(t("idle"), Some(Trigger::Always));
    // A self-loop on a state with an activity is neutral (targetless).
    assert!(from(c, "clarify").iter().any(|t| t.targets.is_empty()));
    // One without a trigger or an activity could never wait: documentation only.
    assert_eq!(lints(&l, "eventless-self-loop").len(), 1);
    let ask = Event::tool("AskUserQuestion", json!({}));
    assert_eq!(walk(&l, std::slice::from_ref(&ask)), vec!["clarify"]);
    assert_eq!(walk(&l, &[ask.clone(), ask.clone()]), vec!["plan"]);
}

#[test]
fn states_without_a_way_out_end_their_scope() {
    let l = load(
        "stateDiagram-v2\n  [*] --> A\n  state A {\n    [*] --> leaf\n  }\n  A --> B : Bash\n  B --> C : Edit\n",
    );
    let w = lints(&l, "implicit-end");
    assert_eq!(w.len(), 2, "{:?}", l.warnings);
    assert!(state(&l.chart, "A.__final").is_final());
    assert_eq!(
        walk(
            &l,
            &[
                Event::tool("Bash", json!({})),
                Event::tool("Edit", json!({}))
            ]
        ),
        vec!["__final"]
    );
}

#[test]
fn unknown_stereotypes_and_eventless_loops_are_reported() {
    let l = load(
        "stateDiagram-v2\n  state X <<note>>\n  [*] --> A\n  A --> B\n  B --> A\n  A --> X : Bash\n",
    );
    assert_eq!(lints(&l, "unknown-stereotype").len(), 1);
    let loops = lints(&l, "eventless-loop");
    assert_eq!(loops.len(), 1);
    assert!(
        loops[0].message.contains("A → B → A"),
        "{}",
        loops[0].message
    );
}

#[test]
fn states_passed_eventlessly_at_start_are_not_reported_unreachable() {
    // Engine lint: the start settles through A and B; they were entered, so they are reachable.
    let l = load("stateDiagram-v2\n  [*] --> A\n  A --> B\n  B --> C\n  C --> [*] : Bash\n");
    let m = Machine::new(l.chart.clone());
    assert!(
        m.lint().iter().all(|x| x.code != "unreachable"),
        "{:?}",
        m.lint()
    );
}

#[test]
fn malformed_input_is_rejected_with_line_and_column() {
    let cases: &[(&str, (u32, u32), &str)] = &[
        (
            "stateDiagram-v2\n  state A {\n    [*] --> b\n",
            (2, 3),
            "never closed",
        ),
        (
            "stateDiagram-v2\n  A --> B\n  }\n",
            (3, 3),
            "unexpected `}`",
        ),
        (
            "stateDiagram-v2\n  A --> B\n  --\n",
            (3, 3),
            "only allowed inside a composite",
        ),
        (
            "stateDiagram-v2\n  heaven-subagent --> B\n",
            (2, 3),
            "not a valid state id",
        ),
        (
            "stateDiagram-v2\n  state \"open label as X\n",
            (2, 9),
            "unterminated string",
        ),
        (
            "stateDiagram-v2\n  state \"Label\" X\n",
            (2, 17),
            "expected `as <id>`",
        ),
        (
            "stateDiagram-v2\n  note above A : x\n",
            (2, 3),
            "note left of",
        ),
        (
            "stateDiagram-v2\n  note left of A\n    text\n",
            (2, 3),
            "end note",
        ),
        (
            "stateDiagram-v2\n  [*] --> [*]\n",
            (2, 3),
            "connects nothing",
        ),
        ("stateDiagram-v2\n  A -->\n", (2, 8), "after `-->`"),
        (
            "stateDiagram-v2\n  A --> B extra\n",
            (2, 11),
            "expected `: label`",
        ),
        (
            "stateDiagram-v2\n  this is not mermaid\n",
            (2, 3),
            "unrecognised statement",
        ),
        ("stateDiagram-v2\n  state S <<choice\n", (2, 11), "`>>`"),
        (
            "stateDiagram-v2\n  [*] --> A\n  A --> B : Bash [in(Nowhere)]\n",
            (3, 13),
            "no state `Nowhere`",
        ),
        (
            "stateDiagram-v2\n  state \"A\\nweight: heavy\" as A\n",
            (2, 10),
            "must be a number",
        ),
        (
            "stateDiagram-v2\n  state \"A\\ntool: a||b\" as A\n",
            (2, 10),
            "empty alternative",
        ),
    ];
    for (text, (line, col), needle) in cases {
        let e = error(text);
        assert_eq!((e.line, e.col), (*line, *col), "{text:?} → {e}");
        assert!(e.message.contains(needle), "{text:?} → {e}");
        assert!(e.to_string().starts_with(&format!("t.mmd:{line}:{col}: ")));
    }
}

#[test]
fn a_join_nothing_leads_into_is_an_orphan() {
    let l = load(
        "stateDiagram-v2\n  state j <<join>>\n  [*] --> A\n  A --> B : Bash\n  j --> B\n  B --> [*] : Stop\n",
    );
    let w = lints(&l, "orphan-join");
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].message, "join `j` has no incoming transitions");
    assert_eq!(w[0].span.map(|s| (s.line, s.col)), Some((2, 11)));
    // Its way out is dropped: B is entered only from A.
    assert_eq!(walk(&l, &[]), ["A"]);
}

#[test]
fn a_trigger_on_a_choice_branch_is_ignored_with_a_warning() {
    let l = load(
        "stateDiagram-v2\n  state c <<choice>>\n  [*] --> A\n  A --> c : Bash / set flag x\n  c --> B : Edit [flag x]\n  c --> C\n  B --> [*] : Stop\n  C --> [*] : Stop\n",
    );
    let w = lints(&l, "choice-trigger");
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].span.map(|s| (s.line, s.col)), Some((5, 3)));
    assert_eq!(
        w[0].message,
        "a choice's branches are eventless: the trigger is ignored, only the guard counts"
    );
    // Only the guard decides: B right after Bash, no Edit needed.
    assert_eq!(walk(&l, &[Event::tool("Bash", json!({}))]), ["B"]);
}

#[test]
fn a_band_on_a_nested_state_is_ignored_with_a_warning() {
    let l = load(
        "stateDiagram-v2\n  [*] --> W\n  state W {\n    state \"Inner\\nband: work\" as I\n    [*] --> I\n    I --> [*] : Bash\n  }\n  state \"Top\\nband: end\" as T\n  W --> T\n  T --> [*] : Stop\n",
    );
    let w = lints(&l, "band-nested");
    assert_eq!(w.len(), 1);
    assert_eq!(
        w[0].message,
        "`W.I` is not a top-level state: its `band: work` is ignored"
    );
    assert_eq!(w[0].span.map(|s| (s.line, s.col)), Some((4, 34)));
    let bands: Vec<&str> = l.chart.bands.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(
        bands,
        ["work", "end"],
        "the band stays, without the nested state"
    );
    assert!(l.chart.bands[0].states.is_empty());
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    const LINES: &[&str] = &[
        "stateDiagram-v2",
        "state A {",
        "}",
        "--",
        "[*] --> A",
        "A --> B : Bash",
        "A --> [*]",
        "state c <<choice>>",
        "c --> A : [flag x]",
        "c --> B",
        "state f <<fork>>",
        "f --> A",
        "state j <<join>>",
        "A --> j",
        "j --> B",
        "note left of A : n",
        "note right of B",
        "end note",
        "state \"L\\ntool: Edit\" as B",
        "B : desc",
        "A --> A",
        "B --> c : /x [",
        "%% c",
        "direction LR",
        "state P {",
        "[*] --> q",
        "q --> [*] : Stop",
        "x-y --> z",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,400}") {
            let _ = load_text("f.mmd", &s, &|_| None);
            let _ = load_text("f.mmd", &format!("stateDiagram-v2\n{s}"), &|_| None);
        }

        #[test]
        fn arbitrary_statement_soup_loads_or_errors(idx in proptest::collection::vec(0..LINES.len(), 0..40)) {
            let mut text = String::from("stateDiagram-v2\n");
            for i in idx {
                text.push_str(LINES[i]);
                text.push('\n');
            }
            if let Ok(l) = load_text("f.mmd", &text, &|_| None) {
                // Whatever loads can be stepped.
                let m = Machine::new(l.chart);
                let mut snap = m.start(&Facts::new());
                m.step(&mut snap, Phase::Gate, &Event::tool("Bash", json!({})), &Facts::new());
                m.step(&mut snap, Phase::Advance, &Event::tool("Bash", json!({})), &Facts::new());
            }
        }
    }
}
