//! `seed mcp` spoken to over stdio like an MCP client would, checked against the CLI's output
//! for the same state: one truth, two faces.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command as StdCommand, Stdio};

use assert_cmd::Command;
use serde_json::{Value, json};

const SESSION: &str = "5eed0000-0000-4000-8000-000000000001";

fn seed(home: &Path) -> Command {
    let mut c = Command::cargo_bin("seed").unwrap();
    c.env("SEED_HOME", home)
        .env("SEED_SEQUENCE", "compound_intelligence")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("HEAVEN_DATA_DIR")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .current_dir(home);
    c
}

/// Run a tool call through the hook, as Claude Code would around an MCP call.
fn hook_call(home: &Path, tool: &str, id: &str) {
    for (event, extra) in [
        ("PreToolUse", json!({})),
        (
            "PostToolUse",
            json!({"tool_response": [{"type": "text", "text": "ok"}]}),
        ),
    ] {
        let mut payload = json!({
            "session_id": SESSION, "transcript_path": "", "cwd": home, "hook_event_name": event,
            "tool_name": tool, "tool_input": {}, "tool_use_id": id
        });
        payload
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        seed(home)
            .arg("hook")
            .write_stdin(payload.to_string())
            .assert()
            .success();
    }
}

struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Client {
    fn start(home: &Path, session: Option<&str>) -> Client {
        let bin = assert_cmd::cargo::cargo_bin("seed");
        let mut cmd = StdCommand::new(bin);
        cmd.arg("mcp")
            .env("SEED_HOME", home)
            .env("SEED_SEQUENCE", "compound_intelligence")
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("HEAVEN_DATA_DIR")
            .env_remove("CLAUDE_CODE_SESSION_ID")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(s) = session {
            cmd.env("CLAUDE_CODE_SESSION_ID", s);
        }
        let mut child = cmd.spawn().expect("seed mcp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut c = Client {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let init = c.request("initialize", json!({
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}
        }));
        assert_eq!(init["result"]["serverInfo"]["name"], "seed", "{init}");
        c.notify("notifications/initialized");
        c
    }

    fn notify(&mut self, method: &str) {
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": method})
        )
        .unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        )
        .unwrap();
        self.stdin.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed stdout"
            );
            let v: Value = serde_json::from_str(&line).expect("one JSON message per line");
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn call(&mut self, tool: &str, args: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(result: &Value) -> String {
    result["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn stdout_of(cmd: &mut Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

#[test]
fn tools_answer_exactly_what_the_cli_answers() {
    let home = tempfile::tempdir().unwrap();
    // Calling seed's own tools moves compound_intelligence: who_am_i → what_do_i_do.
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    hook_call(home.path(), "mcp__seed__what_do_i_do", "toolu_2");

    let mut c = Client::start(home.path(), Some(SESSION));
    let list = c.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "status",
            "recovery",
            "sequences",
            "validate",
            "who_am_i",
            "what_do_i_do",
            "how_do_i",
            "add_to_seed"
        ]
    );
    for t in list["result"]["tools"].as_array().unwrap() {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
    }

    let status = c.call("status", json!({}));
    let cli = stdout_of(seed(home.path()).args(["status", "--session", SESSION]));
    assert_eq!(text(&status).trim_end(), cli.trim_end());
    assert!(
        cli.contains("base") && cli.contains("100%"),
        "who_am_i → what_do_i_do filled the base layer:\n{cli}"
    );
    let cli_json: Value = serde_json::from_str(&stdout_of(seed(home.path()).args([
        "status",
        "--session",
        SESSION,
        "--json",
    ])))
    .unwrap();
    assert_eq!(status["result"]["structuredContent"], cli_json);
    assert_eq!(cli_json["next"]["tool"], "mcp__starlog__check");

    let recovery = c.call("recovery", json!({}));
    let cli = stdout_of(seed(home.path()).args(["recovery", "--session", SESSION]));
    assert_eq!(text(&recovery).trim_end(), cli.trim_end());

    let sequences = c.call("sequences", json!({}));
    assert_eq!(
        text(&sequences),
        stdout_of(seed(home.path()).arg("sequences"))
    );

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sequences");
    let validate = c.call("validate", json!({"paths": [dir]}));
    assert_eq!(
        text(&validate),
        stdout_of(seed(home.path()).arg("validate").arg(&dir))
    );
}

#[test]
fn content_tools_serve_seed_files_and_fall_back_to_the_sequence() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    let mut c = Client::start(home.path(), Some(SESSION));

    let who = text(&c.call("who_am_i", json!({})));
    assert!(
        who.contains("\"compound_intelligence\"") && who.contains("base 0–50%"),
        "{who}"
    );
    let what = text(&c.call("what_do_i_do", json!({})));
    assert!(what.contains("mcp__seed__what_do_i_do"), "{what}");
    let how = text(&c.call("how_do_i", json!({"component": "starlog.check"})));
    assert!(how.contains("mcp__starlog__orient"), "{how}");

    std::fs::write(
        home.path().join("who_am_i.seed"),
        "You are the navigator.\n",
    )
    .unwrap();
    std::fs::write(
        home.path().join("how_do_i.seed"),
        "# waypoint\nCall start_waypoint_journey.\n\n## carton\nAdd concepts.\n",
    )
    .unwrap();
    assert_eq!(
        text(&c.call("who_am_i", json!({}))),
        "You are the navigator.\n"
    );
    assert_eq!(
        text(&c.call("how_do_i", json!({"component": "carton"}))),
        "Add concepts."
    );

    let help = text(&c.call("add_to_seed", json!({})));
    assert!(help.contains("seed validate"), "{help}");
    let proposal = r#"{"name": "mine", "tool_transitions": {"a": {"next_allowed": ["b"]}}}"#;
    let checked = c.call(
        "add_to_seed",
        json!({"file_name": "mine.json", "text": proposal}),
    );
    assert_eq!(
        checked["result"]["structuredContent"]["valid"], true,
        "{checked}"
    );
    assert!(
        !home.path().join("sequences/mine.json").exists(),
        "nothing written unless asked"
    );
    let broken = c.call(
        "add_to_seed",
        json!({"file_name": "bad.json", "text": "{\"name\": 1}"}),
    );
    assert_eq!(broken["result"]["structuredContent"]["valid"], false);
    c.call(
        "add_to_seed",
        json!({"file_name": "mine.json", "text": proposal, "write": true}),
    );
    let saved = home.path().join("sequences/mine.json");
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), proposal);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&saved), 0o600, "saved like the rest of the store");
        assert_eq!(mode(&home.path().join("sequences")), 0o700);
    }
}

#[test]
fn bad_calls_get_clear_errors_and_the_server_keeps_answering() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    let mut c = Client::start(home.path(), None);

    let unknown = c.call("launch_rockets", json!({}));
    assert_eq!(unknown["error"]["code"], -32602);
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown tool")
    );

    let bad = c.call("status", json!({"session": 5}));
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("must be a string"),
        "{bad}"
    );
    let extra = c.call("sequences", json!({"colour": "red"}));
    assert!(
        extra["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown argument"),
        "{extra}"
    );
    let missing = c.call("how_do_i", json!({}));
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("component"),
        "{missing}"
    );

    let nobody = c.call("status", json!({"session": "no-such-session"}));
    assert_eq!(nobody["result"]["isError"], true);
    assert!(
        text(&nobody).contains("no session `no-such-session`"),
        "{nobody}"
    );

    // Without a session id the most recent session answers.
    assert!(text(&c.call("status", json!({}))).contains("seed.who_am_i"));

    let gone = home.path().join("missing");
    let mut c2 = Client::start(&gone, None);
    let r = c2.call("status", json!({}));
    assert_eq!(r["result"]["isError"], true);
    assert!(text(&r).contains("does not exist"), "{r}");
    assert!(
        text(&c2.call("sequences", json!({}))).contains("compound_intelligence"),
        "still serving"
    );
}
