//! Which session `seed status` and `seed mcp` speak for: the same choice on both faces. The
//! calling session (`CLAUDE_CODE_SESSION_ID`) wins over the most recent one, and after `/clear`
//! (a new session id, while the MCP server started under the old one lives on) its successor
//! in the same project does.

use crate::support::mcp as mcp_common;

use std::path::Path;

use mcp_common::{Client, hook_payload, output_of, seed, text, without_session};
use serde_json::{Value, json};

/// A hook event of `session` running in `cwd`.
fn event(home: &Path, session: &str, cwd: &str, name: &str, extra: Value) {
    let mut p =
        json!({"session_id": session, "cwd": cwd, "hook_event_name": name, "transcript_path": ""});
    p.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    hook_payload(home, &p);
    // Distinct modification times, whatever the file system's resolution.
    std::thread::sleep(std::time::Duration::from_millis(20));
}

fn call(home: &Path, session: &str, cwd: &str, tool: &str, id: &str) {
    for name in ["PreToolUse", "PostToolUse"] {
        event(
            home,
            session,
            cwd,
            name,
            json!({"tool_name": tool, "tool_input": {}, "tool_use_id": id}),
        );
    }
}

/// `seed status --json` as a process Claude Code started for `caller` would run it (without
/// the session it names: the MCP tools leave that out).
fn cli_status(home: &Path, caller: Option<&str>) -> Value {
    let mut cmd = seed(home);
    cmd.args(["status", "--json"]);
    if let Some(c) = caller {
        cmd.env("CLAUDE_CODE_SESSION_ID", c);
    }
    let (out, code) = output_of(&mut cmd);
    assert_eq!(code, 0, "{out}");
    without_session(serde_json::from_str(&out).unwrap())
}

/// `seed status --json` run by hand (no calling session) in the project at `dir`.
fn cli_status_in(home: &Path, dir: &str) -> (Value, String, i32) {
    let out = seed(home)
        .args(["status", "--json"])
        .env("CLAUDE_PROJECT_DIR", dir)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (json, err, out.status.code().unwrap_or(-1))
}

fn mcp_status(home: &Path, caller: &str) -> Value {
    let mut c = Client::start(home, Some(caller));
    c.structured("status", json!({}))
}

#[test]
fn the_calling_session_wins_over_the_most_recent_one_on_both_faces() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    call(h, "sessA", "/projects/a", "mcp__seed__who_am_i", "t1");
    call(h, "sessA", "/projects/a", "mcp__seed__what_do_i_do", "t2");
    // Another project's session, written since.
    call(h, "sessZ", "/projects/z", "mcp__seed__who_am_i", "t1");

    let a = cli_status(h, Some("sessA"));
    assert_eq!(a["progress"]["overall"], 50.0, "sessA's own progress: {a}");
    assert_eq!(mcp_status(h, "sessA"), a, "one truth, two faces");
    // No caller: the newest session of the project the command runs in, which it names.
    let (z, _, _) = cli_status_in(h, "/projects/z");
    assert_eq!(z["progress"]["overall"], 25.0, "{z}");
    assert_eq!(z["session"]["id"], "sessZ");
    let (a, _, _) = cli_status_in(h, "/projects/a/src");
    assert_eq!(a["progress"]["overall"], 50.0, "from a subdirectory: {a}");
    assert_eq!(
        (
            a["session"]["id"].as_str(),
            a["session"]["project"].as_str()
        ),
        (Some("sessA"), Some("/projects/a"))
    );
    // A project no session ran in is told which one there is, not shown it.
    let (none, err, code) = cli_status_in(h, "/projects/new");
    assert_eq!((none, code), (Value::Null, 1));
    assert!(
        err.starts_with("seed: no session has run in /projects/new yet; the newest session, sessZ, ran in /projects/z")
            && err.trim_end().ends_with("pass --session sessZ to see it"),
        "{err}"
    );
    let (out, code) = output_of(
        seed(h)
            .args(["status", "--json", "--session", "sessZ"])
            .env("CLAUDE_CODE_SESSION_ID", "sessA"),
    );
    assert_eq!(code, 0);
    let z: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(z["progress"]["overall"], 25.0, "--session names one: {z}");
    assert_eq!(z["session"]["elsewhere"], true, "not this directory's: {z}");
    let (out, code) = output_of(
        seed(h)
            .arg("status")
            .env("CLAUDE_CODE_SESSION_ID", "no-such-session"),
    );
    assert_eq!(
        (out.as_str(), code),
        ("", 1),
        "an unknown caller is an error"
    );
}

#[test]
fn after_clear_the_successor_in_the_same_project_answers() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    event(
        h,
        "sessA",
        "/projects/a",
        "SessionStart",
        json!({"source": "startup"}),
    );
    call(h, "sessA", "/projects/a", "mcp__seed__who_am_i", "t1");
    // A session of the same project open beside it, started before the /clear.
    event(
        h,
        "sessSide",
        "/projects/a",
        "SessionStart",
        json!({"source": "startup"}),
    );
    // The server was started for sessA; the user runs /clear.
    let mut server = Client::start(h, Some("sessA"));
    event(
        h,
        "sessA",
        "/projects/a",
        "SessionEnd",
        json!({"reason": "clear"}),
    );
    event(
        h,
        "sessB",
        "/projects/a",
        "SessionStart",
        json!({"source": "clear"}),
    );
    call(h, "sessB", "/projects/a", "mcp__seed__who_am_i", "t1");
    call(h, "sessB", "/projects/a", "mcp__seed__what_do_i_do", "t2");
    // Another project's session, written last.
    call(h, "sessZ", "/projects/z", "mcp__seed__who_am_i", "t1");

    let b = cli_status(h, Some("sessB"));
    assert_eq!(b["progress"]["overall"], 50.0, "{b}");
    assert_eq!(
        cli_status(h, Some("sessA")),
        b,
        "sessA was cleared into sessB"
    );
    assert_eq!(server.structured("status", json!({})), b);
    let what = text(&server.call("what_do_i_do", json!({})));
    assert!(what.contains("Do next: call mcp__starlog__check"), "{what}");

    // The session beside it stays itself, even written after the clear.
    event(
        h,
        "sessSide",
        "/projects/a",
        "UserPromptSubmit",
        json!({"prompt": "hi"}),
    );
    assert_eq!(cli_status(h, Some("sessSide"))["progress"]["overall"], 0.0);
    // /resume back into sessA: its own records are newest again, so it is itself.
    event(
        h,
        "sessB",
        "/projects/a",
        "SessionEnd",
        json!({"reason": "resume"}),
    );
    event(
        h,
        "sessA",
        "/projects/a",
        "SessionStart",
        json!({"source": "resume"}),
    );
    assert_eq!(cli_status(h, Some("sessA"))["progress"]["overall"], 25.0);
    assert_eq!(
        cli_status(h, Some("sessB"))["progress"]["overall"],
        25.0,
        "sessB was resumed into sessA"
    );
}

/// seed's own failures reach the model as the CLI says them: the status tool's text ends with
/// the same line, lapses apart from fail-closed refusals.
#[test]
fn the_status_tool_counts_seeds_own_failures_as_the_cli_does() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let cwd = home.display().to_string();
    call(home, "s-fail", &cwd, "Read", "t1");
    let pre = json!({"session_id": "s-fail", "cwd": cwd, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"}});
    for fail in ["closed", "open", "open"] {
        seed(home)
            .args(["hook", "--fail", fail, "--bogus"])
            .write_stdin(pre.to_string())
            .output()
            .unwrap();
    }
    let mut cli = seed(home);
    cli.args(["status", "--session", "s-fail"]);
    let (out, code) = output_of(&mut cli);
    assert_eq!(code, 0, "{out}");
    let line = "seed's own failures: 2 lapses, 1 refused (fail = \"closed\") — `seed doctor` lists when and why";
    assert_eq!(out.trim_end().lines().last(), Some(line));
    let mut c = Client::start(home, Some("s-fail"));
    let answer = text(&c.call("status", json!({})));
    assert_eq!(answer.trim_end().lines().last(), Some(line), "{answer}");
    let v = c.structured("status", json!({}));
    assert_eq!(v["hook_failures"], json!({"lapses": 2, "failed_closed": 1}));
}
