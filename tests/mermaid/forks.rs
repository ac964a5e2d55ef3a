//! Forks and joins: Mermaid's own fork example (branches drawn as plain sibling states), a
//! start that enters a fork, and a join that leads out of a composite, with no false lints.

use crate::support::mermaid as mermaid_common;

use mermaid_common::diagram::{error, from, keys, load, state, walk};
use seed::engine::ir::{StateKind, Trigger};
use seed::engine::{Event, Facts, Machine, Phase, VerdictKind};
use serde_json::json;

fn tool(name: &str) -> Event {
    Event::tool(name, json!({}))
}

/// All lints of a diagram: the loader's and the engine's.
fn all_lints(text: &str) -> Vec<String> {
    let l = load(text);
    let mut out: Vec<String> = l
        .warnings
        .iter()
        .map(|w| format!("{}: {}", w.code, w.message))
        .collect();
    out.extend(
        Machine::new(l.chart)
            .lint()
            .iter()
            .map(|w| format!("{}: {}", w.code, w.message)),
    );
    out
}

/// The example of Mermaid's state diagram documentation, as written there.
const MERMAID_DOCS_FORK: &str = "stateDiagram-v2
    state fork_state <<fork>>
      [*] --> fork_state
      fork_state --> State2
      fork_state --> State3

      state join_state <<join>>
      State2 --> join_state
      State3 --> join_state
      join_state --> State4
      State4 --> [*]
";

#[test]
fn the_mermaid_docs_fork_example_loads_as_two_regions_without_warnings() {
    assert_eq!(all_lints(MERMAID_DOCS_FORK), Vec::<String>::new());
    let l = load(MERMAID_DOCS_FORK);
    assert_eq!(
        keys(&l.chart),
        [
            "fork_state",
            "fork_state.r1",
            "fork_state.r1.State2",
            "fork_state.r1.__final",
            "fork_state.r2",
            "fork_state.r2.State3",
            "fork_state.r2.__final",
            "State4",
            "__final"
        ]
    );
    assert_eq!(
        state(&l.chart, "fork_state").kind,
        StateKind::Parallel,
        "the fork draws concurrency: its branches run side by side"
    );
}

#[test]
fn both_branches_of_a_fork_run_together_and_the_join_waits_for_the_last() {
    let text = "stateDiagram-v2
  state fork_state <<fork>>
  [*] --> Plan
  Plan --> fork_state : TodoWrite
  fork_state --> Docs
  fork_state --> Code
  state join_state <<join>>
  Docs --> join_state : Write
  Code --> Test : Edit
  Test --> join_state : Bash
  join_state --> Review
  Review --> [*] : Stop
";
    assert_eq!(all_lints(text), Vec::<String>::new());
    let l = load(text);
    let ev = [tool("TodoWrite"), tool("Edit"), tool("Write"), tool("Bash")];
    assert_eq!(
        walk(&l, &ev[..1]),
        ["fork_state.r1.Docs", "fork_state.r2.Code"]
    );
    assert_eq!(
        walk(&l, &ev[..2]),
        ["fork_state.r1.Docs", "fork_state.r2.Test"]
    );
    assert_eq!(
        walk(&l, &ev[..3]),
        ["fork_state.r1.__final", "fork_state.r2.Test"],
        "one branch arrived: the join waits"
    );
    assert_eq!(walk(&l, &ev), ["Review"]);
}

#[test]
fn fork_branches_that_meet_before_the_join_are_an_error_at_the_meeting_edge() {
    let e = error(
        "stateDiagram-v2
  state f <<fork>>
  [*] --> f
  f --> A
  f --> B
  A --> Shared
  B --> Shared
  Shared --> [*]
",
    );
    assert_eq!((e.line, e.col), (7, 3), "{e}");
    assert_eq!(
        e.message,
        "fork `f`: `Shared` is reached from both `A` and `B`; branches of a fork meet only at a `<<join>>`"
    );
}

#[test]
fn a_start_may_enter_a_fork_into_the_regions_of_a_composite() {
    let text = "stateDiagram-v2
  state fk <<fork>>
  state jn <<join>>
  state P {
    [*] --> a0
    a0 --> a : Read
    --
    [*] --> b
  }
  [*] --> fk
  fk --> a
  fk --> b
  a --> jn : Edit
  b --> jn : Write
  jn --> Z
  Z --> [*] : Stop
";
    // The fork enters a and b, passing by P's own initial state a0.
    assert_eq!(
        all_lints(text),
        ["unreachable: state `P.r1.a0` can never be entered"]
    );
    let l = load(text);
    assert_eq!(walk(&l, &[]), ["P.r1.a", "P.r2.b"]);
    assert_eq!(walk(&l, &[tool("Edit"), tool("Write")]), ["Z"]);
}

#[test]
fn a_join_out_of_a_composite_is_its_way_out_not_an_implicit_end() {
    // The diagram of `fork_enters_regions_together_and_join_waits_for_all` (mermaid.rs).
    let text = "stateDiagram-v2\n  state split <<fork>>\n  state merge <<join>>\n  state Work {\n    front --> merge : Edit\n    --\n    back --> merge : Bash\n  }\n  [*] --> Plan\n  Plan --> split : TodoWrite\n  split --> front\n  split --> back\n  merge --> Review\n  Review --> [*] : Stop\n";
    assert_eq!(all_lints(text), Vec::<String>::new());
    let l = load(text);
    let work = state(&l.chart, "Work").id;
    let out: Vec<_> = from(&l.chart, "Work")
        .into_iter()
        .map(|t| t.trigger.clone())
        .collect();
    assert_eq!(out, [Trigger::Done(work)], "only the join leaves Work");
    assert_eq!(
        walk(&l, &[tool("TodoWrite"), tool("Bash"), tool("Edit")]),
        ["Review"]
    );
}

/// Parallel regions as a composite with `--`, and the same chart drawn with a fork and a join.
const REGIONS: &str = "stateDiagram-v2
  [*] --> P
  state P {
    [*] --> A
    A --> [*] : Bash
    --
    [*] --> B
    B --> [*] : Edit
  }
  P --> C
  C --> [*] : Write
";
const FORK_JOIN: &str = "stateDiagram-v2
  state f <<fork>>
  state j <<join>>
  [*] --> f
  f --> A
  f --> B
  A --> j : Bash
  B --> j : Edit
  j --> C
  C --> [*] : Write
";

/// What the three faces say: the allowed list, the next step, the steps remaining, and each
/// call's PreToolUse verdict with its reason.
type Faces = (
    Vec<String>,
    Option<String>,
    Option<u32>,
    Vec<(VerdictKind, String)>,
);

/// The faces of `text` after `done`, for `calls`.
fn faces(text: &str, done: &[&str], calls: &[&str]) -> Faces {
    let m = Machine::new(load(text).chart);
    let facts = Facts::new();
    let mut snap = m.start(&facts);
    for d in done {
        m.step(&mut snap, Phase::Advance, &tool(d), &facts);
    }
    let st = m.status(&snap);
    let verdicts = calls
        .iter()
        .map(|c| {
            let mut s = snap.clone();
            let r = m.step(&mut s, Phase::Gate, &tool(c), &facts);
            let v = r.verdict.expect("a gate has a verdict");
            (v.kind, v.reason)
        })
        .collect();
    (
        st.allowed.into(),
        st.next.map(|n| n.tool),
        st.progress.steps_remaining,
        verdicts,
    )
}

#[test]
fn after_one_region_finishes_allowed_next_and_verdicts_agree() {
    for text in [REGIONS, FORK_JOIN] {
        let (allowed, next, steps, verdicts) = faces(text, &["Bash"], &["Edit", "Bash", "Write"]);
        // Region A is done; B still waits for Edit, and the join waits for B.
        assert_eq!(allowed, ["Edit"], "{text}");
        assert_eq!(next.as_deref(), Some("Edit"), "{text}");
        assert_eq!(steps, Some(2), "Edit, then Write after the join: {text}");
        assert_eq!(verdicts[0].0, VerdictKind::Advance, "{text}");
        for (call, (kind, reason)) in ["Bash", "Write"].iter().zip(&verdicts[1..]) {
            assert_eq!(*kind, VerdictKind::OffPath, "{call}: {text}");
            assert!(
                reason.contains("Edit") && !reason.contains(&format!("Next: call {call}")),
                "{call} is pointed to Edit, not to itself: {reason}"
            );
        }
        assert!(
            verdicts[2].1.contains("Edit") && verdicts[2].1.contains("Write is allowed"),
            "{}",
            verdicts[2].1
        );
    }
}

#[test]
fn leaving_parallel_regions_costs_the_steps_of_every_region() {
    // Before the fork: one call to enter it, one per region, one after the join.
    let text = "stateDiagram-v2
  [*] --> S
  S --> P : TodoWrite
  state P {
    [*] --> A
    A --> [*] : Bash
    --
    [*] --> B
    B --> [*] : Edit
  }
  P --> C
  C --> [*] : Write
";
    let (allowed, next, steps, _) = faces(text, &[], &[]);
    assert_eq!(
        (allowed, next, steps),
        (
            vec!["TodoWrite".to_string()],
            Some("TodoWrite".into()),
            Some(4)
        )
    );
    let (_, next, steps, _) = faces(text, &["TodoWrite"], &[]);
    assert_eq!((next.as_deref(), steps), (Some("Bash"), Some(3)));
    // The way to Write passes through both regions, in document order.
    let m = Machine::new(load(text).chart);
    let snap = m.start(&Facts::new());
    let path: Vec<String> = m
        .recovery(&snap, Some(&tool("Write")))
        .path_to_denied
        .expect("Write is reachable")
        .into_iter()
        .map(|s| s.tool)
        .collect();
    assert_eq!(path, ["TodoWrite", "Bash", "Edit", "Write"]);
}
