//! The bundled demo session is what the real hook records from the demo script. When the
//! engine, a sequence or the hook changes what it records, this fails; regenerate with
//! `SEED_REGENERATE=1 cargo test --test demo`.

use seed::demo::{self, DemoDirs};

#[test]
fn bundled_demo_session_matches_a_fresh_recording() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = demo::record(&DemoDirs::under(dir.path())).expect("the demo script records");
    if std::env::var_os("SEED_REGENERATE").is_some() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/session.jsonl");
        std::fs::write(&path, demo::to_log(&fresh)).unwrap();
        eprintln!("regenerated {}", path.display());
        return;
    }
    assert_eq!(
        demo::comparable(&demo::bundled()),
        demo::comparable(&fresh),
        "assets/demo/session.jsonl is stale: run SEED_REGENERATE=1 cargo test --test demo"
    );
}

#[test]
fn the_demo_shows_every_kind_of_verdict() {
    let records = demo::bundled();
    let decisions: std::collections::BTreeSet<String> = records
        .iter()
        .filter_map(|r| r.verdict.as_ref())
        .map(|v| v.decision.as_str().to_string())
        .collect();
    for d in ["allow", "deny", "ask"] {
        assert!(decisions.contains(d), "demo has a `{d}`: {decisions:?}");
    }
    assert!(records.iter().any(|r| r.agent.is_some()), "a subagent lane");
    assert!(
        records.iter().any(|r| r.hook == "PostToolUseFailure"),
        "a failed call"
    );
    assert!(
        records.iter().any(|r| r
            .facts
            .get("waypoint_status")
            .is_some_and(|v| v == "active")),
        "deep state changes"
    );
}

#[test]
fn the_finished_demo_in_a_side_pane_says_done_not_zero_steps() {
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("frame.txt");
    assert_cmd::Command::cargo_bin("seed")
        .unwrap()
        .args(["screenshot", "demo", "--at-end", "--size", "40x20"])
        .args(["--format", "txt", "--out"])
        .arg(&file)
        .env("NO_COLOR", "")
        .assert()
        .success();
    let screen = std::fs::read_to_string(&file).unwrap();
    let overall = screen
        .lines()
        .find(|l| l.contains("overall"))
        .unwrap_or_else(|| panic!("an overall line:\n{screen}"));
    assert!(
        overall.contains("done") && !overall.contains('≥'),
        "{screen}"
    );
}
