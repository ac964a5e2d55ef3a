//! Running Claude Code in print mode, and what a finished run lets a test read: what the model
//! was sent, what Claude Code printed and wrote, and what seed recorded.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::cli::Slot;
use super::model::{Request, Script};
use super::{Scenario, texts};

/// How long one print-mode session may take before the test fails (rather than hang).
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// A finished scenario.
pub struct Run {
    pub dir: tempfile::TempDir,
    pub version: String,
    /// Every request the model stand-in received, in order.
    pub requests: Vec<Request>,
    /// Claude Code's stream-json output, one value per line.
    pub output: Vec<Value>,
    pub stderr: String,
    /// From starting Claude Code to its exit.
    pub elapsed: Duration,
    pub main: Script,
    pub subagents: BTreeMap<String, Script>,
}

/// A tool result as the model read it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub text: String,
    pub is_error: bool,
}

pub(super) fn print_mode(s: Scenario, args: Vec<String>) -> Run {
    let _slot = Slot::take();
    let project = s.project();
    let mut child = Command::new(&s.claude.path)
        .args(&args)
        .env_clear()
        .envs(s.env())
        .current_dir(&project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("claude starts");
    let mut stdin = child.stdin.take();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let stderr = child.stderr.take().expect("stderr");
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut s);
        s
    });
    let send = |stdin: &mut Option<std::process::ChildStdin>, prompt: &str| {
        let line = json!({"type": "user", "message": {"role": "user", "content": prompt}});
        if let Some(w) = stdin.as_mut() {
            let _ = writeln!(w, "{line}");
        }
    };
    let mut prompts = s.prompts.iter();
    match prompts.next() {
        Some(p) => send(&mut stdin, p),
        None => panic!("a scenario needs a prompt"),
    }
    let start = Instant::now();
    let mut output = Vec::new();
    loop {
        let left = RUN_TIMEOUT.saturating_sub(start.elapsed());
        match rx.recv_timeout(left) {
            Ok(line) => {
                let v: Value = serde_json::from_str(&line).unwrap_or(json!({"raw": line}));
                let is_result = v["type"] == "result";
                output.push(v);
                if is_result {
                    match prompts.next() {
                        Some(p) => send(&mut stdin, p),
                        // Closing stdin ends the session.
                        None => drop(stdin.take()),
                    }
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                break;
            }
        }
    }
    let _ = child.wait();
    let stderr = err_reader.join().unwrap_or_default();
    finish(s, output, stderr, start)
}

/// The run of a scenario whose Claude Code has ended.
pub(super) fn finish(s: Scenario, output: Vec<Value>, stderr: String, start: Instant) -> Run {
    let Scenario {
        model, dir, claude, ..
    } = s;
    let (main, subagents) = model.scripts();
    let run = Run {
        version: claude.version,
        requests: model.requests(),
        output,
        stderr,
        elapsed: start.elapsed(),
        main,
        subagents,
        dir,
    };
    if let Some(dir) = std::env::var_os("SEED_CC_DUMP") {
        run.save(Path::new(&dir));
    }
    assert!(
        start.elapsed() < RUN_TIMEOUT,
        "Claude Code did not finish within {RUN_TIMEOUT:?}\n{}",
        run.dump()
    );
    let overruns = model.overruns();
    assert!(
        overruns.is_empty(),
        "the model was asked for turns its script does not have: {overruns:?}\n{}",
        run.dump()
    );
    run
}

impl Run {
    /// The requests of one conversation (`main` or a subagent's marker) that its script answered.
    pub fn conversation(&self, conv: &str) -> Vec<&Value> {
        self.requests
            .iter()
            .filter(|r| r.conversation == conv)
            .map(|r| &r.body)
            .collect()
    }

    /// The last request of the main conversation: the whole conversation as the model saw it.
    pub fn last_main(&self) -> &Value {
        self.conversation("main")
            .last()
            .copied()
            .unwrap_or_else(|| panic!("no main request\n{}", self.dump()))
    }

    /// The result the model read for tool call `k` of turn `turn` of a conversation's script.
    pub fn result_in(&self, conv: &str, turn: usize, k: usize) -> ToolResult {
        let script = if conv == "main" {
            &self.main
        } else {
            &self.subagents[conv]
        };
        let id = script.turns[turn]
            .tool_ids()
            .nth(k)
            .unwrap_or_else(|| panic!("{conv} turn {turn} has no call {k}"))
            .to_string();
        self.tool_result(&id)
            .unwrap_or_else(|| panic!("the model never read a result for {id}\n{}", self.dump()))
    }

    /// The result of the (first) call of the main conversation's turn `turn`.
    pub fn result(&self, turn: usize) -> ToolResult {
        self.result_in("main", turn, 0)
    }

    /// A tool result by its call id, as the model first read it.
    pub fn tool_result(&self, id: &str) -> Option<ToolResult> {
        self.requests.iter().find_map(|r| {
            let messages = r.body["messages"].as_array()?;
            messages.iter().find_map(|m| {
                m["content"].as_array()?.iter().find_map(|b| {
                    (b["type"] == "tool_result" && b["tool_use_id"] == id).then(|| ToolResult {
                        text: texts(&b["content"]).trim_end().to_string(),
                        is_error: b["is_error"].as_bool().unwrap_or(false),
                    })
                })
            })
        })
    }

    /// What the main conversation was sent besides the model's own turns, as the model last
    /// saw it: prompts, hook context and feedback, tool results (one entry per block).
    pub fn sent_texts(&self) -> Vec<String> {
        let mut out = Vec::new();
        for m in self.last_main()["messages"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if m["role"] == "assistant" {
                continue;
            }
            match &m["content"] {
                Value::String(s) => out.push(s.clone()),
                Value::Array(blocks) => out.extend(
                    blocks
                        .iter()
                        .map(|b| texts(&json!([b])).trim_end().to_string()),
                ),
                _ => {}
            }
        }
        out
    }

    /// The texts sent that contain `needle`.
    pub fn sent_texts_with(&self, needle: &str) -> Vec<String> {
        self.sent_texts()
            .into_iter()
            .filter(|t| t.contains(needle))
            .collect()
    }

    /// The names of the tools the main conversation's first request offered.
    pub fn offered_tools(&self) -> Vec<String> {
        self.conversation("main")[0]["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str().map(String::from))
            .collect()
    }

    /// The `result` lines Claude Code printed, one per prompt.
    pub fn results(&self) -> Vec<&Value> {
        self.output
            .iter()
            .filter(|v| v["type"] == "result")
            .collect()
    }

    /// The session id Claude Code gave the session (from its output, else the one session
    /// seed recorded).
    pub fn session_id(&self) -> String {
        if let Some(id) = self.output.iter().find_map(|v| v["session_id"].as_str()) {
            return id.to_string();
        }
        std::fs::read_dir(self.root().join("seed/sessions"))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|d| d.file_name().to_string_lossy().into_owned())
            .next()
            .unwrap_or_else(|| panic!("no session id\n{}", self.dump()))
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn project(&self) -> PathBuf {
        self.root().join("project")
    }

    /// seed's records of the session (its `log.jsonl`), in order.
    pub fn records(&self) -> Vec<Value> {
        let log = self.seed_log();
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    pub fn seed_log(&self) -> PathBuf {
        self.root()
            .join("seed/sessions")
            .join(self.session_id())
            .join("log.jsonl")
    }

    /// seed's records of one hook event, in order.
    pub fn records_of(&self, hook: &str) -> Vec<Value> {
        self.records()
            .into_iter()
            .filter(|r| r["hook"] == hook)
            .collect()
    }

    /// The transcript Claude Code wrote for the session.
    pub fn transcript(&self) -> PathBuf {
        let projects = self.root().join("home/.claude/projects");
        let name = format!("{}.jsonl", self.session_id());
        std::fs::read_dir(&projects)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|d| d.path().join(&name))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("no transcript {name} under {}", projects.display()))
    }

    /// `seed ARGS` in the scenario's sandbox; exit code, stdout, stderr.
    pub fn seed(&self, args: &[&str]) -> (i32, String, String) {
        let out = super::seed_in(self.root(), &self.project())
            .args(args)
            .output()
            .expect("seed runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Writes the requests, the output, the transcript and seed's log into `dir`
    /// (`SEED_CC_DUMP=DIR`), to see what a new scenario's model is sent.
    pub fn save(&self, dir: &Path) {
        let _ = std::fs::create_dir_all(dir);
        let reqs: Vec<Value> = self
            .requests
            .iter()
            .map(|r| json!({"path": r.path, "conversation": r.conversation, "turn": r.turn, "body": r.body}))
            .collect();
        let sid = self.session_id();
        let _ = std::fs::write(
            dir.join(format!("{sid}.requests.json")),
            json!(reqs).to_string(),
        );
        let projects = self.root().join("home/.claude/projects");
        for d in std::fs::read_dir(projects).into_iter().flatten().flatten() {
            let _ = std::fs::copy(
                d.path().join(format!("{sid}.jsonl")),
                dir.join(format!("{sid}.transcript.jsonl")),
            );
        }
        let _ = std::fs::copy(self.seed_log(), dir.join(format!("{sid}.seed-log.jsonl")));
        let _ = std::fs::write(
            dir.join(format!("{sid}.output.json")),
            json!(self.output).to_string(),
        );
    }

    /// What a failing assertion should show: Claude Code's output and every request's gist.
    pub fn dump(&self) -> String {
        let mut s = format!("Claude Code {}; stderr:\n{}\n", self.version, self.stderr);
        for v in &self.output {
            s.push_str(&format!("out: {v}\n"));
        }
        for r in &self.requests {
            let last = r.body["messages"]
                .as_array()
                .and_then(|m| m.last())
                .map(|m| texts(&m["content"]))
                .unwrap_or_default();
            s.push_str(&format!(
                "req {} [{} {:?}]: {}\n",
                r.path,
                r.conversation,
                r.turn,
                last.chars().take(600).collect::<String>()
            ));
        }
        s
    }
}
