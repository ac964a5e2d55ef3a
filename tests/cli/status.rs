//! `seed status` and `seed recovery` on files of records: the denied call's recovery, a
//! livelocked sequence, records this seed cannot read, and `seed validate` with nothing to
//! validate.

use assert_cmd::Command;
use serde_json::Value;

fn seed(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    Command::cargo_bin("seed")
        .unwrap()
        .current_dir(dir)
        .env("SEED_HOME", dir.join("state"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Records as the hook appends them, one per line.
fn records(dir: &std::path::Path, lines: &[&str]) -> String {
    let path = dir.join("events.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path.display().to_string()
}

const WHO_AM_I: &str = r#"{"v":1,"hook":"PostToolUse","phase":"advance","event":{"kind":"tool","name":"seed.who_am_i"},"sequences":["compound_intelligence"]}"#;
const FLY_DENIED: &str = r#"{"v":1,"hook":"PreToolUse","phase":"gate","event":{"kind":"tool","name":"starship.fly"},"sequences":["compound_intelligence"]}"#;

#[test]
fn recovery_shows_the_way_to_the_call_that_was_denied() {
    let dir = tempfile::tempdir().unwrap();
    let events = records(dir.path(), &[WHO_AM_I, FLY_DENIED]);
    let out = seed(&["recovery", "--events", &events], dir.path());
    assert!(out.status.success());
    let t = text(&out.stdout);
    assert!(t.contains("last denied call: mcp__starship__fly"), "{t}");
    assert!(
        t.contains("1. mcp__starship__fly becomes legal after: mcp__seed__what_do_i_do → mcp__starlog__check → mcp__starlog__orient."),
        "{t}"
    );

    let out = seed(&["recovery", "--events", &events, "--json"], dir.path());
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["denied_call"], "mcp__starship__fly");
    let path: Vec<&str> = j["path_to_denied"]
        .as_array()
        .expect("a path")
        .iter()
        .filter_map(|s| s["tool"].as_str())
        .collect();
    assert_eq!(path.last(), Some(&"mcp__starship__fly"));
    assert_eq!(path.len(), 4);

    let out = seed(&["status", "--events", &events, "--json"], dir.path());
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        j["recovery"][0]
            .as_str()
            .is_some_and(|s| s.starts_with("mcp__starship__fly becomes legal after")),
        "{j}"
    );
}

#[test]
fn a_livelocked_sequence_says_so_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("spin.mmd"),
        "stateDiagram-v2\n    [*] --> a\n    a --> b\n    b --> a\n    a --> c : Write\n    c --> [*]\n",
    )
    .unwrap();
    let events = records(dir.path(), &[]);
    let out = seed(
        &["status", "--sequence", "spin.mmd", "--events", &events],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("livelock: the sequence did not settle"));
    let out = seed(
        &[
            "status",
            "--sequence",
            "spin.mmd",
            "--events",
            &events,
            "--json",
        ],
        dir.path(),
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (j["livelock"].as_bool(), j["halted"].as_bool()),
        (Some(true), Some(false))
    );
    let out = seed(
        &["recovery", "--sequence", "spin.mmd", "--events", &events],
        dir.path(),
    );
    assert!(text(&out.stdout).contains("livelock:"));
}

#[test]
fn records_of_a_newer_format_are_skipped_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let newer = r#"{"v":99,"hook":"PostToolUse","phase":"advance","event":{"kind":"tool","name":"seed.what_do_i_do"},"sequences":["compound_intelligence"]}"#;
    let events = records(dir.path(), &[WHO_AM_I, newer, newer, "{torn"]);
    let out = seed(&["status", "--events", &events, "--json"], dir.path());
    assert!(out.status.success());
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        j["step"], "seed.who_am_i",
        "the v99 records were not folded"
    );
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("seed: skipped 1 malformed line(s) and 2 record(s) of a newer format"),
        "{err}"
    );
}

#[test]
fn validate_with_no_sequence_files_says_so_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "not a sequence").unwrap();
    let out = seed(&["validate", "empty"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains("no sequence files (.json, .yaml, .yml, .toml, .mmd) found in empty"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn validate_of_a_directory_checks_a_manifests_diagrams_through_the_manifest_only() {
    let dir = tempfile::tempdir().unwrap();
    let seqs = dir.path().join("seqs");
    std::fs::create_dir_all(seqs.join("flow")).unwrap();
    std::fs::write(
        seqs.join("flow.toml"),
        "name = \"flow\"\ndiagram = \"flow/top.mmd\"\n[[edge]]\nfrom = \"a\"\nto = \"b\"\nlabel = \"Bash\"\n",
    )
    .unwrap();
    // Alone, the nested diagram's prose edge is a finding; through the manifest it is bound.
    std::fs::write(
        seqs.join("flow/top.mmd"),
        "stateDiagram-v2\n  [*] --> a\n  a --> b : when ready\n  b --> [*] : Edit\n",
    )
    .unwrap();
    // A diagram no manifest nests is a sequence of its own.
    std::fs::write(
        seqs.join("solo.mmd"),
        "stateDiagram-v2\n  [*] --> a\n  a --> [*] : Edit\n",
    )
    .unwrap();
    let out = seed(&["validate", "seqs"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    let files: Vec<&str> = report
        .lines()
        .filter_map(|l| l.strip_prefix("ok   "))
        .filter_map(|l| l.split(':').next())
        .collect();
    assert_eq!(files, ["seqs/flow.toml", "seqs/solo.mmd"], "{report}");
    assert!(!report.contains("unparsed-label"), "{report}");
    // Named explicitly, a nested diagram is validated on its own.
    let out = seed(&["validate", "seqs/flow/top.mmd"], dir.path());
    assert!(
        text(&out.stdout).contains("warning[unparsed-label]"),
        "{}",
        text(&out.stdout)
    );
}
