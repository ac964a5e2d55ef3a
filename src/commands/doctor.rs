//! `seed doctor`: checks the installation end to end. It finds seed's entries in the Claude
//! Code settings files, runs canned payloads through the installed command (with a throwaway
//! state directory), validates each reply's shape and reports its latency.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

use super::CmdResult;
use super::install::{self, Scope};
use crate::cli;

/// Canned payloads per event (a neutral call, a prompt).
fn canned(event: &str, session: &str) -> Option<Value> {
    let base = json!({ "session_id": session, "transcript_path": "", "cwd": std::env::temp_dir(), "hook_event_name": event });
    let mut v = base;
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

fn run_command(
    command: &str,
    payload: &Value,
    home: &std::path::Path,
) -> (Option<i32>, String, String, f64) {
    let mut cmd = if cfg!(windows) {
        let mut c = Command::new("cmd");
        c.arg("/C").arg(command);
        c
    } else {
        let mut c = Command::new("sh");
        c.arg("-c").arg(command);
        c
    };
    cmd.env("SEED_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let t0 = Instant::now();
    let Ok(mut child) = cmd.spawn() else {
        return (None, String::new(), "could not start the shell".into(), 0.0);
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(format!("{payload}\n").as_bytes());
    }
    match child.wait_with_output() {
        Ok(o) => (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
            t0.elapsed().as_secs_f64() * 1000.0,
        ),
        Err(e) => (None, String::new(), e.to_string(), 0.0),
    }
}

pub fn run(args: cli::JsonArg) -> CmdResult {
    let session = format!("seed-doctor-{}", std::process::id());
    let home = TempDir(std::env::temp_dir().join(&session));
    crate::store::paths::ensure_dir(home.path())
        .map_err(|e| format!("cannot make a temp dir: {e}"))?;
    let mut files = Vec::new();
    let mut checks = Vec::new();
    let mut ok = true;
    for (scope, name) in [
        (Scope::User, "user"),
        (Scope::Project, "project"),
        (Scope::Local, "local"),
    ] {
        let Ok(path) = install::settings_path(scope) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let entries = match install::parse_settings(&path, &text) {
            Ok(v) => install::find_entries(&v),
            Err(e) => {
                ok = false;
                files.push(json!({ "scope": name, "path": path, "error": e }));
                continue;
            }
        };
        let events: Vec<&str> = entries.iter().map(|(e, _)| e.as_str()).collect();
        let missing: Vec<&str> = install::HOOK_EVENTS
            .iter()
            .map(|(e, _)| *e)
            .filter(|e| !entries.is_empty() && !events.contains(e))
            .collect();
        files.push(
            json!({ "scope": name, "path": path, "entries": entries.len(), "missing": missing }),
        );
        for (event, command) in &entries {
            let Some(payload) = canned(event, &session) else {
                continue;
            };
            let (exit, stdout, stderr, ms) = run_command(command, &payload, home.path());
            let problems = check_reply(event, exit, &stdout);
            ok &= problems.is_empty();
            checks.push(json!({ "scope": name, "event": event, "command": command, "ms": (ms * 100.0).round() / 100.0,
                "ok": problems.is_empty(), "problems": problems, "stdout": stdout.trim(), "stderr": stderr.trim() }));
        }
    }
    let installed = files.iter().any(|f| f["entries"].as_u64().unwrap_or(0) > 0);
    if !installed {
        // Not installed in any settings file (maybe as a plugin): check this executable itself.
        let exe: PathBuf = std::env::current_exe().unwrap_or_else(|_| "seed".into());
        let command = format!(
            "{} hook PreToolUse",
            install::shell_quote(&exe.display().to_string())
        );
        if let Some(payload) = canned("PreToolUse", &session) {
            let (exit, stdout, stderr, ms) = run_command(&command, &payload, home.path());
            let problems = check_reply("PreToolUse", exit, &stdout);
            ok &= problems.is_empty();
            checks.push(json!({ "scope": "self", "event": "PreToolUse", "command": command, "ms": (ms * 100.0).round() / 100.0,
                "ok": problems.is_empty(), "problems": problems, "stdout": stdout.trim(), "stderr": stderr.trim() }));
        }
    }
    let report = json!({ "ok": ok, "installed": installed, "files": files, "checks": checks });
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        print_text(&report)?;
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A throwaway state directory for the canned runs, removed afterwards.
struct TempDir(PathBuf);

impl TempDir {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn print_text(r: &Value) -> std::io::Result<()> {
    let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
    for f in list(&r["files"]) {
        let path = f["path"].as_str().unwrap_or("");
        match f.get("error").and_then(Value::as_str) {
            Some(e) => outln!("✗ {} settings: {e}", f["scope"].as_str().unwrap_or(""))?,
            None => outln!(
                "• {} settings {path}: {} seed entr{}",
                f["scope"].as_str().unwrap_or(""),
                f["entries"],
                if f["entries"] == 1 { "y" } else { "ies" }
            )?,
        }
        for m in list(&f["missing"]) {
            outln!("  ✗ no entry for {}", m.as_str().unwrap_or(""))?;
        }
    }
    if r["installed"] == false {
        outln!(
            "• seed is not in any settings file (run `seed install`, or use the plugin in hooks/hooks.json)"
        )?;
    }
    for c in list(&r["checks"]) {
        let mark = if c["ok"] == true { "✓" } else { "✗" };
        outln!(
            "{mark} {} {:<18} {:>7.2} ms  {}",
            c["scope"].as_str().unwrap_or(""),
            c["event"].as_str().unwrap_or(""),
            c["ms"].as_f64().unwrap_or(0.0),
            c["command"].as_str().unwrap_or("")
        )?;
        for p in list(&c["problems"]) {
            outln!("    {}", p.as_str().unwrap_or(""))?;
        }
        if let Some(e) = c["stderr"].as_str().filter(|s| !s.is_empty()) {
            outln!("    stderr: {e}")?;
        }
    }
    outln!(
        "{}",
        if r["ok"] == true {
            "doctor: all good"
        } else {
            "doctor: problems found"
        }
    )
}
