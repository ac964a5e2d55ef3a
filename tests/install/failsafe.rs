//! Under `fail = "closed"`, a call must not go through because seed could not answer: the
//! installed gate makes Claude Code block it when the hook cannot start, crashes or times out
//! (`"onFailure": "block"`), the timeout is above the hook's budget, and `doctor` names an
//! installation that lacks either.

use serde_json::Value;

use crate::support::project as project_common;
use project_common::{Project, bin};

fn install(p: &Project) {
    let b = bin();
    let (code, out, err) =
        p.seed_with_path(&["install", "--local", "--bin", b.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{out}{err}");
}

fn handlers(p: &Project) -> Vec<(String, Value)> {
    let v = p.json(".claude/settings.local.json");
    let mut out = Vec::new();
    for (event, groups) in v["hooks"].as_object().unwrap() {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                out.push((event.clone(), h.clone()));
            }
        }
    }
    out
}

fn doctor_problems(p: &Project) -> (i32, Vec<String>) {
    let (code, out, err) = p.seed_with_path(&["doctor", "--json"], &[]);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let problems = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["problems"].as_array().cloned().unwrap_or_default())
        .filter_map(|p| p.as_str().map(String::from))
        .collect();
    (code, problems)
}

#[test]
fn a_fail_closed_project_gets_a_gate_that_blocks_when_the_hook_fails() {
    let p = Project::new();
    std::fs::write(p.root().join(".seed.toml"), "fail = \"closed\"\n").unwrap();
    install(&p);
    for (event, h) in handlers(&p) {
        assert_eq!(h["timeout"], 30, "{event}");
        let blocks = h.get("onFailure").and_then(Value::as_str) == Some("block");
        assert_eq!(blocks, event == "PreToolUse", "{event}: {h}");
    }
    assert_eq!(doctor_problems(&p), (0, vec![]));
}

#[test]
fn a_fail_open_project_keeps_todays_entries() {
    let p = Project::new();
    install(&p);
    assert!(
        handlers(&p)
            .iter()
            .all(|(_, h)| h.get("onFailure").is_none()),
        "{:?}",
        handlers(&p)
    );
    // A sequence that fails closed makes the project fail closed.
    std::fs::create_dir_all(p.root().join(".seed/sequences")).unwrap();
    std::fs::write(
        p.root().join(".seed/sequences/strict.json"),
        r#"{"name":"strict","description":"x","enforcement":"enforce","fail":"closed",
            "tool_transitions":{"w.start":{"next_allowed":["w.next"]}}}"#,
    )
    .unwrap();
    std::fs::write(p.root().join(".seed.toml"), "sequence = \"strict\"\n").unwrap();
    install(&p);
    let gate = handlers(&p)
        .into_iter()
        .find(|(e, _)| e == "PreToolUse")
        .unwrap()
        .1;
    assert_eq!(gate["onFailure"], "block", "{gate}");
}

#[test]
fn doctor_names_a_fail_closed_gate_without_on_failure_and_a_short_timeout() {
    let p = Project::new();
    install(&p);
    std::fs::write(p.root().join(".seed.toml"), "fail = \"closed\"\n").unwrap();
    let (code, problems) = doctor_problems(&p);
    assert_eq!(code, 1);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .starts_with("fail = \"closed\" but the handler has no \"onFailure\": \"block\"")
    );
    install(&p);
    assert_eq!(doctor_problems(&p), (0, vec![]));
    // A timeout edited below the budget: Claude Code would stop the hook before it answers.
    let path = p.root().join(".claude/settings.local.json");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"timeout\": 30", "\"timeout\": 5");
    std::fs::write(&path, text).unwrap();
    let (code, problems) = doctor_problems(&p);
    assert_eq!(code, 1);
    assert!(!problems.is_empty());
    assert!(
        problems
            .iter()
            .all(|p| p.starts_with("its timeout (5 s) is not above hook_budget_ms (10000 ms)")),
        "{problems:?}"
    );
}
