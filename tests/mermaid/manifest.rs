//! The `.toml` manifest of the Mermaid dialect: settings, nested diagrams, bindings of hook
//! events / tools / skills / commands to states, policies, edge labels, readers, bands — and
//! errors that point into the manifest.

use std::collections::HashMap;

use seed::dialects::{self, LoadError, Loaded, load_text};
use seed::engine::ir::{
    DeadlockFallback, Enforcement, OffPathPolicy, ReaderKind, StateId, Trigger,
};
use seed::engine::{Decision, Event, Facts, Machine, Phase, VerdictKind};
use serde_json::json;

const TOP: &str = "stateDiagram-v2
  [*] --> idle
  state \"Review\\nthe change\" as review
  idle --> work : Edit
  work --> review : all done
  review --> [*] : Stop
";

const WORK: &str = "stateDiagram-v2
  [*] --> draft
  draft --> test : Bash(cargo test*)
  test --> [*]
";

const AUDIT: &str = "stateDiagram-v2
  [*] --> look
  look --> [*] : Read
";

fn files() -> HashMap<&'static str, &'static str> {
    HashMap::from([
        ("flow/top.mmd", TOP),
        ("flow/work.mmd", WORK),
        ("flow/audit.mmd", AUDIT),
    ])
}

fn manifest(body: &str) -> Result<Loaded, LoadError> {
    let f = files();
    let text = format!("name = \"flow\"\ndiagram = \"flow/top.mmd\"\n{body}");
    load_text("flow.toml", &text, &|rel| f.get(rel).map(|s| s.to_string()))
}

fn ok(body: &str) -> Loaded {
    manifest(body).unwrap_or_else(|e| panic!("should load: {e}"))
}

fn id(l: &Loaded, key: &str) -> StateId {
    l.chart.find(key).unwrap_or_else(|| panic!("no `{key}`"))
}

struct Run {
    m: Machine,
    snap: seed::engine::Snapshot,
}

impl Run {
    fn new(l: &Loaded) -> Run {
        let m = Machine::new(l.chart.clone());
        let snap = m.start(&Facts::new());
        Run { m, snap }
    }
    fn gate(&mut self, e: &Event) -> seed::engine::Verdict {
        let r = self.m.step(&mut self.snap, Phase::Gate, e, &Facts::new());
        r.verdict.expect("a verdict")
    }
    fn advance(&mut self, e: &Event) -> Vec<String> {
        self.m
            .step(&mut self.snap, Phase::Advance, e, &Facts::new());
        self.m.status(&self.snap).current
    }
}

#[test]
fn settings_and_expansion() {
    let l = ok(r#"
description = "a small flow"
enforcement = "enforce"
off_path = "deny"
fail = "closed"
neutral_tools = ["Read", "Grep"]
aliases = { gh = "github" }
deadlock = { limit = 2, fallback = "advise" }
stop = { block_until_final = true, max_blocks = 1 }

[expand]
work = "flow/work.mmd"
audit = "flow/audit.mmd"

[vars]
tier = "LITE"
[flags]
reviewed = false
"#);
    let c = &l.chart;
    assert_eq!(
        (c.name.as_str(), c.description.as_str()),
        ("flow", "a small flow")
    );
    let s = &c.settings;
    assert_eq!(
        (s.enforcement, s.off_path),
        (Enforcement::Enforce, OffPathPolicy::Deny)
    );
    assert_eq!(
        (s.deadlock.limit, s.deadlock.fallback),
        (2, DeadlockFallback::Advise)
    );
    assert!(s.stop.block_until_final && s.stop.max_blocks == 1);
    assert_eq!(c.neutral.len(), 2);
    assert_eq!(c.aliases.get("gh").map(String::as_str), Some("github"));
    assert_eq!(c.vars.get("tier"), Some(&json!("LITE")));
    assert_eq!(c.vars.get("flags.reviewed"), Some(&json!(false)));
    // `work` is expanded in place; `audit` is not drawn in the overview: it is added at the top.
    for k in ["work.draft", "work.test", "work.__final", "audit.look"] {
        id(&l, k);
    }
    let mut r = Run::new(&l);
    assert_eq!(
        r.advance(&Event::tool("Edit", json!({}))),
        vec!["work.draft"]
    );
    assert_eq!(
        r.advance(&Event::tool("Bash", json!({"command": "cargo test -q"}))),
        vec!["review"]
    );
}

#[test]
fn bindings_enter_states_from_anywhere_from_a_state_or_leave_them_alone() {
    let l = ok(r#"
[expand]
work = "flow/work.mmd"

[[bind]]
on = "/flow:review"
enter = "Review"
from = "*"
note = "jump to review"

[[bind]]
on = "skill:flow:restart"
enter = "idle"
from = ["work", "review"]

[[bind]]
on = "/flow:status | SessionStart"
"#);
    let c = &l.chart;
    let root: Vec<_> = c
        .transitions
        .iter()
        .filter(|t| t.source == StateId::ROOT)
        .collect();
    assert_eq!(
        root.len(),
        2,
        "one re-entry and one neutral binding on the root"
    );
    assert!(root.iter().any(|t| t.targets.is_empty()));
    let mut r = Run::new(&l);
    // A binding's target may be named by its display label (`Review` for `review`).
    assert_eq!(
        r.gate(&Event::prompt("/flow:review")).kind,
        VerdictKind::Advance
    );
    assert_eq!(
        r.advance(&Event::prompt("/flow:review now")),
        vec!["review"]
    );
    assert_eq!(
        r.gate(&Event::prompt("/flow:status")).kind,
        VerdictKind::Neutral
    );
    assert_eq!(r.advance(&Event::lifecycle("SessionStart")), vec!["review"]);
    assert_eq!(
        r.advance(&Event::tool("Skill", json!({"skill": "flow:restart"}))),
        vec!["idle"]
    );
}

#[test]
fn activity_bindings_give_unlabelled_edges_their_meaning() {
    let l = ok(r#"
[[bind]]
state = "work"
activity = "TodoWrite"
weight = 3
"#);
    let w = l.chart.state(id(&l, "work"));
    assert_eq!(w.weight, 3.0);
    // idle --> work is labelled Edit; work --> review (prose) is now a completion of TodoWrite.
    let mut r = Run::new(&l);
    r.advance(&Event::tool("Edit", json!({})));
    assert_eq!(
        r.advance(&Event::tool("TodoWrite", json!({}))),
        vec!["review"]
    );
}

#[test]
fn edge_labels_policies_and_recovery() {
    let l = ok(r#"
enforcement = "advise"

[[edge]]
from = "work"
to = "review"
match = "all done"
label = "Bash [flag green] / note reviewed"

[[bind]]
on = "Write / set flag green"
from = "work"

[[policy]]
state = ["idle", "work"]
deny = ["WebFetch"]
recovery = "Fetch after the review."
enforcement = "enforce"
"#);
    let mut r = Run::new(&l);
    let v = r.gate(&Event::tool("WebFetch", json!({})));
    assert_eq!((v.kind, v.decision), (VerdictKind::Deny, Decision::Deny));
    assert!(v.reason.contains("Fetch after the review."), "{}", v.reason);
    assert!(
        r.m.recovery(&r.snap, Some(&Event::tool("WebFetch", json!({}))))
            .suggestions[0]
            .contains("Fetch after")
    );
    r.advance(&Event::tool("Edit", json!({})));
    assert_eq!(
        r.advance(&Event::tool("Bash", json!({}))),
        vec!["work"],
        "guard not met"
    );
    r.advance(&Event::tool("Write", json!({})));
    assert_eq!(r.advance(&Event::tool("Bash", json!({}))), vec!["review"]);
    // The override replaces the prose label, so it is no longer reported.
    assert!(l.warnings.iter().all(|w| w.code != "unparsed-label"));
}

#[test]
fn readers_bands_and_lint_allow() {
    let l = ok(r#"
[readers.status]
kind = "json"
path = "${CLAUDE_PROJECT_DIR}/state.json"
pointer = "/status"
description = "the project's status"

[readers.lock]
kind = "file_exists"
path = "${HOME}/.lock"

[bands]
start = { range = [0, 40], states = ["idle"] }
rest = { range = [40, 100], states = ["work", "review"] }

[[edge]]
from = "work"
to = "review"
label = "[reader(status) == \"green\"]"

[lint]
allow = ["implicit-end"]
"#);
    let c = &l.chart;
    assert!(matches!(&c.readers[1].kind, ReaderKind::Json { pointer, .. } if pointer == "/status"));
    assert!(matches!(&c.readers[0].kind, ReaderKind::FileExists { .. }));
    assert_eq!(c.bands.len(), 2);
    let m = Machine::new(c.clone());
    let mut snap = m.start(&Facts::new());
    m.step(
        &mut snap,
        Phase::Advance,
        &Event::tool("Edit", json!({})),
        &Facts::new(),
    );
    assert!((m.progress(&snap).overall - 40.0).abs() < 1e-6);
    let facts = Facts::from([("status".to_string(), json!("green"))]);
    m.step(
        &mut snap,
        Phase::Advance,
        &Event::tool("Read", json!({})),
        &facts,
    );
    assert_eq!(m.status(&snap).current, vec!["review"]);
}

#[test]
fn manifest_errors_point_into_the_manifest() {
    let cases: &[(&str, (u32, u32), &str)] = &[
        ("colour = \"red\"\n", (3, 1), "unknown field `colour`"),
        (
            "enforcement = \"strict\"\n",
            (3, 15),
            "unknown variant `strict`",
        ),
        (
            "[[bind]]\non = \"Edit\"\nenter = \"nowhere\"\n",
            (5, 9),
            "no state `nowhere`",
        ),
        (
            "[expand]\nwork = \"flow/missing.mmd\"\n",
            (4, 8),
            "cannot read diagram",
        ),
        ("[[bind]]\non = \"Edit [flag\"\n", (4, 6), "unclosed `[`"),
        (
            "[[edge]]\nfrom = \"idle\"\nto = \"review\"\nlabel = \"Bash\"\n",
            (3, 1),
            "no diagram edge",
        ),
        (
            "[[edge]]\nfrom = \"work\"\nto = \"review\"\nlabel = \"Bash [\"\n",
            (6, 9),
            "unclosed `[`",
        ),
        (
            "[readers.x]\nkind = \"json\"\npath = \"${PATH}/x\"\n",
            (5, 8),
            "not allowed in paths",
        ),
        (
            "[[bind]]\nstate = \"work\"\nactivity = \"Edit\"\non = \"Bash\"\n",
            (3, 1),
            "not both",
        ),
        (
            "[expand]\nidle = \"flow/broken.mmd\"\n",
            (4, 8),
            "cannot read",
        ),
    ];
    for (body, (line, col), needle) in cases {
        let e = manifest(body).expect_err(body);
        assert_eq!((e.line, e.col), (*line, *col), "{body:?} → {e}");
        assert!(e.message.contains(needle), "{body:?} → {e}");
    }
    // Errors inside a nested diagram name that diagram.
    let f = HashMap::from([
        ("top.mmd", "stateDiagram-v2\n  A --> B\n"),
        ("bad.mmd", "stateDiagram-v2\n  }\n"),
    ]);
    let e = load_text(
        "m.toml",
        "name = \"m\"\ndiagram = \"top.mmd\"\n[expand]\nA = \"bad.mmd\"\n",
        &|r| f.get(r).map(|s| s.to_string()),
    )
    .expect_err("bad nested diagram");
    assert_eq!((e.file.as_str(), e.line, e.col), ("bad.mmd", 2, 3));
}

#[test]
fn a_builtin_manifest_wins_over_its_diagram() {
    let l = dialects::builtin("odyssean_anchor")
        .expect("builtin")
        .expect("loads");
    assert_eq!(l.source, "builtin:odyssean_anchor.toml");
    assert!(
        !l.chart.states.iter().all(|s| s.policy.is_empty()),
        "the manifest's policies"
    );
    let names = dialects::builtin_names();
    for n in ["hope", "odyssean_anchor", "seaam_organ_lifecycle"] {
        assert_eq!(names.iter().filter(|x| *x == n).count(), 1, "{names:?}");
    }
    // Detail diagrams are parts, not sequences of their own.
    assert!(!names.iter().any(|n| n.contains("pipeline")));
    let _ = Trigger::Always;
}

#[test]
fn recovery_follows_the_path_not_escapes_or_edges_that_never_fire() {
    // Shortcuts a shortest-path search would take: a re-entry binding on the root, an edge
    // marked `[false]`, and a composite's edge shadowed by a deeper one with the same trigger.
    let f = HashMap::from([(
        "d.mmd",
        "stateDiagram-v2\n  [*] --> S\n  state S {\n    [*] --> a\n    a --> b : Edit\n    b --> [*] : Bash\n  }\n  S --> Z : Edit\n  S --> Z : Write\n  Z --> [*] : Stop\n",
    )]);
    let text = "name = \"r\"\ndiagram = \"d.mmd\"\n[[bind]]\non = \"/skip\"\nenter = \"Z\"\n[[edge]]\nfrom = \"S\"\nto = \"Z\"\nmatch = \"Write\"\nlabel = \"Write [false]\"\n";
    let l = load_text("r.toml", text, &|r| f.get(r).map(|s| s.to_string())).expect("loads");
    let m = Machine::new(l.chart);
    let snap = m.start(&Facts::new());
    let rec = m.recovery(&snap, None);
    // Edit from S.a goes to S.b (deeper wins), so the path is Edit, Bash, not S --> Z.
    assert_eq!(rec.next.first().map(|n| n.tool.as_str()), Some("Edit"));
    // Edit, Bash, Stop: each shortcut would have made it 2.
    assert_eq!(m.progress(&snap).steps_remaining, Some(3));
    let calls: Vec<&str> = rec.next.iter().map(|n| n.tool.as_str()).collect();
    assert!(
        calls.contains(&"/skip"),
        "re-entry is still a legal call: {calls:?}"
    );
    assert!(
        !calls.iter().any(|c| c.contains("Stop")),
        "hook events are not calls: {calls:?}"
    );
}

#[test]
fn a_manifest_reads_diagrams_only_inside_its_own_folder() {
    // The resolver would hand over anything; the manifest must not ask for it.
    let asked = std::cell::RefCell::new(Vec::new());
    for path in [
        "../../etc/passwd",
        "flow/../../x.mmd",
        "/etc/passwd",
        "..",
        "a/../..",
    ] {
        asked.borrow_mut().clear();
        let text = format!("name = \"m\"\ndiagram = \"{path}\"\n");
        let e = load_text("m.toml", &text, &|r| {
            asked.borrow_mut().push(r.to_string());
            Some("secret: not a diagram".into())
        })
        .expect_err(path);
        assert!(e.message.contains("stay in its folder"), "{path}: {e}");
        assert!(!e.message.contains("secret"), "{path}: {e}");
        assert_eq!((e.file.as_str(), e.line), ("m.toml", 2), "{path}: {e}");
        assert!(asked.borrow().is_empty(), "{path} was read");
    }
    // `./` and subfolders are fine.
    let f = files();
    let text = "name = \"m\"\ndiagram = \"./flow/top.mmd\"\n";
    load_text("m.toml", text, &|r| {
        f.get(r.trim_start_matches("./")).map(|s| s.to_string())
    })
    .expect("a path below the manifest loads");
}

#[test]
fn validate_names_the_diagram_a_load_error_is_in() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("bad.mmd"), "hello\n").expect("write");
    std::fs::write(
        dir.path().join("m.toml"),
        "name = \"m\"\ndiagram = \"bad.mmd\"\n",
    )
    .expect("write");
    let out = assert_cmd::Command::cargo_bin("seed")
        .expect("binary")
        .arg("validate")
        .arg(dir.path().join("m.toml"))
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8_lossy(&out);
    let bad = dir.path().join("bad.mmd").display().to_string();
    assert!(
        out.contains(&format!(
            "{bad}:1:1: error[load]: expected `stateDiagram-v2`"
        )),
        "{out}"
    );
}
