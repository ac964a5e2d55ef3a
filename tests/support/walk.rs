//! Helpers that let walk tests read like specifications: a sequence, a list of events, the
//! expected verdicts, nodes, progress and recovery.
#![allow(dead_code)]

use seed::dialects;
use seed::engine::{Decision, Event, Facts, Machine, Phase, Snapshot, Status, Verdict};
use serde_json::Value;

pub struct Walk {
    pub machine: Machine,
    pub snap: Snapshot,
    pub facts: Facts,
}

impl Walk {
    pub fn builtin(name: &str) -> Walk {
        let loaded = dialects::builtin(name)
            .unwrap_or_else(|| panic!("no built-in {name}"))
            .expect("loads");
        Walk::new(Machine::new(loaded.chart))
    }

    pub fn new(machine: Machine) -> Walk {
        let facts = Facts::new();
        let snap = machine.start(&facts);
        Walk {
            machine,
            snap,
            facts,
        }
    }

    pub fn fact(&mut self, name: &str, value: Value) -> &mut Self {
        self.facts.insert(name.to_string(), value);
        self
    }

    /// PreToolUse for a Claude Code tool name.
    pub fn gate(&mut self, tool: &str) -> Verdict {
        self.gate_with(tool, Value::Null)
    }

    pub fn gate_with(&mut self, tool: &str, input: Value) -> Verdict {
        let ev = Event::tool(tool, input);
        let r = self
            .machine
            .step(&mut self.snap, Phase::Gate, &ev, &self.facts);
        r.verdict.expect("a gate always gives a verdict")
    }

    /// PreToolUse, then PostToolUse when allowed (as Claude Code would run it).
    pub fn call(&mut self, tool: &str) -> Verdict {
        self.call_with(tool, Value::Null)
    }

    pub fn call_with(&mut self, tool: &str, input: Value) -> Verdict {
        let v = self.gate_with(tool, input.clone());
        if v.decision == Decision::Allow {
            let ev = Event::tool(tool, input);
            self.machine
                .step(&mut self.snap, Phase::Advance, &ev, &self.facts);
        }
        v
    }

    pub fn status(&self) -> Status {
        self.machine.status(&self.snap)
    }

    /// The active step labels outside monitor regions.
    pub fn step(&self) -> String {
        self.status().step
    }

    pub fn overall(&self) -> f64 {
        (self.status().progress.overall * 10.0).round() / 10.0
    }

    pub fn layer(&self, name: &str) -> f64 {
        let st = self.status();
        let l = st
            .progress
            .layers
            .iter()
            .find(|l| l.name == name)
            .unwrap_or_else(|| panic!("no layer {name}"));
        (l.value * 10.0).round() / 10.0
    }

    /// The one-line guidance injected into prompts.
    pub fn guidance(&self) -> String {
        self.machine.guidance_line(&self.snap)
    }

    pub fn next_tool(&self) -> Option<String> {
        self.status().next.map(|n| n.tool)
    }
}
