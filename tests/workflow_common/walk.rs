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
    pub ok: bool,
    /// Active leaf state after the call.
    pub node: &'static str,
    /// Overall progress after the call, rounded to a whole percent.
    pub progress: u32,
    /// The next call the workflow expects (`None` at an ending).
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
        ok: true,
        node,
        progress,
        next,
    }
}

pub fn ask(label: &str, node: &'static str, progress: u32, next: Option<&'static str>) -> Step {
    call("AskUserQuestion", answer(label), node, progress, next)
}

pub const ASK: Option<&str> = Some("AskUserQuestion");
pub const CONFIG: &str = "/home/me/corpus/data/config.yaml";
pub const WRITE_CONFIG: Option<&str> = Some("Write(file_path=\"*/data/config.yaml\")");

pub fn read_config(progress: u32) -> Step {
    call(
        "Read",
        json!({"file_path": CONFIG}),
        "ask_source_input",
        progress,
        ASK,
    )
}

pub fn walk(r: &mut Run, steps: &[Step]) {
    for (i, s) in steps.iter().enumerate() {
        let what = format!("step {i}: {} {}", s.tool, s.input);
        let v = if s.ok {
            r.call(s.tool, s.input.clone())
        } else {
            r.fail(s.tool, s.input.clone())
        };
        assert_eq!(
            (v.kind, v.decision),
            (VerdictKind::Advance, Decision::Allow),
            "{what}: {v:?}"
        );
        assert_eq!(r.here(), s.node, "{what}");
        assert_eq!(r.progress().round() as u32, s.progress, "{what}: progress");
        assert_eq!(r.next_tool().as_deref(), s.next, "{what}: next call");
    }
}

pub fn ended(r: &Run, ending: &str, success: bool) {
    assert_eq!(r.here(), ending);
    assert!(r.snap.halted, "the workflow is over");
    assert_eq!(r.snap.failed.is_none(), success);
    let p = r.m.progress(&r.snap);
    assert!(p.done && p.overall == 100.0, "{p:?}");
}
