//! Seed 000, tier 2: "Read actual system state … The state readers will access the actual
//! file systems used by each component" — for the HEAVEN systems, under `HEAVEN_DATA_DIR`.
//! Unset, those readers read nothing and tier 2 never applies: `status` and `validate` say so
//! in one line (and say nothing when it is set, or when no reader needs it).

use assert_cmd::Command;

const LINE: &str = "deep state (tier 2) never applies: HEAVEN_DATA_DIR is not set, so readers waypoint_status, starlog_status, flight_status read nothing (set it to where the HEAVEN systems keep their state)";

fn seed(args: &[&str], dir: &std::path::Path, heaven: Option<&str>) -> (String, String) {
    let mut c = Command::cargo_bin("seed").unwrap();
    c.current_dir(dir)
        .env("SEED_HOME", dir.join("state"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("HEAVEN_DATA_DIR");
    if let Some(h) = heaven {
        c.env("HEAVEN_DATA_DIR", h);
    }
    let o = c.args(args).output().unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn events(dir: &std::path::Path) -> String {
    let path = dir.join("events.jsonl");
    std::fs::write(
        &path,
        r#"{"v":1,"hook":"PostToolUse","phase":"advance","event":{"kind":"tool","name":"seed.who_am_i"},"sequences":["compound_intelligence"]}"#.to_string() + "\n",
    )
    .unwrap();
    path.display().to_string()
}

#[test]
fn status_says_in_one_line_that_tier_2_never_applies() {
    let dir = tempfile::tempdir().unwrap();
    let ev = events(dir.path());
    let args = [
        "status",
        "--events",
        &ev,
        "--sequence",
        "compound_intelligence",
    ];
    let (out, err) = seed(&args, dir.path(), None);
    assert_eq!(out.lines().filter(|l| *l == LINE).count(), 1, "{out}{err}");
    let (out, _) = seed(&args, dir.path(), Some("/srv/heaven"));
    assert!(!out.contains("never applies"), "{out}");
    // An empty value is no directory: the hook reads it as unset, and so is it said.
    let (out, _) = seed(&args, dir.path(), Some(""));
    assert!(out.contains(LINE), "{out}");
    let mut json = args.to_vec();
    json.push("--json");
    let (out, _) = seed(&json, dir.path(), None);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["deep_state_notice"], LINE);
    // A sequence whose readers need no HEAVEN_DATA_DIR says nothing.
    let (out, _) = seed(
        &["status", "--events", &ev, "--sequence", "tdd"],
        dir.path(),
        None,
    );
    assert!(!out.contains("never applies"), "{out}");
}

#[test]
fn validate_warns_once_per_sequence_that_needs_it() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = seed(&["validate", "compound_intelligence"], dir.path(), None);
    let warned: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("deep-state-unset"))
        .collect();
    assert_eq!(
        warned,
        [format!("  compound_intelligence: warning[deep-state-unset]: {LINE}").as_str()],
        "{out}"
    );
    let (out, _) = seed(
        &["validate", "compound_intelligence"],
        dir.path(),
        Some("/srv/h"),
    );
    assert!(!out.contains("deep-state-unset"), "{out}");
    let (out, _) = seed(&["validate", "giint_workflow"], dir.path(), None);
    assert!(
        !out.contains("deep-state-unset"),
        "no reader needs it: {out}"
    );
}
