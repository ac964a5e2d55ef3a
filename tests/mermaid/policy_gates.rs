//! Guarded policies in a manifest (`when`, `gate`): a call denied while an artifact is
//! missing, the first missing one named, one deadlock count for the chain, a recovery path
//! that produces the artifacts first, and lints and errors for a `when` as for any guard.

use seed::dialects::{LoadError, Loaded, load_text};
use seed::engine::{Decision, Event, Facts, Machine, Phase, Snapshot, Verdict, VerdictKind};
use serde_json::json;

/// `TodoWrite` reaches `ready` at once; the way through `draft` and its checks is longer.
const TOP: &str = "stateDiagram-v2
  [*] --> idle
  idle --> ready : TodoWrite
  idle --> draft : Edit / set flag drafted
  draft --> ready : Bash / set flag checked
  ready --> [*] : Write
";

const CHAIN: &str = r#"
enforcement = "advise"
deadlock = { limit = 2, fallback = "ask" }

[flags]
drafted = false
checked = false

[[policy]]
when = "!flag drafted"
deny = ["Write"]
gate = "ship"
enforcement = "enforce"
recovery = "Nothing is drafted yet."

[[policy]]
when = "!flag checked"
deny = ["Write"]
gate = "ship"
enforcement = "enforce"
recovery = "The draft is not checked yet."
"#;

fn manifest(body: &str) -> Result<Loaded, LoadError> {
    let text = format!("name = \"ship\"\ndiagram = \"top.mmd\"\n{body}");
    load_text("ship.toml", &text, &|rel| {
        (rel == "top.mmd").then(|| TOP.to_string())
    })
}

struct Run {
    m: Machine,
    snap: Snapshot,
}

impl Run {
    fn new(body: &str) -> Run {
        let l = manifest(body).unwrap_or_else(|e| panic!("{e}"));
        let m = Machine::new(l.chart);
        let snap = m.start(&Facts::new());
        Run { m, snap }
    }
    fn gate(&mut self, e: &Event) -> Verdict {
        let r = self.m.step(&mut self.snap, Phase::Gate, e, &Facts::new());
        r.verdict.expect("verdict")
    }
    fn advance(&mut self, e: &Event) {
        self.m
            .step(&mut self.snap, Phase::Advance, e, &Facts::new());
    }
    fn at(&self) -> Vec<String> {
        self.m.status(&self.snap).current
    }
}

fn write() -> Event {
    Event::tool("Write", json!({"file_path": "release.md"}))
}

#[test]
fn the_first_missing_artifact_denies_and_the_chain_shares_one_count() {
    let mut r = Run::new(CHAIN);
    let v = r.gate(&write());
    assert_eq!(
        (v.kind, v.decision, v.repeat),
        (VerdictKind::Deny, Decision::Deny, 1)
    );
    assert!(v.reason.contains("Nothing is drafted yet."), "{}", v.reason);
    // Drafting moves the sequence; the next link denies, and the count goes on (a state
    // change resets other refusals, not a gate's).
    r.advance(&Event::tool("Edit", json!({})));
    assert_eq!(r.at(), ["draft"]);
    let v = r.gate(&write());
    assert_eq!((v.decision, v.repeat), (Decision::Deny, 2));
    assert!(
        v.reason.contains("The draft is not checked yet."),
        "{}",
        v.reason
    );
    assert!(!v.reason.contains("Nothing is drafted"), "{}", v.reason);
    // `limit = 2`: the third attempt across the chain is handed to the user.
    let v = r.gate(&write());
    assert_eq!((v.decision, v.escalated), (Decision::Ask, true));
    assert!(v.reason.contains("by the \"ship\" checks"), "{}", v.reason);
    // Checked: the gate lets the call through, and counts afresh afterwards.
    r.advance(&Event::tool("Bash", json!({})));
    let v = r.gate(&write());
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::Advance, Decision::Allow)
    );
    assert!(r.snap.denials.is_empty(), "{:?}", r.snap.denials);
}

#[test]
fn the_way_to_a_gated_call_produces_the_missing_artifacts_first() {
    let mut r = Run::new(CHAIN);
    r.gate(&write());
    // The shortest way to `ready` (TodoWrite) makes nothing: the way goes through the draft
    // and its checks.
    let way: Vec<String> =
        r.m.recovery(&r.snap, Some(&write()))
            .path_to_denied
            .expect("a way")
            .into_iter()
            .map(|n| n.call)
            .collect();
    assert_eq!(way, ["Edit", "Bash", "Write"]);
    let v = r.gate(&write());
    assert!(
        v.reason.contains("First call Edit, then Bash; after that"),
        "{}",
        v.reason
    );
}

#[test]
fn a_policy_without_its_own_enforcement_follows_the_sequence() {
    let body = CHAIN.replace("enforcement = \"enforce\"\n", "");
    let mut r = Run::new(&body);
    let v = r.gate(&write());
    assert_eq!((v.kind, v.decision), (VerdictKind::Deny, Decision::Allow));
    assert!(
        v.warning
            .is_some_and(|w| w.contains("Nothing is drafted yet.")),
        "advised"
    );
}

#[test]
fn a_when_that_does_not_hold_lets_the_call_through() {
    let mut r = Run::new(
        &CHAIN
            .replace("drafted = false", "drafted = true")
            .replace("checked = false", "checked = true"),
    );
    let v = r.gate(&write());
    assert_eq!(v.kind, VerdictKind::OffPath, "{}", v.reason);
    assert!(r.m.status(&r.snap).denied.is_empty());
}

#[test]
fn a_when_is_linted_as_a_guard() {
    let l = manifest(
        "[[policy]]\nwhen = \"!flag nowhere\"\ndeny = [\"Write\"]\n[[policy]]\nwhen = \"mode == \\\"x\\\"\"\ndeny = [\"Bash\"]\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let lints = Machine::new(l.chart).lint();
    let flag = lints
        .iter()
        .find(|l| l.code == "undefined-flag")
        .expect("undefined flag");
    assert!(flag.message.contains("`nowhere`"), "{}", flag.message);
    // At the policy's own line in the manifest.
    assert_eq!(flag.span.map(|s| s.line), Some(3));
    assert!(
        lints
            .iter()
            .any(|l| l.code == "undefined-var" && l.message.contains("`mode`")),
        "{lints:?}"
    );
}

#[test]
fn misused_policy_keys_are_errors_at_their_place() {
    for (body, line, needle) in [
        (
            "[[policy]]\nwhen = \"flag &&\"\ndeny = [\"Write\"]\n",
            4,
            "`when = \"flag &&\"`",
        ),
        (
            "[[policy]]\ngate = \" \"\ndeny = [\"Write\"]\n",
            4,
            "`gate` must be a name",
        ),
        (
            "[[policy]]\ngate = \"a\\u0007b\"\ndeny = [\"Write\"]\n",
            4,
            "`gate` must be a name",
        ),
        (
            "[[policy]]\nwhen = \"flag x\"\n",
            3,
            "needs `allow` or `deny`",
        ),
        (
            "[[policy]]\ndeny = [\"Write\"]\nprogress = { done = \"a\", of = \"b\" }\n",
            5,
            "name it with `state`",
        ),
        (
            "[[policy]]\nwhen = \"in(nowhere)\"\ndeny = [\"Write\"]\n",
            4,
            "nowhere",
        ),
    ] {
        let e = manifest(body).expect_err(body);
        assert_eq!(e.line, line, "{body}: {e}");
        assert!(e.message.contains(needle), "{body}: {e}");
    }
}

#[test]
fn a_huge_or_deeply_nested_when_is_refused_not_evaluated() {
    let deep = format!("{}flag x{}", "(".repeat(500), ")".repeat(500));
    let long = format!("flag {}", "x".repeat(10_000));
    for when in [deep, long, String::new()] {
        let body = format!("[[policy]]\nwhen = \"{when}\"\ndeny = [\"Write\"]\n");
        let Err(e) = manifest(&body) else {
            panic!("a `when` of {} bytes loaded", when.len());
        };
        assert_eq!(e.line, 4, "{e}");
    }
}
