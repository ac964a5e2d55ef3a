//! A sequence name is checked wherever one is taken: a name that names no sequence is an
//! error, in one line, naming the sequence most likely meant — on the command line of every
//! command, and in the hook's answer (which fails open, so its line on stderr is the sign).

use assert_cmd::Command;

fn seed(dir: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("seed").unwrap();
    c.current_dir(dir)
        .env("SEED_HOME", dir.join("state"))
        .env("SEED_CONFIG_DIR", dir.join("config"))
        .env_remove("SEED_SEQUENCE")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CLAUDE_CODE_SESSION_ID");
    c
}

const MEANT: &str = "no such sequence; did you mean `compound_intelligence`?";

#[test]
fn every_command_that_takes_a_sequence_names_the_one_meant() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let events = d.join("events.jsonl");
    std::fs::write(&events, "").unwrap();
    let out = d.join("frame.txt");
    let events = events.to_str().unwrap();
    let out = out.to_str().unwrap();
    let typo = "compund_intelligence";
    let runs: Vec<Vec<&str>> = vec![
        vec!["status", "--events", events, "--sequence", typo],
        vec!["recovery", "--events", events, "--sequence", typo],
        vec!["replay", "demo", "--summary", "--sequence", typo],
        vec![
            "screenshot",
            "demo",
            "--format",
            "txt",
            "--out",
            out,
            "--sequence",
            typo,
        ],
        vec!["validate", typo],
        vec![
            "install",
            "--local",
            "--bin",
            "/bin/true",
            "--sequence",
            typo,
        ],
    ];
    for args in runs {
        let o = seed(d).args(&args).output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        assert_eq!(o.status.code(), Some(1), "{args:?}: {stdout}{stderr}");
        // `validate` reports per file on stdout; the others fail with one line on stderr.
        let said = if args[0] == "validate" {
            stdout.to_string()
        } else {
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
            stderr.to_string()
        };
        assert!(said.contains(MEANT), "{args:?}: {said}");
        assert!(!std::path::Path::new(out).exists(), "{args:?}");
    }
    // `validate` also takes a name that is right, as every command does.
    let o = seed(d).args(["validate", "hope"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
}

#[test]
fn the_hook_says_the_name_meant_on_stderr_and_fails_open() {
    let dir = tempfile::tempdir().unwrap();
    let payload = r#"{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/p"}"#;
    let o = seed(dir.path())
        .args(["hook", "--sequence", "compund_intelligence", "PreToolUse"])
        .write_stdin(payload)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(o.stdout.is_empty());
    assert!(stderr.contains(MEANT), "{stderr}");
}
