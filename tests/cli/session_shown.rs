//! `status` and `recovery` say which session they show: its id, the project it ran in and its
//! age. Without `--session`, only a session of this directory's project is shown; from a project
//! no session ran in, the command refuses and names the newest session there is. A session
//! named from another project is shown with a warning, and an unknown `--session` is an error
//! everywhere, the dashboard included.

use std::path::Path;

use assert_cmd::Command;

fn seed(state: &Path, cwd: &Path) -> Command {
    let mut c = Command::cargo_bin("seed").unwrap();
    for k in [
        "SEED_SEQUENCE",
        "CLAUDE_PROJECT_DIR",
        "CLAUDE_CODE_SESSION_ID",
    ] {
        c.env_remove(k);
    }
    c.current_dir(cwd)
        .env("SEED_HOME", state)
        .env("SEED_CONFIG_DIR", state.join("no-config"));
    c
}

/// A session of `project` that called one tool, recorded by the hook.
fn session(state: &Path, project: &Path, id: &str) {
    for event in ["SessionStart", "PreToolUse", "PostToolUse"] {
        let payload = serde_json::json!({
            "session_id": id, "cwd": project, "hook_event_name": event, "source": "startup",
            "tool_name": "mcp__seed__who_am_i", "tool_input": {}, "tool_use_id": "t1",
            "tool_response": {},
        });
        seed(state, project)
            .args(["hook", "--sequence", "compound_intelligence"])
            .write_stdin(payload.to_string())
            .assert()
            .success();
    }
}

fn run(c: &mut Command) -> (i32, String, String) {
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn status_names_the_session_its_project_and_age_and_keeps_to_this_project() {
    let t = tempfile::tempdir().unwrap();
    let state = t.path().join("state");
    let (a, b) = (t.path().join("app"), t.path().join("other"));
    std::fs::create_dir_all(a.join("src")).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    session(&state, &a, "sess-a");
    let a_shown = a.display().to_string();

    for cmd in ["status", "recovery"] {
        // In the project, or below it: that project's session, named first.
        for cwd in [a.clone(), a.join("src")] {
            let (code, out, err) = run(seed(&state, &cwd).arg(cmd));
            assert_eq!(code, 0, "{cmd}: {err}");
            let first = out.lines().next().unwrap();
            let head = format!("session sess-a · project {a_shown} · started ");
            assert!(first.starts_with(&head), "{cmd}: {first}");
            // Seconds old: `just now`, or `N s ago` on a slow machine.
            assert!(
                first.ends_with(" ago") || first.ends_with("just now"),
                "{first}"
            );
            assert!(first.contains(" · last event "), "{first}");
            assert_eq!(out.lines().nth(1), Some(""), "{cmd}: {out}");
            assert!(!out.contains("warning:"), "{out}");
        }
        // From a project no session ran in: refused, and told which session there is.
        let (code, out, err) = run(seed(&state, &b).arg(cmd));
        assert_eq!((code, out.as_str()), (1, ""), "{cmd}");
        let said = format!(
            "seed: no session has run in {} yet; the newest session, sess-a, ran in {a_shown}, ",
            b.display()
        );
        assert!(err.starts_with(&said), "{err}");
        assert!(
            err.trim_end()
                .ends_with(": pass --session sess-a to see it"),
            "{err}"
        );
        // Named, it is shown, with a warning that it is not this directory's.
        let (code, out, _) = run(seed(&state, &b).args([cmd, "--session", "sess-a"]));
        assert_eq!(code, 0);
        assert_eq!(
            out.lines().nth(1),
            Some(
                format!(
                    "warning: this session ran in {a_shown}, not in this directory ({})",
                    b.display()
                )
                .as_str()
            ),
            "{out}"
        );
        let (code, out, _) = run(seed(&state, &b).args([cmd, "--session", "sess-a", "--json"]));
        assert_eq!(code, 0);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["session"]["id"], "sess-a");
        assert_eq!(v["session"]["project"], a_shown);
        assert_eq!(v["session"]["elsewhere"], true);
        assert!(v["session"]["started"].as_str().unwrap().ends_with('Z'));
    }
}

#[test]
fn an_unknown_session_is_an_error_everywhere() {
    let t = tempfile::tempdir().unwrap();
    let state = t.path().join("state");
    session(&state, t.path(), "sess-a");
    for args in [
        vec!["status", "--session", "nope"],
        vec!["recovery", "--session", "nope"],
        vec!["tui", "--session", "nope"],
    ] {
        let (code, out, err) = run(seed(&state, t.path()).args(&args));
        assert_eq!((code, out.as_str()), (1, ""), "{args:?}");
        assert!(
            err.starts_with("seed: no session `nope` in "),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // A session to replay, screenshot or draw from is a file or a session id: neither is an
    // error too, before any terminal is taken or file written.
    let out = t.path().join("frame.svg");
    let out = out.to_str().unwrap();
    for args in [
        vec!["replay", "nope", "--summary"],
        vec!["replay", "nope", "--json"],
        vec!["tui", "--replay", "nope"],
        vec!["screenshot", "--format", "svg", "--out", out, "nope"],
    ] {
        let (code, stdout, err) = run(seed(&state, t.path()).args(&args));
        assert_eq!((code, stdout.as_str()), (1, ""), "{args:?}");
        assert_eq!(
            err.trim_end(),
            "seed: nope: no such file, and no session with that id in the state directory",
            "{args:?}"
        );
    }
    assert!(!Path::new(out).exists());
    // The dashboard checks its sequence before it takes the terminal, too.
    let (code, _, err) =
        run(seed(&state, t.path()).args(["tui", "--sequence", "compund_intelligence"]));
    assert_eq!(code, 1);
    assert!(
        err.contains("did you mean `compound_intelligence`?"),
        "{err}"
    );
}
