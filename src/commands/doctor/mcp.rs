//! The MCP half of `seed doctor`: when the project's `.mcp.json` has seed's server, start it
//! as Claude Code would (its command, args and env, in the project), send `initialize` over
//! stdio and time the answer.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::commands::install_mcp;

/// How long a server may take to answer `initialize`.
const WAIT: Duration = Duration::from_secs(10);

/// The check of seed's server in `.mcp.json`, `None` when the file has none.
pub fn check(project: &Path) -> Option<Value> {
    let path = project.join(".mcp.json");
    let text = std::fs::read_to_string(&path).ok()?;
    let root = match crate::commands::install::parse_settings(&path, &text) {
        Ok(v) => v,
        Err(e) => return Some(json!({ "path": path, "ok": false, "problems": [e] })),
    };
    let (name, server) = root
        .get("mcpServers")?
        .as_object()?
        .iter()
        .find(|(_, v)| install_mcp::is_seed_server(v))?;
    let command = server.get("command").and_then(Value::as_str).unwrap_or("");
    let args: Vec<String> = server
        .get("args")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let (ms, problems) = match initialize(command, &args, server.get("env"), project) {
        Ok(ms) => (ms, Vec::new()),
        Err(e) => (0.0, vec![e]),
    };
    Some(json!({
        "path": path, "server": name, "command": command, "args": args,
        "ms": (ms * 100.0).round() / 100.0, "ok": problems.is_empty(), "problems": problems,
    }))
}

/// Start the server, send `initialize`, and return the milliseconds until its answer.
fn initialize(
    command: &str,
    args: &[String],
    env: Option<&Value>,
    project: &Path,
) -> Result<f64, String> {
    if command.is_empty() {
        return Err("the entry has no `command`".into());
    }
    let mut cmd = Command::new(command);
    cmd.args(args)
        .env("CLAUDE_PROJECT_DIR", project)
        .current_dir(project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in env.and_then(Value::as_object).into_iter().flatten() {
        if let Some(v) = v.as_str() {
            cmd.env(k, v);
        }
    }
    let t0 = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start `{command}`: {e}"))?;
    let request = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": { "name": "seed-doctor", "version": env!("CARGO_PKG_VERSION") } }
    });
    let mut stdin = child.stdin.take();
    if let Some(s) = stdin.as_mut() {
        let _ = writeln!(s, "{request}");
        let _ = s.flush();
    }
    let (tx, rx) = mpsc::channel();
    if let Some(out) = child.stdout.take() {
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(out).read_line(&mut line);
            let _ = tx.send(line);
        });
    }
    let answer = rx.recv_timeout(WAIT);
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    // Closing stdin ends a well-behaved server; one that lingers is stopped.
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(2);
    while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    let line =
        answer.map_err(|_| format!("no answer to `initialize` within {}s", WAIT.as_secs()))?;
    let v: Value = serde_json::from_str(line.trim())
        .map_err(|_| format!("the answer to `initialize` is not JSON: {:?}", line.trim()))?;
    if v.get("id") != Some(&json!(1)) || v.pointer("/result/serverInfo").is_none() {
        return Err(format!("unexpected answer to `initialize`: {v}"));
    }
    Ok(ms)
}
