//! Sessions whose workflow is known — edit, test, edit, test, commit — give the draft that
//! workflow, and the what-if report counts exactly the calls it would have refused.

use serde_json::json;

use crate::transcripts::*;

/// Three sessions that edit, test (once or twice) and commit, and one that goes astray.
fn known_workflow(dir: &std::path::Path) {
    let sessions = dir.join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let (e, t, c) = (
        edit("/p/src/lib.rs"),
        bash("cargo test"),
        bash("git commit -m cache"),
    );
    Writer::new("s1", "add a cache")
        .calls(&[
            read("/p/src/lib.rs"),
            e.clone(),
            t.clone(),
            e.clone(),
            t.clone(),
            c.clone(),
        ])
        .end()
        .write(&sessions);
    Writer::new("s2", "fix the typo")
        .calls(&[e.clone(), t.clone(), c.clone()])
        .end()
        .write(&sessions);
    Writer::new("s3", "add a flag")
        .calls(&[e.clone(), bash("cargo test --lib"), e.clone(), t.clone(), c])
        .end()
        .write(&sessions);
    Writer::new("s4", "clean up")
        .calls(&[e, bash("rm -rf build"), bash("git push origin main")])
        .end()
        .write(&sessions);
}

#[test]
fn the_draft_is_the_workflow_the_sessions_followed() {
    let dir = tempfile::tempdir().unwrap();
    known_workflow(dir.path());
    let r = learn(dir.path(), &[]);
    // Read is neutral; rm and push were made once each: rarer than the threshold.
    assert_eq!(
        edges(&r),
        [
            "Bash(cargo test) -> Bash(git commit) ×3",
            "Bash(cargo test) -> Edit ×2",
            "Bash(git commit) -> end ×3",
            "Edit -> Bash(cargo test) ×5",
            "Edit -> end ×1",
            "start -> Edit ×4",
        ]
    );
    let kinds: Vec<(&str, &str)> = r["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["to"].as_str().unwrap(), e["kept"].as_str().unwrap()))
        .filter(|(_, k)| *k != "threshold")
        .collect();
    assert_eq!(
        kinds,
        [("end", "strongest")],
        "s4's end is Edit's strongest way out"
    );
    assert_eq!(r["mined_calls"], json!(16), "every call but the read");
    // The what-if: s4's rm and push would have been refused, nothing else.
    assert_eq!(
        refused(&r),
        [
            ("s1.jsonl".to_string(), 6, 0),
            ("s2.jsonl".to_string(), 3, 0),
            ("s3.jsonl".to_string(), 5, 0),
            ("s4.jsonl".to_string(), 3, 2),
        ]
    );
    let s4 = &r["sessions"][3]["first_refused"];
    assert_eq!(s4[0]["call"], json!("Bash"));
    assert!(
        s4[0]["reason"].as_str().unwrap().contains("rm -rf build"),
        "{s4}"
    );
}

#[test]
fn the_thresholds_decide_what_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    known_workflow(dir.path());
    // Every edge seen once is kept: nothing is refused.
    let r = learn(dir.path(), &["--min-count", "1"]);
    assert!(
        edges(&r).contains(&"Bash(rm) -> Bash(git push) ×1".to_string()),
        "{:?}",
        edges(&r)
    );
    assert_eq!(r["refused"], json!(0));
    // A stricter dependency leaves the edit-test loop out: each session that went back from
    // a test to an edit has that edit and the next test refused (the draft stays at the test).
    let r = learn(dir.path(), &["--dependency", "0.9"]);
    assert!(!edges(&r).contains(&"Bash(cargo test) -> Edit ×2".to_string()));
    assert_eq!(
        refused(&r).iter().map(|(_, _, n)| *n).collect::<Vec<_>>(),
        [2, 0, 2, 2]
    );
    assert_eq!(r["refused"], json!(6));
}

#[test]
fn calls_side_by_side_are_judged_from_the_step_they_started_at() {
    // The hook judges each call when it starts and moves when it completes: two calls made
    // together both start at the edit, so the draft must let each of them through from there.
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    for id in ["p1", "p2"] {
        let mut w = Writer::new(id, "check it");
        w.turn(edit("/p/a.rs"))
            .turn(Turn::Together(vec![
                bash("cargo test"),
                bash("cargo clippy"),
            ]))
            .turn(bash("git commit -m x"))
            .end()
            .write(&sessions);
    }
    let r = learn(dir.path(), &[]);
    assert_eq!(
        edges(&r),
        [
            "Bash(cargo clippy) -> Bash(git commit) ×2",
            "Bash(cargo test) -> Bash(cargo clippy) ×2",
            "Bash(git commit) -> end ×2",
            "Edit -> Bash(cargo clippy) ×2",
            "Edit -> Bash(cargo test) ×2",
            "start -> Edit ×2",
        ]
    );
    assert_eq!(r["refused"], json!(0));
}

#[test]
fn a_failed_call_moves_nothing_and_a_refused_one_is_no_part_of_the_workflow() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    for id in ["f1", "f2"] {
        Writer::new(id, "make it pass")
            .calls(&[
                edit("/p/a.rs"),
                bash("cargo test").failing(),
                bash("git reset --hard").refused(),
                edit("/p/a.rs"),
                bash("cargo test"),
                bash("git commit -m x"),
            ])
            .end()
            .write(&sessions);
    }
    let r = learn(dir.path(), &[]);
    // The failing run left the session at the edit: the next edit repeats it.
    assert_eq!(
        edges(&r),
        [
            "Bash(cargo test) -> Bash(git commit) ×2",
            "Bash(git commit) -> end ×2",
            "Edit -> Bash(cargo test) ×4",
            "Edit -> Edit ×2",
            "start -> Edit ×2",
        ]
    );
    let labels: Vec<&str> = r["activities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["activity"].as_str().unwrap())
        .collect();
    assert!(!labels.contains(&"Bash(git reset)"), "{labels:?}");
    // The replay sees the refusal the hook recorded, and the draft refuses it too.
    assert_eq!(
        refused(&r)
            .iter()
            .map(|(_, c, n)| (*c, *n))
            .collect::<Vec<_>>(),
        [(6, 1), (6, 1)]
    );
}

#[test]
fn the_written_draft_validates_and_names_its_method() {
    let dir = tempfile::tempdir().unwrap();
    known_workflow(dir.path());
    let out = seed(&["learn", "sessions", "--out", "ours.toml"], dir.path());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("draft written: ours.toml and ours.mmd"),
        "{}",
        out.stdout
    );
    let v = seed(&["validate", "ours.toml"], dir.path());
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    assert!(v.stdout.contains("0 errors, 0 warnings"), "{}", v.stdout);
    let diagram = std::fs::read_to_string(dir.path().join("ours.mmd")).unwrap();
    assert!(diagram.contains("heuristics miner's dependency graph (Weijters & van der Aalst)"));
    assert!(diagram.contains("    %% 5 times (dependency 0.38; the two alternate: 0.80)\n    edit --> bash_cargo_test : Bash(command=cargo test) | Bash(command=cargo test *)"), "{diagram}");
    let manifest = std::fs::read_to_string(dir.path().join("ours.toml")).unwrap();
    assert!(manifest.contains("name = \"ours\"") && manifest.contains("diagram = \"ours.mmd\""));
    assert_eq!(manifest.matches("enforcement = \"advise\"").count(), 1);
    // A second --out to the same file refuses rather than replace an edited draft.
    let again = seed(&["learn", "sessions", "--out", "ours.toml"], dir.path());
    assert_eq!(again.code, 1);
    assert_eq!(
        again.stderr.trim(),
        "seed: ours.toml: already exists; choose another --out or remove it"
    );
}

#[test]
fn seeds_own_logs_teach_the_same_workflow() {
    // The hook's records of the same calls: PreToolUse, then PostToolUse.
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("state").join("sessions");
    for id in ["l1", "l2"] {
        let d = sessions.join(id);
        std::fs::create_dir_all(&d).unwrap();
        let mut lines = Vec::new();
        for (n, cmd) in [
            (1, None),
            (2, Some("cargo test")),
            (3, Some("git commit -m x")),
        ] {
            let (tool, input) = match cmd {
                None => ("Edit", json!({"file_path": "/p/a.rs"})),
                Some(c) => ("Bash", json!({ "command": c })),
            };
            for (hook, phase) in [("PreToolUse", "gate"), ("PostToolUse", "advance")] {
                lines.push(json!({"v": 1, "session": id, "hook": hook, "phase": phase,
                    "tool_use_id": format!("t{n}"), "event": {"kind": "tool", "name": tool, "input": input}}).to_string());
            }
        }
        std::fs::write(d.join("log.jsonl"), lines.join("\n") + "\n").unwrap();
    }
    let out = seed(&["learn", "state", "--json"], dir.path());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let r = out.json();
    assert_eq!(
        edges(&r),
        [
            "Bash(cargo test) -> Bash(git commit) ×2",
            "Bash(git commit) -> end ×2",
            "Edit -> Bash(cargo test) ×2",
            "start -> Edit ×2",
        ]
    );
    assert_eq!(r["refused"], json!(0));
}
