//! The Mermaid `stateDiagram-v2` dialect: every construct of the subset real files use, read
//! into the statechart IR (see `mermaid_lints.rs` for edge semantics, lints and errors).

use crate::support::mermaid as mermaid_common;

use mermaid_common::diagram::{error, from, keys, lints, load, state, walk};
use seed::engine::ir::{Guard, StateKind, Trigger};
use seed::engine::{Event, Facts, Machine, Phase};
use serde_json::json;

#[test]
fn header_front_matter_directives_and_fences_are_accepted() {
    let l = load(
        "---\ntitle: Release flow\n---\n%%{init: {'theme': 'dark'}}%%\n```mermaid\nstateDiagram\n  [*] --> A\n```\n",
    );
    assert_eq!(l.chart.name, "Release flow");
    assert_eq!(keys(&l.chart), vec!["A", "__final"]);
    let e = error("graph TD\n  A --> B\n");
    assert_eq!((e.line, e.col), (1, 1));
    assert!(e.message.contains("stateDiagram-v2"), "{e}");
}

#[test]
fn a_diagram_with_no_states_is_an_error_at_its_header() {
    for (text, pos) in [
        ("stateDiagram-v2\n", (1, 1)),
        ("stateDiagram-v2", (1, 1)),
        ("%% nothing yet\n\n  stateDiagram\n  direction LR\n", (3, 3)),
        (
            "stateDiagram-v2\n  note \"floating remark\" as N1\n",
            (1, 1),
        ),
    ] {
        let e = error(text);
        assert_eq!((e.line, e.col), pos, "{text:?}: {e}");
        assert!(e.message.contains("the diagram has no states"), "{e}");
    }
}

#[test]
fn quoted_labels_descriptions_and_annotations() {
    let l = load(
        r#"stateDiagram-v2
    state "Orient\nstarlog.orient" as Orient
    state "Work<br>tool: Bash(cargo *)<br/>allow: Read, Grep\ndeny: Write\nweight: 2\nrecovery: run the tests first" as W
    X : first row
    X : second row
    state Y : described with state
    [*] --> Orient
    Orient --> W
    W --> X
    X --> Y
"#,
    );
    let c = &l.chart;
    let orient = state(c, "Orient");
    assert_eq!(orient.label, "Orient");
    assert_eq!(
        orient.activity.as_ref().map(|p| p.to_string()).as_deref(),
        Some("starlog.orient")
    );
    let w = state(c, "W");
    assert_eq!(w.label, "Work");
    assert_eq!(
        w.activity.as_ref().map(|p| p.to_string()).as_deref(),
        Some("Bash(/command=cargo *)")
    );
    assert_eq!(w.policy.allow.len(), 2);
    assert_eq!(w.policy.deny[0].to_string(), "Write");
    assert_eq!(w.weight, 2.0);
    assert_eq!(w.policy.recovery.as_deref(), Some("run the tests first"));
    let x = state(c, "X");
    assert_eq!(
        (x.label.as_str(), x.notes.clone()),
        ("first row", vec!["second row".to_string()])
    );
    assert_eq!(state(c, "Y").label, "described with state");
}

#[test]
fn composites_nest_to_any_depth_and_keys_are_nesting_paths() {
    let l = load(
        "stateDiagram-v2\n  state A {\n    state B {\n      state C {\n        [*] --> D\n      }\n    }\n  }\n  [*] --> A\n  A --> E\n",
    );
    // D and E lead nowhere: each ends its scope (with an `implicit-end` warning).
    assert_eq!(
        keys(&l.chart),
        vec![
            "A",
            "A.B",
            "A.B.C",
            "A.B.C.D",
            "A.B.C.__final",
            "A.B.__final",
            "A.__final",
            "E",
            "__final"
        ]
    );
    // Entering A enters the initial path down to D.
    let l = load(
        "stateDiagram-v2\n  state A {\n    state B {\n      state C {\n        [*] --> D\n        D --> [*] : Bash\n      }\n    }\n  }\n  [*] --> A\n  A --> E : Edit\n  E --> [*] : Stop\n",
    );
    assert_eq!(walk(&l, &[]), vec!["A.B.C.D"]);
    assert_eq!(
        walk(&l, &[Event::tool("Edit", json!({}))]),
        vec!["E"],
        "A's edge fires from inside"
    );
}

#[test]
fn ids_are_global_within_a_diagram() {
    let l = load(
        "stateDiagram-v2\n  state Box {\n    inner --> other : Bash\n  }\n  [*] --> outer\n  outer --> inner : Edit\n",
    );
    // `inner` was first mentioned inside Box: the top-level edge refers to the same state.
    assert_eq!(
        from(&l.chart, "outer")[0].targets,
        vec![state(&l.chart, "Box.inner").id]
    );
    assert_eq!(lints(&l, "cross-composite").len(), 1);
    assert_eq!(
        walk(&l, &[Event::tool("Edit", json!({}))]),
        vec!["Box.inner"]
    );
}

#[test]
fn start_and_end_are_per_scope() {
    let l = load(
        "stateDiagram-v2\n  [*] --> Outer\n  state Outer {\n    [*] --> a\n    a --> [*] : Bash\n  }\n  Outer --> Next\n  Next --> [*] : Stop\n",
    );
    let c = &l.chart;
    assert!(state(c, "Outer.__final").is_final() && state(c, "__final").is_final());
    assert_eq!(state(c, "Outer.__final").label, "Outer done");
    // Outer's unlabelled edge waits for Outer to finish (done.state).
    assert_eq!(
        from(c, "Outer")[0].trigger,
        Trigger::Done(state(c, "Outer").id)
    );
    assert_eq!(walk(&l, &[Event::tool("Bash", json!({}))]), vec!["Next"]);
    assert_eq!(
        walk(
            &l,
            &[Event::tool("Bash", json!({})), Event::lifecycle("Stop")]
        ),
        vec!["__final"]
    );
}

#[test]
fn several_guarded_entries_become_a_start_choice() {
    let l = load(
        "stateDiagram-v2\n  [*] --> A : [flag resume]\n  [*] --> B\n  A --> [*]\n  B --> [*]\n",
    );
    let start = state(&l.chart, "__start");
    assert_eq!(start.kind, StateKind::Choice);
    let e = error("stateDiagram-v2\n  [*] --> A\n  [*] --> B\n");
    assert_eq!((e.line, e.col), (3, 3));
    assert!(e.message.contains("second `[*] -->`"), "{e}");
}

#[test]
fn dividers_make_parallel_regions_named_deterministically() {
    let l = load(
        "stateDiagram-v2\n  [*] --> Build\n  state Build {\n    [*] --> compile\n    compile --> [*] : Bash\n    --\n    [*] --> docs\n    docs --> [*] : Write\n  }\n  Build --> Ship\n  Ship --> [*] : Stop\n",
    );
    let c = &l.chart;
    assert_eq!(state(c, "Build").kind, StateKind::Parallel);
    for k in ["Build.r1", "Build.r1.compile", "Build.r2", "Build.r2.docs"] {
        state(c, k);
    }
    let both = [
        Event::tool("Bash", json!({})),
        Event::tool("Write", json!({})),
    ];
    assert_eq!(
        walk(&l, &both[..1]),
        vec!["Build.r1.__final", "Build.r2.docs"]
    );
    assert_eq!(walk(&l, &both), vec!["Ship"]);
}

#[test]
fn choices_try_guarded_branches_before_the_default() {
    let l = load(
        "stateDiagram-v2\n  state gate <<choice>>\n  state alt [[choice]]\n  [*] --> A\n  A --> gate : Bash\n  gate --> Low\n  gate --> High : [score >= 8]\n  gate --> Mid : [else]\n  Low --> alt : Edit\n  alt --> [*]\n  High --> [*]\n  Mid --> [*]\n",
    );
    let c = &l.chart;
    assert_eq!(state(c, "alt").kind, StateKind::Choice);
    let branches = from(c, "gate");
    assert!(branches.iter().all(|t| t.trigger == Trigger::Always));
    assert!(
        branches[0].guard.is_some() && branches[1].guard.is_none() && branches[2].guard.is_none()
    );
    assert_eq!(walk(&l, &[Event::tool("Bash", json!({}))]), vec!["Low"]);
}

#[test]
fn a_later_choice_declaration_upgrades_the_state_with_a_warning() {
    let l = load(
        "stateDiagram-v2\n  [*] --> A\n  A --> gate : Bash\n  state gate <<choice>>\n  gate --> B\n",
    );
    assert_eq!(state(&l.chart, "gate").kind, StateKind::Choice);
    let w = lints(&l, "choice-upgraded");
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].span.map(|s| (s.line, s.col)), Some((4, 14)));
}

#[test]
fn fork_enters_regions_together_and_join_waits_for_all() {
    let l = load(
        "stateDiagram-v2\n  state split <<fork>>\n  state merge <<join>>\n  state Work {\n    front --> merge : Edit\n    --\n    back --> merge : Bash\n  }\n  [*] --> Plan\n  Plan --> split : TodoWrite\n  split --> front\n  split --> back\n  merge --> Review\n  Review --> [*] : Stop\n",
    );
    let c = &l.chart;
    assert!(
        !keys(c)
            .iter()
            .any(|k| k.contains("split") || k.contains("merge"))
    );
    let fork = from(c, "Plan");
    assert_eq!(fork[0].targets.len(), 2);
    assert_eq!(
        from(c, "Work")[0].trigger,
        Trigger::Done(state(c, "Work").id)
    );
    let ev = [
        Event::tool("TodoWrite", json!({})),
        Event::tool("Edit", json!({})),
        Event::tool("Bash", json!({})),
    ];
    assert_eq!(walk(&l, &ev[..1]), vec!["Work.r1.front", "Work.r2.back"]);
    assert_eq!(walk(&l, &ev[..2]), vec!["Work.r1.__final", "Work.r2.back"]);
    assert_eq!(walk(&l, &ev), vec!["Review"]);
    let bad = error(
        "stateDiagram-v2\n  state f <<fork>>\n  [*] --> f\n  [*] --> A\n  f --> A\n  f --> B\n",
    );
    assert!(
        bad.message.contains("fork") || bad.message.contains("[*]"),
        "{bad}"
    );
}

#[test]
fn notes_attach_to_states_and_can_carry_recovery() {
    let l = load(
        "stateDiagram-v2\n  [*] --> A\n  note left of A : recovery: call starlog.orient\n  note right of A\n    first line\n    second line\n  end note\n  note \"floating remark\" as N1\n  note right of Ghost : nobody\n  A --> [*]\n",
    );
    let a = state(&l.chart, "A");
    assert_eq!(a.policy.recovery.as_deref(), Some("call starlog.orient"));
    assert!(
        a.notes.contains(&"first line".to_string()) && a.notes.contains(&"second line".to_string())
    );
    assert_eq!(l.chart.root().notes, vec!["floating remark".to_string()]);
    assert_eq!(lints(&l, "unknown-note-target").len(), 1);
}

#[test]
fn comments_direction_and_styling_are_ignored() {
    let l = load(
        "stateDiagram-v2\n  %% a comment\n  direction LR\n  accTitle: Title\n  accDescr: short\n  accDescr {\n    long description\n  }\n  classDef hot fill:#f00\n  class A hot\n  style A fill:#0f0\n  click A \"https://example.com\"\n  hide empty description\n  scale 350 width\n  [*] --> A:::hot %% trailing comment\n  A --> B:::hot : Bash\n  state B {\n    direction TB\n    [*] --> b1\n  }\n",
    );
    assert_eq!(
        keys(&l.chart),
        vec!["A", "B", "B.b1", "B.__final", "__final"]
    );
}

#[test]
fn the_label_mini_language_compiles_to_triggers_guards_and_actions() {
    let l = load(
        "stateDiagram-v2\n  [*] --> A\n  A --> B : starlog.orient | skill:hope:intent | /hope:intent | Stop [flag ready && !flag blocked || in(A)] / set flag oriented, clear flag blocked, tier = input.tier, mode = \"fast\", note done, really\n  B --> C : mcp__*__odyssean_anchor(stage=init) [score >= 8 && reader(waypoint) == active && input.topic != \"x\"]\n  C --> D : error.tool:Edit\n",
    );
    let c = &l.chart;
    let ab = from(c, "A")[0];
    let Trigger::Event(p) = &ab.trigger else {
        panic!("event trigger")
    };
    assert_eq!(
        p.to_string(),
        "starlog.orient|skill:hope:intent|/hope:intent|lifecycle:Stop"
    );
    assert!(matches!(ab.guard, Some(Guard::Any { .. })));
    assert_eq!(ab.actions.len(), 5);
    let bc = from(c, "B")[0];
    let Some(Guard::All { of }) = &bc.guard else {
        panic!("all")
    };
    assert_eq!(of.len(), 3);
    assert!(matches!(from(c, "C")[0].trigger, Trigger::Error(_)));
    let m = Machine::new(c.clone());
    let mut snap = m.start(&Facts::new());
    m.step(
        &mut snap,
        Phase::Advance,
        &Event::prompt("/hope:intent go"),
        &Facts::new(),
    );
    assert_eq!(m.status(&snap).current, vec!["B"], "in(A) held");
    assert_eq!(snap.flags.get("oriented"), Some(&true));
    assert_eq!(snap.vars.get("mode"), Some(&json!("fast")));
    assert!(snap.last_event.is_some());
}
