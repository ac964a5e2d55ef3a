//! The shipped `hiivmind_add_source` workflow driven step by step: one hook round per call, and
//! what must hold after it.
#![allow(dead_code)]

use seed::dialects;
use seed::engine::{Decision, Machine, VerdictKind};
use serde_json::{Value, json};

use super::{Run, answer};

pub fn machine() -> Machine {
    let loaded = dialects::builtin("hiivmind_add_source")
        .expect("built in")
        .expect("loads");
    Machine::new(loaded.chart)
}

/// The project as the host samples it: the corpus config exists, files were uploaded.
pub fn project() -> Vec<(&'static str, Value)> {
    vec![
        ("config_exists", json!(true)),
        ("directory_exists:data/uploads", json!(true)),
    ]
}

pub fn start() -> Run {
    Run::of(machine(), &project())
}

/// One hook round: the call, and what must hold after its PostToolUse.
pub struct Step {
    pub tool: &'static str,
    pub input: Value,
    /// The tool's result (PostToolUse's `tool_response`), `null` when it does not matter.
    pub response: Value,
    pub ok: bool,
    /// Active leaf state after the call.
    pub node: &'static str,
    /// Overall progress after the call, rounded to a whole percent.
    pub progress: u32,
    /// The next call the workflow expects (at an ending, the skill that starts it again).
    pub next: Option<&'static str>,
}

pub fn call(
    tool: &'static str,
    input: Value,
    node: &'static str,
    progress: u32,
    next: Option<&'static str>,
) -> Step {
    Step {
        tool,
        input,
        response: Value::Null,
        ok: true,
        node,
        progress,
        next,
    }
}

/// A call whose result matters: `response` is its `tool_response`.
pub fn call_returning(
    tool: &'static str,
    input: Value,
    response: Value,
    node: &'static str,
    progress: u32,
    next: Option<&'static str>,
) -> Step {
    Step {
        response,
        ..call(tool, input, node, progress, next)
    }
}

pub fn ask(label: &str, node: &'static str, progress: u32, next: Option<&'static str>) -> Step {
    call("AskUserQuestion", answer(label), node, progress, next)
}

pub const ASK: Option<&str> = Some("AskUserQuestion");
/// At an ending: the workflow's skill, which starts it again.
pub const AGAIN: Option<&str> = Some("Skill(skill=\"hiivmind-corpus:hiivmind-corpus-add-source\")");
pub const CONFIG: &str = "/home/me/corpus/data/config.yaml";
pub const WRITE_CONFIG: Option<&str> = Some("Edit(file_path=\"data/config.yaml\")");

/// The Read of data/config.yaml, returning `content`.
pub fn read_corpus(content: &str, progress: u32) -> Step {
    call_returning(
        "Read",
        json!({"file_path": CONFIG}),
        json!({"type": "text", "file": {"filePath": CONFIG, "content": content}}),
        "ask_source_input",
        progress,
        ASK,
    )
}

/// What WebFetch's PostToolUse reports for a page that answered with HTTP status `code`.
pub fn fetched(url: &str, code: u16, text: &str) -> Value {
    json!({"bytes": text.len(), "code": code, "codeText": if code == 200 { "OK" } else { "Not Found" }, "result": text, "durationMs": 812, "url": url})
}

/// A corpus with no source yet.
pub const EMPTY_CORPUS: &str = "corpus: acme\nsources: []\n";

/// A corpus that already has a source.
pub const CORPUS_WITH_SOURCES: &str =
    "corpus: acme\nsources:\n  - id: handbook\n    type: local\n    path: data/uploads\n";

pub fn read_config(progress: u32) -> Step {
    read_corpus(EMPTY_CORPUS, progress)
}

pub fn walk(r: &mut Run, steps: &[Step]) {
    for (i, s) in steps.iter().enumerate() {
        let what = format!("step {i}: {} {}", s.tool, s.input);
        let v = if s.ok {
            r.call_with(s.tool, s.input.clone(), s.response.clone())
        } else {
            r.fail(s.tool, s.input.clone())
        };
        assert_eq!(
            (v.kind, v.decision),
            (VerdictKind::Advance, Decision::Allow),
            "{what}: {v:?}"
        );
        if std::env::var_os("SEED_PRINT_WALK").is_some() {
            eprintln!(
                "WALK {what}: {} {} {:?}",
                r.here(),
                r.progress().round(),
                r.next_tool()
            );
            continue;
        }
        assert_eq!(r.here(), s.node, "{what}");
        assert_eq!(r.progress().round() as u32, s.progress, "{what}: progress");
        assert_eq!(r.next_tool().as_deref(), s.next, "{what}: next call");
    }
}

/// The workflow is over at `ending`: a success is done at 100%; an error ending is not done,
/// and progress stays at the highest point reached before it.
pub fn ended(r: &Run, ending: &str, success: bool) {
    assert_eq!(r.here(), ending);
    assert!(r.snap.halted, "the workflow is over");
    assert_eq!(r.snap.failed.is_none(), success);
    let p = r.m.progress(&r.snap);
    let outcome = p.ended.as_ref().map(|e| e.outcome);
    if success {
        assert!(p.done && p.overall == 100.0, "{p:?}");
        assert_eq!(outcome, Some(seed::engine::ir::Outcome::Success));
    } else {
        assert!(
            !p.done && p.overall == p.highest && p.overall < 100.0,
            "{p:?}"
        );
        assert_eq!(outcome, Some(seed::engine::ir::Outcome::Error));
        assert_eq!(p.steps_remaining, None, "{p:?}");
    }
}
