//! Shared helpers for the `seed mcp` tests: a sealed environment, the hook run as Claude Code
//! runs it, and an MCP client speaking newline-delimited JSON-RPC over the server's stdio.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command as StdCommand, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::{Value, json};

pub const SESSION: &str = "5eed0000-0000-4000-8000-000000000001";

/// Variables from the machine that would change what seed does.
const LEAKY: &[&str] = &[
    "SEED_HOME",
    "SEED_SEQUENCE",
    "SEED_FAIL",
    "SEED_ENFORCEMENT",
    "SEED_OFF_PATH",
    "SEED_INJECT_EVERY",
    "HEAVEN_DATA_DIR",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_CODE_SESSION_ID",
    "XDG_STATE_HOME",
    "XDG_CONFIG_HOME",
];

/// The nearest existing directory: the working directory of a server whose state directory
/// may not exist.
fn existing(dir: &Path) -> &Path {
    dir.ancestors().find(|d| d.is_dir()).unwrap_or(dir)
}

fn seal(c: &mut StdCommand, home: &Path) {
    for k in LEAKY {
        c.env_remove(k);
    }
    c.env("SEED_HOME", home)
        .env("SEED_SEQUENCE", "compound_intelligence")
        // No user configuration: a directory that holds no config.toml.
        .env("SEED_CONFIG_DIR", existing(home).join("seed-no-config"))
        .current_dir(existing(home));
}

/// `seed` in the sealed environment, for the CLI face.
pub fn seed(home: &Path) -> Command {
    Command::from_std(seed_std(home))
}

/// `seed` in the sealed environment as a plain process (for stdin other than bytes).
pub fn seed_std(home: &Path) -> StdCommand {
    let mut c = StdCommand::new(assert_cmd::cargo::cargo_bin("seed"));
    seal(&mut c, home);
    c
}

/// Run a tool call through the hook, as Claude Code would around an MCP call.
pub fn hook_call(home: &Path, tool: &str, id: &str) {
    hook_call_in(home, SESSION, tool, id);
}

/// `hook_call` for a session of one's choosing.
pub fn hook_call_in(home: &Path, session: &str, tool: &str, id: &str) {
    hook_event(home, session, "PreToolUse", tool, id);
    hook_event(home, session, "PostToolUse", tool, id);
}

/// One hook event for a tool call (no input), as Claude Code sends it; the hook's answer, or
/// `null` when it printed nothing.
pub fn hook_event(home: &Path, session: &str, event: &str, tool: &str, id: &str) -> Value {
    let mut payload = json!({
        "session_id": session, "transcript_path": "", "cwd": home, "hook_event_name": event,
        "tool_name": tool, "tool_input": {}, "tool_use_id": id
    });
    if event == "PostToolUse" {
        payload["tool_response"] = json!([{"type": "text", "text": "ok"}]);
    }
    hook_payload(home, &payload)
}

/// Run the hook on a payload as given; its answer, or `null` when it printed nothing.
pub fn hook_payload(home: &Path, payload: &Value) -> Value {
    let out = stdout_of(seed(home).arg("hook").write_stdin(payload.to_string()));
    if out.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&out).unwrap()
    }
}

/// The reason of a hook answer that denied the call.
pub fn deny_reason(answer: &Value) -> String {
    let out = &answer["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "{answer}");
    out["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Standard output of a command that succeeds.
pub fn stdout_of(cmd: &mut Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

/// `seed status` / `seed recovery` text without the paragraph naming the session: the MCP
/// tools answer for the session that calls them and leave it out.
pub fn cli_view(cmd: &mut Command) -> String {
    let out = stdout_of(cmd);
    match out.split_once("\n\n") {
        Some((head, body)) if head.starts_with("session ") => body.to_string(),
        _ => panic!("no session header: {out}"),
    }
}

/// `seed status --json` / `recovery --json` without the `session` the CLI adds (see
/// [`cli_view`]).
pub fn without_session(mut v: Value) -> Value {
    let session = v.as_object_mut().and_then(|o| o.remove("session"));
    assert!(session.is_some_and(|s| s["id"].is_string()), "{v}");
    v
}

/// Standard output and exit code, whatever the outcome.
pub fn output_of(cmd: &mut Command) -> (String, i32) {
    let out = cmd.output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// The text content of a `tools/call` answer.
pub fn text(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The message of a JSON-RPC error answer.
pub fn error_message(answer: &Value) -> String {
    answer["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error: {answer}"))
        .to_string()
}

/// How long a test waits for an answer before failing (rather than hanging).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(20);

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    /// The server's stdout, line by line, read by a thread so a missing answer times out.
    lines: Receiver<String>,
    next_id: u64,
}

impl Client {
    /// `seed mcp` for the state directory `home`, initialized.
    pub fn start(home: &Path, session: Option<&str>) -> Client {
        Client::start_with(home, session, &[])
    }

    /// As `start`, with environment changes (`None` removes the variable).
    pub fn start_with(home: &Path, session: Option<&str>, env: &[(&str, Option<&str>)]) -> Client {
        let mut c = Client::spawn(home, session, env);
        c.initialize();
        c
    }

    /// `seed mcp` started and not initialized: the test speaks first.
    pub fn spawn(home: &Path, session: Option<&str>, env: &[(&str, Option<&str>)]) -> Client {
        Client::spawn_args(home, session, env, &[])
    }

    /// `spawn`, with arguments after `seed mcp` (`--sequence X`).
    pub fn spawn_args(
        home: &Path,
        session: Option<&str>,
        env: &[(&str, Option<&str>)],
        args: &[&str],
    ) -> Client {
        let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("seed"));
        seal(&mut cmd, home);
        cmd.arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(s) = session {
            cmd.env("CLAUDE_CODE_SESSION_ID", s);
        }
        for (k, v) in env {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        let mut child = cmd.spawn().expect("seed mcp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    /// The handshake of a client speaking MCP 2025-06-18.
    pub fn initialize(&mut self) {
        let init = self.request("initialize", json!({
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}
        }));
        assert_eq!(init["result"]["serverInfo"]["name"], "seed", "{init}");
        self.send_line(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        );
    }

    /// Write one line as is.
    pub fn send_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Whether the server is still running (it has not exited).
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The next message from the server.
    pub fn read_message(&mut self) -> Value {
        match self.lines.recv_timeout(ANSWER_TIMEOUT) {
            Ok(line) => serde_json::from_str(&line).expect("one JSON message per line"),
            Err(RecvTimeoutError::Timeout) => panic!("no answer within {ANSWER_TIMEOUT:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("server closed stdout"),
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        loop {
            let v = self.read_message();
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
    }

    /// `call` with `json: true`: the answer's `structuredContent` is the CLI's `--json` object.
    pub fn call_json(&mut self, tool: &str, mut args: Value) -> Value {
        args["json"] = json!(true);
        self.call(tool, args)
    }

    /// The structured content of `call_json`.
    pub fn structured(&mut self, tool: &str, args: Value) -> Value {
        self.call_json(tool, args)["result"]["structuredContent"].clone()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
