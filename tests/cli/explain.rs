//! `seed explain CALL`: for a sequence and the records of a session, the call asked about
//! gets the verdict the next hook would give, every rule that decides it with its
//! file:line:column in the sequence file, and the shortest way to make it legal. A call that
//! cannot be read is one line of error.

use assert_cmd::Command;
use serde_json::Value;

fn seed(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    Command::cargo_bin("seed")
        .unwrap()
        .current_dir(dir)
        .env("SEED_HOME", dir.join("state"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A Mermaid diagram and its TOML manifest: pushing is refused until the tests ran.
const DIAGRAM: &str = "stateDiagram-v2
    [*] --> red
    red --> green : Bash [input.command == \"*cargo test*\"]
    green --> [*] : Stop
";
const MANIFEST: &str = r#"name = "gate"
diagram = "gate.mmd"
enforcement = "enforce"
neutral_tools = ["Read"]

[[policy]]
state = "red"
deny = ["Bash(*git push*)"]
recovery = "Make the tests pass first."
"#;

/// `dir` with the gate sequence and an empty file of records.
fn gate(dir: &std::path::Path) -> String {
    std::fs::write(dir.join("gate.mmd"), DIAGRAM).unwrap();
    std::fs::write(dir.join("gate.toml"), MANIFEST).unwrap();
    let events = dir.join("events.jsonl");
    std::fs::write(&events, "").unwrap();
    events.display().to_string()
}

fn explain_json(dir: &std::path::Path, call: &str, sequence: &str, events: &str) -> Value {
    let out = seed(
        &[
            "explain",
            call,
            "--sequence",
            sequence,
            "--events",
            events,
            "--json",
        ],
        dir,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let all: Value = serde_json::from_slice(&out.stdout).unwrap();
    all["sequences"][0].clone()
}

#[test]
fn a_refused_call_names_the_policy_at_its_line_in_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let events = gate(dir.path());
    let e = explain_json(
        dir.path(),
        r#"Bash(command="git push")"#,
        "gate.toml",
        &events,
    );
    assert_eq!(e["decision"], "deny", "{e:#}");
    let rule = &e["rules"][0];
    assert_eq!(
        (
            rule["kind"].as_str(),
            rule["effect"].as_str(),
            rule["decides"].as_bool()
        ),
        (Some("policy"), Some("refuses"), Some(true)),
        "{e:#}"
    );
    assert!(
        rule["text"].as_str().unwrap().contains("\"red\" denies"),
        "{rule}"
    );
    // `[[policy]]` is line 6 of the manifest.
    let at = rule["at"].as_str().expect("a place");
    assert!(
        at.starts_with("gate.toml:6:") || at.contains("gate.toml:6:"),
        "{at}"
    );
    assert!(
        e["reason"]
            .as_str()
            .unwrap()
            .contains("Make the tests pass first.")
    );
    // The way out of "red" is the call its step takes; past it the policy no longer applies.
    assert_eq!(
        e["way"],
        serde_json::json!(["Bash(command=\"*cargo test*\")"]),
        "{e:#}"
    );
}

#[test]
fn a_step_names_its_edge_in_the_diagram() {
    let dir = tempfile::tempdir().unwrap();
    let events = gate(dir.path());
    let e = explain_json(
        dir.path(),
        r#"Bash(command="cargo test")"#,
        "gate.toml",
        &events,
    );
    assert_eq!(e["decision"], "allow");
    let step = &e["rules"][0];
    assert_eq!(step["kind"], "step", "{e:#}");
    assert_eq!(step["decides"], true);
    // The edge `red --> green` is line 3 of the diagram.
    assert!(
        step["at"].as_str().unwrap().contains("gate.mmd:3:"),
        "{step}"
    );
}

#[test]
fn the_text_says_the_verdict_the_rules_and_their_places() {
    let dir = tempfile::tempdir().unwrap();
    let events = gate(dir.path());
    let out = seed(
        &[
            "explain",
            "Read(file_path=\"x\")",
            "--sequence",
            "gate.toml",
            "--events",
            &events,
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(t.starts_with("gate — Read: allow (enforce)\n"), "{t}");
    assert!(t.contains("▶ neutral: the neutral list names Read"), "{t}");
}

#[test]
fn a_call_that_cannot_be_read_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let events = gate(dir.path());
    for bad in ["", "Bash(command=\"x\"", "Bash(command=x)", "Ba\u{1b}[2Jsh"] {
        let out = seed(
            &[
                "explain",
                bad,
                "--sequence",
                "gate.toml",
                "--events",
                &events,
            ],
            dir.path(),
        );
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{bad:?}: {err}");
        assert!(err.starts_with("seed: cannot read the call: "), "{err}");
        assert!(
            !err.contains('\u{1b}'),
            "no escape reaches the terminal: {err:?}"
        );
    }
}

#[test]
fn hostile_and_huge_input_values_are_shown_clean_and_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let events = gate(dir.path());
    let hostile = "Bash(command=\"git push \\u001b[31m\\u202e\")";
    let out = seed(
        &[
            "explain",
            hostile,
            "--sequence",
            "gate.toml",
            "--events",
            &events,
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(!t.contains('\u{1b}') && !t.contains('\u{202e}'), "{t:?}");
    assert!(t.contains("deny"), "{t}");
    // 100 KB of command: still one verdict.
    let huge = format!("Bash(command=\"git push {}\")", "x".repeat(100_000));
    let e = explain_json(dir.path(), &huge, "gate.toml", &events);
    assert_eq!(e["decision"], "deny");
}

/// Seed 003's workflow dialect: a YAML workflow's steps carry their places too.
#[test]
fn a_workflow_step_names_its_place_in_the_yaml() {
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("events.jsonl");
    std::fs::write(&events, "").unwrap();
    let e = explain_json(
        dir.path(),
        "Read(file_path=\"data/config.yaml\")",
        "hiivmind_add_source",
        &events.display().to_string(),
    );
    let rules = e["rules"].as_array().unwrap();
    assert!(rules.iter().any(|r| r["decides"] == true), "{e:#}");
    assert!(
        rules.iter().all(|r| r["kind"] == "neutral"
            || r["at"]
                .as_str()
                .is_some_and(|a| a.contains("hiivmind_add_source.yaml:"))),
        "{e:#}"
    );
}
