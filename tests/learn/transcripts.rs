//! Claude Code transcripts written for these tests: one session is a list of calls, each
//! written as Claude Code writes it (an assistant `tool_use` line, then a user `tool_result`
//! line), optionally several side by side, failed, or refused by a hook.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};

#[derive(Clone, Debug)]
pub struct Call {
    pub tool: String,
    pub input: Value,
    pub failed: bool,
    pub refused: bool,
}

pub fn call(tool: &str, input: Value) -> Call {
    Call {
        tool: tool.into(),
        input,
        failed: false,
        refused: false,
    }
}

pub fn bash(command: &str) -> Call {
    call("Bash", json!({ "command": command }))
}

pub fn edit(path: &str) -> Call {
    call(
        "Edit",
        json!({"file_path": path, "old_string": "a", "new_string": "b"}),
    )
}

pub fn read(path: &str) -> Call {
    call("Read", json!({ "file_path": path }))
}

impl Call {
    pub fn failing(mut self) -> Call {
        self.failed = true;
        self
    }
    pub fn refused(mut self) -> Call {
        self.refused = true;
        self
    }
}

/// A step of a session: one call, or calls made side by side (one message, results after).
pub enum Turn {
    One(Call),
    Together(Vec<Call>),
}

impl From<Call> for Turn {
    fn from(c: Call) -> Turn {
        Turn::One(c)
    }
}

pub struct Writer {
    session: String,
    lines: Vec<String>,
    n: usize,
}

impl Writer {
    pub fn new(session: &str, prompt: &str) -> Writer {
        let mut w = Writer {
            session: session.into(),
            lines: Vec::new(),
            n: 0,
        };
        w.line(json!({"type": "user", "message": {"role": "user", "content": prompt}}));
        w
    }

    fn line(&mut self, mut v: Value) {
        self.n += 1;
        let o = v.as_object_mut().expect("an object");
        o.insert("sessionId".into(), json!(self.session));
        o.insert("uuid".into(), json!(format!("{}-{}", self.session, self.n)));
        o.insert(
            "timestamp".into(),
            json!(format!(
                "2026-03-02T10:{:02}:{:02}.000Z",
                self.n / 60 % 60,
                self.n % 60
            )),
        );
        o.insert("isSidechain".into(), json!(false));
        self.lines.push(v.to_string());
    }

    pub fn turn(&mut self, t: impl Into<Turn>) -> &mut Writer {
        let calls = match t.into() {
            Turn::One(c) => vec![c],
            Turn::Together(cs) => cs,
        };
        let first = self.n;
        for (i, c) in calls.iter().enumerate() {
            let id = format!("toolu_{}_{}", first, i);
            self.line(json!({"type": "assistant", "message": {"id": format!("msg_{first}"), "role": "assistant",
                "content": [{"type": "tool_use", "id": id, "name": c.tool, "input": c.input}],
                "stop_reason": "tool_use"}}));
        }
        for (i, c) in calls.iter().enumerate() {
            let id = format!("toolu_{}_{}", first, i);
            let result = if c.refused {
                json!({"type": "tool_result", "tool_use_id": id, "is_error": true,
                       "content": format!("PreToolUse:{} hook error: seed: refused", c.tool)})
            } else if c.failed {
                json!({"type": "tool_result", "tool_use_id": id, "is_error": true, "content": "Exit code 1\nboom"})
            } else {
                json!({"type": "tool_result", "tool_use_id": id, "content": "ok"})
            };
            let mut line =
                json!({"type": "user", "message": {"role": "user", "content": [result]}});
            if !c.failed && !c.refused && c.tool == "Bash" {
                line["toolUseResult"] =
                    json!({"stdout": "ok", "stderr": "", "interrupted": false, "isImage": false});
            }
            self.line(line);
        }
        self
    }

    pub fn calls(&mut self, calls: &[Call]) -> &mut Writer {
        for c in calls {
            self.turn(c.clone());
        }
        self
    }

    pub fn end(&mut self) -> &mut Writer {
        self.line(
            json!({"type": "assistant", "message": {"id": "msg_end", "role": "assistant",
            "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"}}),
        );
        self
    }

    pub fn text(&self) -> String {
        let mut s = self.lines.join("\n");
        s.push('\n');
        s
    }

    pub fn write(&self, dir: &Path) -> PathBuf {
        let p = dir.join(format!("{}.jsonl", self.session));
        std::fs::write(&p, self.text()).expect("write the transcript");
        p
    }
}

pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }
}

pub fn seed(args: &[&str], cwd: &Path) -> Out {
    let out = Command::cargo_bin("seed")
        .unwrap()
        .args(args)
        .current_dir(cwd)
        .env_remove("SEED_SEQUENCE")
        .env("SEED_HOME", cwd.join("state"))
        .env("HOME", cwd)
        .output()
        .unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `seed learn … --json`.
pub fn learn(dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["learn", "sessions", "--json"];
    args.extend_from_slice(extra);
    let out = seed(&args, dir);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.json()
}

/// Per session (by file name): calls and refused calls.
pub fn refused(report: &Value) -> Vec<(String, u64, u64)> {
    report["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| {
            let file = Path::new(s["source"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (
                file,
                s["calls"].as_u64().unwrap(),
                s["refused"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The kept edges as `from -> to ×count`.
pub fn edges(report: &Value) -> Vec<String> {
    let mut v: Vec<String> = report["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .map(|e| {
            format!(
                "{} -> {} ×{}",
                e["from"].as_str().unwrap(),
                e["to"].as_str().unwrap(),
                e["count"]
            )
        })
        .collect();
    v.sort();
    v
}
