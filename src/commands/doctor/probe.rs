//! Running an installed hook command as Claude Code would: a canned payload for its event on
//! stdin, in the project, with the environment (and so the state directory) the hook will
//! use; then what its stderr says (the reply's shape is `shape`'s).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

/// The tool a canned tool event names: one the group's matcher selects when it is a plain
/// name or a list of them (`Bash`, `Edit|Write`), else `Read`.
fn tool_for(matcher: Option<&str>) -> &str {
    let plain =
        |t: &&str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    matcher
        .and_then(|m| m.split('|').next())
        .filter(plain)
        .unwrap_or("Read")
}

/// A canned payload for `event`, as Claude Code sends it: a neutral tool call, a prompt, a
/// start, a stop, a subagent… An event seed does not install for gets the common fields.
pub fn canned(event: &str, matcher: Option<&str>, session: &str, cwd: &Path) -> Value {
    let mut v = json!({ "session_id": session, "transcript_path": "", "cwd": cwd,
        "permission_mode": "default", "hook_event_name": event });
    let tool = tool_for(matcher);
    let input = match tool {
        "Read" => json!({ "file_path": "/dev/null" }),
        _ => json!({}),
    };
    let mut set = |k: &str, x: Value| v[k] = x;
    match event {
        "PreToolUse" | "PostToolUse" | "PostToolUseFailure" => {
            set("tool_name", json!(tool));
            set("tool_input", input);
            set("tool_use_id", json!("toolu_doctor"));
            match event {
                "PostToolUse" => set("tool_response", json!({ "content": "" })),
                "PostToolUseFailure" => set("error", json!("seed doctor: a canned failure")),
                _ => {}
            }
        }
        "UserPromptSubmit" => set("prompt", json!("seed doctor check")),
        "SessionStart" => set("source", json!("startup")),
        "Stop" => set("stop_hook_active", json!(false)),
        "SubagentStart" | "SubagentStop" => {
            set("agent_id", json!("seed-doctor-agent"));
            set("agent_type", json!("general-purpose"));
            if event == "SubagentStop" {
                set("agent_transcript_path", json!(""));
                set("stop_hook_active", json!(false));
            }
        }
        "PreCompact" => {
            set("trigger", json!("manual"));
            set("custom_instructions", json!(""));
        }
        "SessionEnd" => set("reason", json!("other")),
        _ => {}
    }
    v
}

/// Errors seed reported on stderr. A hook that fails answers exit 0 with nothing on stdout
/// (fail-open), so its `seed: …` line is the only sign that it did not do its job; warnings
/// and notes are not failures.
pub fn check_stderr(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("seed: "))
        .filter(|l| !l.starts_with("seed: warning:") && !l.starts_with("seed: note:"))
        .map(|l| format!("seed failed: {}", l.trim_start_matches("seed: ")))
        .collect()
}

/// What one run gave: exit code, stdout, stderr, milliseconds.
pub struct Ran {
    pub exit: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub ms: f64,
}

/// Run `command` through the shell, as Claude Code runs a hook, in `project`.
pub fn run_command(command: &str, payload: &Value, project: &Path) -> Ran {
    let mut cmd = if cfg!(windows) {
        let mut c = Command::new("cmd");
        c.arg("/C").arg(command);
        c
    } else {
        // The shell by its path, as Claude Code finds it, whatever PATH holds.
        let sh = if Path::new("/bin/sh").exists() {
            "/bin/sh"
        } else {
            "sh"
        };
        let mut c = Command::new(sh);
        c.arg("-c").arg(command);
        c
    };
    cmd.env("CLAUDE_PROJECT_DIR", project)
        .current_dir(project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let t0 = Instant::now();
    let failed = |why: String| Ran {
        exit: None,
        stdout: String::new(),
        stderr: why,
        ms: 0.0,
    };
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return failed(format!("could not start the shell: {e}")),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(format!("{payload}\n").as_bytes());
    }
    match child.wait_with_output() {
        Ok(o) => Ran {
            exit: o.status.code(),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            ms: t0.elapsed().as_secs_f64() * 1000.0,
        },
        Err(e) => failed(e.to_string()),
    }
}
