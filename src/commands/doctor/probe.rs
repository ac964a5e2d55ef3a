//! Running an installed hook command as Claude Code would: a canned payload on stdin, in the
//! project, with the environment (and so the state directory) the hook will use; then what its
//! reply and stderr say.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

/// Canned payloads per event (a neutral call, a prompt).
pub fn canned(event: &str, session: &str, cwd: &Path) -> Option<Value> {
    let mut v = json!({ "session_id": session, "transcript_path": "", "cwd": cwd, "hook_event_name": event });
    match event {
        "PreToolUse" => {
            v["tool_name"] = json!("Read");
            v["tool_input"] = json!({ "file_path": "/dev/null" });
            v["tool_use_id"] = json!("toolu_doctor");
        }
        "UserPromptSubmit" => v["prompt"] = json!("seed doctor check"),
        "SessionStart" => v["source"] = json!("startup"),
        _ => return None,
    }
    Some(v)
}

/// Problems with a reply, per the protocol (empty: valid).
pub fn check_reply(event: &str, exit: Option<i32>, stdout: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if exit != Some(0) {
        problems.push(format!("exit code {exit:?}, expected 0"));
    }
    let out = stdout.trim();
    if out.is_empty() {
        return problems;
    }
    let Ok(v) = serde_json::from_str::<Value>(out) else {
        problems.push("stdout is not one JSON object".into());
        return problems;
    };
    if !v.is_object() {
        problems.push("stdout JSON is not an object".into());
    }
    if let Some(spec) = v.get("hookSpecificOutput") {
        if spec.get("hookEventName").and_then(Value::as_str) != Some(event) {
            problems.push(format!(
                "hookSpecificOutput.hookEventName is not \"{event}\""
            ));
        }
        if let Some(d) = spec.get("permissionDecision")
            && !matches!(d.as_str(), Some("allow" | "deny" | "ask"))
        {
            problems.push(format!("permissionDecision {d} is not allow/deny/ask"));
        }
    }
    if let Some(d) = v.get("decision")
        && !matches!(d.as_str(), Some("block" | "approve"))
    {
        problems.push(format!("decision {d} is not block/approve"));
    }
    problems
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
