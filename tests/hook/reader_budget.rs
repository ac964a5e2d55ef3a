//! A deep-state reader walks directories within a budget (entries and time, per evaluation):
//! a glob that reaches a whole tree stops there, its value is unknown, and the hook's record
//! says which reader stopped and why. `validate` warns about globs that can reach that far.

use crate::support::hook as hook_common;

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use hook_common::{Sandbox, payload};
use seed::engine::ir::{ReaderDecl, ReaderKind};
use seed::store::readers::{self, Budget, MAX_SCAN_ENTRIES, ReaderVars};
use serde_json::{Value, json};

/// `dirs` directories of `files` empty files each under `root/tree`.
fn tree(root: &Path, dirs: usize, files: usize) {
    for d in 0..dirs {
        let dir = root.join("tree").join(format!("d{d}"));
        fs::create_dir_all(&dir).unwrap();
        for f in 0..files {
            fs::File::create(dir.join(format!("f{f}.json"))).unwrap();
        }
    }
}

fn vars(project: &Path) -> ReaderVars {
    ReaderVars {
        project_dir: Some(project.display().to_string()),
        ..ReaderVars::default()
    }
}

fn count(path: &str) -> ReaderKind {
    ReaderKind::Count { path: path.into() }
}

#[test]
fn a_glob_within_the_budget_counts_every_match() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path(), 10, 20);
    let v = readers::evaluate(
        &count("tree/*/*.json"),
        &vars(dir.path()),
        SystemTime::now(),
    );
    assert_eq!(v, json!(200));
}

#[test]
fn a_glob_past_the_entry_budget_stops_and_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    // 100 directories of 100 files: 10,100 entries to look at, one reader may see 10,000.
    tree(dir.path(), 100, 100);
    // Time enough for any machine: the entries run out first.
    let mut budget = Budget::new(MAX_SCAN_ENTRIES, Duration::from_secs(600));
    let v = readers::evaluate_within(
        &count("tree/*/*"),
        &vars(dir.path()),
        SystemTime::now(),
        &mut budget,
    );
    assert_eq!(v, Value::Null, "a partial count would be wrong");
    assert!(budget.exceeded());
    assert!(
        budget.report().starts_with(&format!(
            "stopped after {MAX_SCAN_ENTRIES} directory entries in "
        )),
        "{}",
        budget.report()
    );
    // Sampled as a hook does (whichever of entries and time runs out first), it is unknown
    // and noted.
    let decl = ReaderDecl {
        name: "n".into(),
        kind: count("tree/*/*"),
        description: None,
    };
    let (facts, notes) = readers::sample_noting([&decl], &vars(dir.path()), SystemTime::now());
    assert_eq!(facts["n"], Value::Null);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("reader `n` (tree/*/*) stopped after ")
            && notes[0].ends_with(": its value is unknown"),
        "{notes:?}"
    );
    // Each reader has a budget of its own: a small one beside it is not starved.
    let small = ReaderDecl {
        name: "one".into(),
        kind: count("tree/d1/*"),
        description: None,
    };
    let (facts, notes) =
        readers::sample_noting([&decl, &small], &vars(dir.path()), SystemTime::now());
    assert_eq!((facts["one"].clone(), notes.len()), (json!(100), 1));
}

#[test]
fn a_walk_past_the_time_budget_stops_and_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path(), 3, 100);
    let mut spent = Budget::new(usize::MAX, Duration::ZERO);
    let v = readers::evaluate_within(
        &count("tree/*/*"),
        &vars(dir.path()),
        SystemTime::now(),
        &mut spent,
    );
    assert!(spent.exceeded());
    assert_eq!(v, Value::Null);
    assert!(
        spent.report().contains("directory entries in"),
        "{}",
        spent.report()
    );
}

#[test]
fn a_hook_stops_a_costly_reader_and_its_record_says_so() {
    let s = Sandbox::new();
    tree(&s.project(), 100, 101);
    let seqs = s.project().join(".seed/sequences");
    fs::create_dir_all(&seqs).unwrap();
    fs::write(
        seqs.join("walk.json"),
        r#"{"name": "walk", "tool_transitions": {"a.x": {"next_allowed": ["b.y"]}},
            "state_readers": {"n": "count:${CLAUDE_PROJECT_DIR}/tree/*/*", "one": "count:tree/d7/*"},
            "state_constraints": {"many": {"when": {"reader": "n", "op": ">", "value": 5}, "disallowed_tools": ["mcp__a__x"]}}}"#,
    )
    .unwrap();
    s.write_config("sequence = \"walk\"\n");
    let started = Instant::now();
    let run = s.hook(
        &["PreToolUse"],
        payload(
            "PreToolUse",
            "budget",
            json!({"tool_name": "mcp__a__x", "tool_input": {}}),
        ),
    );
    let took = started.elapsed();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout.trim(),
        "",
        "unknown, so the constraint does not apply"
    );
    assert!(
        run.stderr
            .contains("seed: warning: reader `n` (${CLAUDE_PROJECT_DIR}/tree/*/*) stopped after "),
        "{}",
        run.stderr
    );
    let record = s.log_lines("budget").pop().expect("a record");
    assert_eq!(record["facts"], json!({"n": null, "one": 101}));
    let warnings = record["extra"]["warnings"].to_string();
    assert!(
        warnings.contains("reader `n`") && warnings.contains("its value is unknown"),
        "{warnings}"
    );
    // Far from the 1.5M-entry walk a tree like this cost without a budget.
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn validate_warns_about_a_glob_of_several_wildcard_directories() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.json");
    fs::write(
        &file,
        "{\n  \"name\": \"g\",\n  \"tool_transitions\": {\"a.x\": {\"next_allowed\": [\"b.y\"]}},\n  \"state_readers\": {\"n\": \"count:/*/*/*/*/*/*\", \"ok\": \"json:${HOME}/*/state.json#/s\"},\n  \"state_constraints\": {\"c\": {\n    \"when\": {\"reader\": \"n\", \"op\": \">\", \"value\": 3},\n    \"disallowed_tools\": [\"Write\"]}}\n}",
    )
    .unwrap();
    let out = assert_cmd::Command::cargo_bin("seed")
        .unwrap()
        .arg("validate")
        .arg(&file)
        .env("SEED_HOME", dir.path())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8_lossy(&out);
    assert!(
        out.contains(&format!("{}:6:5: warning[costly-glob]: reader `n` reads `/*/*/*/*/*/*`: 5 wildcard directories can reach a whole tree", file.display())),
        "{out}"
    );
    assert_eq!(
        out.matches("costly-glob").count(),
        1,
        "one wildcard directory is fine: {out}"
    );
}
