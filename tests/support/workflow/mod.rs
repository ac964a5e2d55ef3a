//! Helpers shared by the workflow dialect's tests: load YAML text, and drive a machine the way
//! the hook does (PreToolUse gate, then PostToolUse or PostToolUseFailure advance).
#![allow(dead_code)]

pub mod walk;

use seed::dialects::{self, LoadError, Loaded};
use seed::engine::lint::Lint;
use seed::engine::verdict::Verdict;
use seed::engine::{Event, Facts, Machine, Phase, Snapshot};
use serde_json::{Value, json};

pub fn try_load(yaml: &str) -> Result<Loaded, LoadError> {
    dialects::load_text("wf.yaml", yaml, &|_| None)
}

pub fn load(yaml: &str) -> Loaded {
    match try_load(yaml) {
        Ok(l) => l,
        Err(e) => panic!("expected the workflow to load: {e}"),
    }
}

pub fn load_err(yaml: &str) -> LoadError {
    match try_load(yaml) {
        Ok(_) => panic!("expected a load error"),
        Err(e) => e,
    }
}

/// A workflow around `nodes` (YAML indented by 2 under `nodes:`), starting at `start`, with a
/// `done` success ending and a `failed` error ending.
pub fn wf(start: &str, nodes: &str) -> String {
    format!(
        "name: t\nstart_node: {start}\nnodes:\n{nodes}\nendings:\n  done:\n    type: success\n    message: ok\n  failed:\n    type: error\n    message: broke\n    recovery: try again\n"
    )
}

/// `text` with every line indented by `n` spaces.
pub fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines()
        .map(|l| format!("{pad}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn codes(lints: &[Lint]) -> Vec<&str> {
    lints.iter().map(|l| l.code.as_str()).collect()
}

pub fn answer(label: &str) -> Value {
    json!({ "questions": [{ "question": "q?", "options": [] }], "answers": { "q?": label } })
}

pub struct Run {
    pub m: Machine,
    pub snap: Snapshot,
    pub facts: Facts,
}

impl Run {
    pub fn new(yaml: &str) -> Run {
        Run::with_facts(yaml, &[])
    }

    pub fn with_facts(yaml: &str, facts: &[(&str, Value)]) -> Run {
        Run::of(Machine::new(load(yaml).chart), facts)
    }

    pub fn of(m: Machine, facts: &[(&str, Value)]) -> Run {
        let facts: Facts = facts
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let snap = m.start(&facts);
        Run { m, snap, facts }
    }

    /// PreToolUse then PostToolUse of one call; returns the PreToolUse verdict.
    pub fn call(&mut self, tool: &str, input: Value) -> Verdict {
        self.call_with(tool, input, Value::Null)
    }

    /// PreToolUse then PostToolUse of one call that produced `response` (`tool_response`).
    pub fn call_with(&mut self, tool: &str, input: Value, response: Value) -> Verdict {
        let v = self.gate(tool, input.clone());
        let ev = Event::tool(tool, input).with_response(response);
        self.m
            .step(&mut self.snap, Phase::Advance, &ev, &self.facts);
        v
    }

    /// PreToolUse then PostToolUseFailure.
    pub fn fail(&mut self, tool: &str, input: Value) -> Verdict {
        let v = self.gate(tool, input.clone());
        let ev = Event::tool_error(tool, input);
        self.m
            .step(&mut self.snap, Phase::Advance, &ev, &self.facts);
        v
    }

    pub fn gate(&mut self, tool: &str, input: Value) -> Verdict {
        let ev = Event::tool(tool, input);
        let r = self.m.step(&mut self.snap, Phase::Gate, &ev, &self.facts);
        r.verdict.expect("a gate always gives a verdict")
    }

    /// Keys of the active leaf states.
    pub fn at(&self) -> Vec<String> {
        self.m.status(&self.snap).current
    }

    pub fn here(&self) -> String {
        self.at().join(" ∥ ")
    }

    pub fn flag(&self, name: &str) -> Option<bool> {
        self.snap.flags.get(name).copied()
    }

    pub fn var(&self, name: &str) -> Value {
        self.snap.vars.get(name).cloned().unwrap_or(Value::Null)
    }

    pub fn progress(&self) -> f64 {
        self.m.progress(&self.snap).overall
    }

    pub fn next_tool(&self) -> Option<String> {
        self.m.status(&self.snap).next.map(|n| n.tool)
    }
}
