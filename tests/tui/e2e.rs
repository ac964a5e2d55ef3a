//! `seed tui` in a real terminal: tmux runs it on a temporary state directory, `seed hook`
//! appends records, `capture-pane` sees the screen change, `q` restores the terminal.
//! Skipped (with the reason printed) where tmux is not installed; `.ci/run` installs it.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SEED: &str = env!("CARGO_BIN_EXE_seed");

struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(15),
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

fn hook(state: &Path, proj: &Path, event: &str, payload: serde_json::Value) {
    let mut child = Command::new(SEED)
        .args(["hook", event])
        .current_dir(proj)
        .env("SEED_HOME", state)
        .env("SEED_SEQUENCE", "compound_intelligence")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("seed hook runs");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(payload.to_string().as_bytes())
        .expect("payload");
    drop(stdin);
    assert!(child.wait().expect("hook exits").success());
}

#[test]
fn follows_a_live_session_and_restores_the_terminal() {
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("skipped: tmux is not installed (.ci/run installs it)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state");
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(&proj).expect("project dir");
    let cwd = proj.display().to_string();
    let call = |id: &str, tool: &str, event: &str| {
        serde_json::json!({
            "session_id": "e2e-session", "cwd": cwd, "hook_event_name": event,
            "tool_name": tool, "tool_input": {}, "tool_use_id": id, "tool_response": {"ok": true}
        })
    };
    let tmux = Tmux {
        socket: format!("seed-e2e-{}", std::process::id()),
    };
    let cmd = format!(
        "env SEED_HOME='{}' TERM=xterm-256color '{SEED}' tui; echo SEED-EXIT=$?; sleep 60",
        state.display()
    );
    let out = tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "e2e",
        "-x",
        "100",
        "-y",
        "30",
        "-c",
        &cwd,
        &cmd,
    ]);
    assert!(
        out.status.success(),
        "tmux: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // No session yet: the dashboard waits for one, in the alternate screen.
    tmux.wait_for("the dashboard", |s| s.contains("waiting for hook events"));
    let alt = tmux.run(&["display-message", "-p", "-t", "e2e", "#{alternate_on}"]);
    assert_eq!(String::from_utf8_lossy(&alt.stdout).trim(), "1");

    // A session starts: the dashboard finds it and follows it.
    hook(
        &state,
        &proj,
        "SessionStart",
        serde_json::json!({
            "session_id": "e2e-session", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"
        }),
    );
    tmux.wait_for("the new session", |s| {
        s.contains("e2e-session") && s.contains("SessionStart")
    });

    // A call goes through, another is denied: both show, with the state moving on.
    hook(
        &state,
        &proj,
        "PreToolUse",
        call("t1", "mcp__seed__who_am_i", "PreToolUse"),
    );
    hook(
        &state,
        &proj,
        "PostToolUse",
        call("t1", "mcp__seed__who_am_i", "PostToolUse"),
    );
    hook(
        &state,
        &proj,
        "PreToolUse",
        call("t2", "mcp__starship__fly", "PreToolUse"),
    );
    let s = tmux.wait_for("the calls", |s| {
        s.contains("mcp__seed__who_am_i {}") && s.contains("1 denied")
    });
    assert!(s.contains("mcp__starship__fly {}"), "{s}");
    // The next call as the agent makes it.
    assert!(s.contains("next: call mcp__seed__what_do_i_do"), "{s}");

    // `q` quits and the terminal is back: no alternate screen, the shell prints the exit code.
    tmux.run(&["send-keys", "-t", "e2e", "q"]);
    let s = tmux.wait_for("the exit", |s| s.contains("SEED-EXIT="));
    assert!(s.contains("SEED-EXIT=0"), "{s}");
    let alt = tmux.run(&["display-message", "-p", "-t", "e2e", "#{alternate_on}"]);
    assert_eq!(String::from_utf8_lossy(&alt.stdout).trim(), "0");

    // SIGTERM restores the terminal too.
    let cmd = format!(
        "env SEED_HOME='{}' TERM=xterm-256color '{SEED}' tui --session e2e-session; echo SEED-TERM=$?; sleep 60",
        state.display()
    );
    tmux.run(&["respawn-pane", "-k", "-t", "e2e", "-c", &cwd, &cmd]);
    tmux.wait_for("the dashboard again", |s| {
        s.contains("mcp__seed__who_am_i {}")
    });
    let shell = tmux.run(&["display-message", "-p", "-t", "e2e", "#{pane_pid}"]);
    let shell = String::from_utf8_lossy(&shell.stdout).trim().to_string();
    let kids = Command::new("ps")
        .args(["-o", "pid=", "--ppid", &shell])
        .output()
        .expect("ps");
    let pid = String::from_utf8_lossy(&kids.stdout)
        .split_whitespace()
        .next()
        .expect("seed runs under the pane's shell")
        .to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill")
            .success()
    );
    let s = tmux.wait_for("the exit on SIGTERM", |s| s.contains("SEED-TERM="));
    assert!(s.contains("SEED-TERM=0"), "{s}");
    let alt = tmux.run(&["display-message", "-p", "-t", "e2e", "#{alternate_on}"]);
    assert_eq!(String::from_utf8_lossy(&alt.stdout).trim(), "0");
}

#[test]
fn the_demo_plays_the_bundled_session_to_the_end_and_cleans_up() {
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("skipped: tmux is not installed (.ci/run installs it)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp dir");
    let records = seed::demo::SESSION_LOG.lines().count();
    let tmux = Tmux {
        socket: format!("seed-e2e-demo-{}", std::process::id()),
    };
    let cmd = format!(
        "env TMPDIR='{}' SEED_HOME='{}' TERM=xterm-256color '{SEED}' demo; echo SEED-EXIT=$?; sleep 60",
        tmp.display(),
        dir.path().join("state").display()
    );
    let out = tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "e2e",
        "-x",
        "120",
        "-y",
        "40",
        &cmd,
    ]);
    assert!(
        out.status.success(),
        "tmux: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // It starts playing on its own; `+` six times is the fastest speed.
    tmux.wait_for("playback", |s| s.contains("REPLAY") && s.contains('▶'));
    for _ in 0..6 {
        tmux.run(&["send-keys", "-t", "e2e", "+"]);
    }
    let end = format!("REPLAY {records}/{records} ‖ 64×");
    let s = tmux.wait_for("the end of the session", |s| s.contains(&end));
    assert!(s.contains("mcp__waypoint__complete_journey"), "{s}");
    assert!(s.contains("100%"), "{s}");

    tmux.run(&["send-keys", "-t", "e2e", "q"]);
    let s = tmux.wait_for("the exit", |s| s.contains("SEED-EXIT="));
    assert!(s.contains("SEED-EXIT=0"), "{s}");
    let left: Vec<_> = std::fs::read_dir(&tmp).expect("tmp dir").collect();
    assert!(left.is_empty(), "the demo left files behind: {left:?}");
}
