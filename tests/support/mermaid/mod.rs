//! A scripted walk through a built-in sequence: PreToolUse → `Phase::Gate`, then the event →
//! `Phase::Advance` (or `Phase::Stop`), with the expectations the walk tests state.
#![allow(dead_code)]

pub mod diagram;

use seed::dialects;
use seed::engine::{Decision, Event, Facts, Machine, Phase, Snapshot, Verdict, VerdictKind};
use serde_json::{Value, json};

pub struct Walk {
    pub m: Machine,
    pub snap: Snapshot,
    pub facts: Facts,
}

impl Walk {
    pub fn new(name: &str) -> Walk {
        let l = dialects::builtin(name).expect("builtin").expect("loads");
        let m = Machine::new(l.chart);
        let snap = m.start(&Facts::new());
        Walk {
            m,
            snap,
            facts: Facts::new(),
        }
    }
    /// PreToolUse: the verdict; the sequence does not move.
    pub fn gate(&mut self, e: &Event) -> Verdict {
        let r = self.m.step(&mut self.snap, Phase::Gate, e, &self.facts);
        r.verdict.expect("gate verdict")
    }
    /// The event happened.
    pub fn advance(&mut self, e: &Event) -> &mut Walk {
        let phase = if e.name == "Stop" {
            Phase::Stop
        } else {
            Phase::Advance
        };
        self.m.step(&mut self.snap, phase, e, &self.facts);
        self
    }
    /// A tool call that is allowed: gate (expecting `kind`), then advance.
    pub fn call(&mut self, e: &Event, kind: VerdictKind) -> &mut Walk {
        let v = self.gate(e);
        assert_eq!(v.kind, kind, "{} at {:?}: {}", e.key(), self.at(), v.reason);
        assert_eq!(v.decision, Decision::Allow, "{}: {}", e.key(), v.reason);
        self.advance(e)
    }
    pub fn at(&self) -> Vec<String> {
        self.m.status(&self.snap).current
    }
    /// The session has been in state `key` at some point.
    pub fn visited(&self, key: &str) -> bool {
        let id = self
            .m
            .chart
            .find(key)
            .unwrap_or_else(|| panic!("no state `{key}`"));
        self.snap.visited.contains(&id)
    }
    /// The next call the status names, as the sequence writes it (`hope:consult`; the agent is
    /// told `Skill(skill="hope:consult")`, which `mermaid_walk_hope.rs` checks on its own).
    pub fn next(&self) -> Option<String> {
        self.m.status(&self.snap).next.map(|n| n.call)
    }
    pub fn expect(&mut self, node: &str, percent: f64, next: Option<&str>) -> &mut Walk {
        let st = self.m.status(&self.snap);
        if std::env::var_os("SEED_PRINT_WALK").is_some() {
            eprintln!(
                "WALK {node} {:.1} {:?}",
                st.progress.overall,
                st.next.as_ref().map(|n| n.call.clone())
            );
            return self;
        }
        assert_eq!(st.current, vec![node.to_string()]);
        assert!(
            (st.progress.overall - percent).abs() < 0.1,
            "{node}: {}%",
            st.progress.overall
        );
        assert_eq!(
            st.next.as_ref().map(|n| n.call.as_str()),
            next,
            "next at {node}"
        );
        self
    }
    pub fn facts(&mut self, pairs: &[(&str, Value)]) -> &mut Walk {
        for (k, v) in pairs {
            self.facts.insert(k.to_string(), v.clone());
        }
        self
    }
}

pub fn tool(name: &str, input: Value) -> Event {
    Event::tool(name, input)
}

pub fn skill(name: &str) -> Event {
    Event::tool("Skill", json!({ "skill": name }))
}
