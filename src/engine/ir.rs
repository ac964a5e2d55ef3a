//! The statechart IR every dialect compiles to: a state tree in document order plus one flat
//! transition table (ARCHITECTURE §3, statecharts reference §5.1). This file holds the chart and
//! its queries; the parts it is made of live in the submodules and are re-exported here.

mod readers;
mod settings;
mod state;
mod transition;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::pattern::Pattern;

pub use readers::{
    Each, EachProgress, ListOp, PROJECT_DIR_READER, ReaderDecl, ReaderKind, SCAN_ENTRIES, SCAN_MS,
};
pub use settings::{
    Deadlock, DeadlockFallback, Enforcement, FailMode, OffPathPolicy, Settings, StopGate,
};
pub use state::{Band, Fill, Floor, Outcome, Policy, Span, State, StateKind};
pub use transition::{Action, CmpOp, Decode, Guard, InputMatcher, ResultPart, Transition, Trigger};

/// Index of a state in [`Chart::states`]. The root is always `StateId(0)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct StateId(pub u32);

impl StateId {
    pub const ROOT: StateId = StateId(0);
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Which loader produced a chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    MasterJson,
    WorkflowYaml,
    Mermaid,
}

impl Dialect {
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::MasterJson => "master-json",
            Dialect::WorkflowYaml => "workflow-yaml",
            Dialect::Mermaid => "mermaid",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    pub name: String,
    pub description: String,
    pub dialect: Dialect,
    pub states: Vec<State>,
    pub transitions: Vec<Transition>,
    pub readers: Vec<ReaderDecl>,
    /// Tools allowed anywhere without moving the sequence (Read, Grep, Glob…).
    pub neutral: Vec<Pattern>,
    /// Server aliases: `alias → actual MCP server name` (`seed → seed-mcp`).
    pub aliases: BTreeMap<String, String>,
    pub settings: Settings,
    pub bands: Vec<Band>,
    /// Progress floors (side trips), checked in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub floors: Vec<Floor>,
    /// Initial values of variables and flags (flags are booleans under `flags.`).
    pub vars: BTreeMap<String, Value>,
    /// Other files the chart was assembled from, named by [`Span::file`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// One lifecycle per item of a state file's list (seed 002's organs), besides the
    /// session's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub each: Option<Each>,
}

impl Chart {
    pub fn state(&self, id: StateId) -> &State {
        &self.states[id.index()]
    }

    /// Every action the chart can run: the transitions' and the states' entry actions.
    pub fn all_actions(&self) -> impl Iterator<Item = &Action> {
        self.transitions
            .iter()
            .flat_map(|t| &t.actions)
            .chain(self.states.iter().flat_map(|s| &s.on_entry))
    }

    pub fn root(&self) -> &State {
        &self.states[0]
    }

    pub fn find(&self, key: &str) -> Option<StateId> {
        self.states.iter().find(|s| s.key == key).map(|s| s.id)
    }

    /// `a` is `b` or a proper descendant of `b`.
    pub fn is_descendant_or_self(&self, a: StateId, b: StateId) -> bool {
        let mut cur = Some(a);
        while let Some(c) = cur {
            if c == b {
                return true;
            }
            cur = self.state(c).parent;
        }
        false
    }

    /// Ancestors of `id` from its parent up to the root.
    pub fn ancestors(&self, id: StateId) -> impl Iterator<Item = StateId> + '_ {
        std::iter::successors(self.state(id).parent, move |p| self.state(*p).parent)
    }

    pub fn depth(&self, id: StateId) -> usize {
        self.ancestors(id).count()
    }

    /// Transitions whose source is `id`, in document order.
    pub fn transitions_from(&self, id: StateId) -> impl Iterator<Item = (usize, &Transition)> {
        self.transitions
            .iter()
            .enumerate()
            .filter(move |(_, t)| t.source == id)
    }

    /// Some transition keeps or reads a tool's result (`store_as` of what a call produced,
    /// a guard on `result`): only then does a stepped event need the response, and only then
    /// does the log carry it in the event.
    pub fn reads_responses(&self) -> bool {
        let keeps = self.all_actions().any(|a| {
            matches!(
                a,
                Action::SetVarFromResult {
                    from: ResultPart::Response,
                    ..
                } | Action::Remember {
                    from: ResultPart::Response,
                    ..
                }
            )
        });
        keeps
            || self
                .transitions
                .iter()
                .filter_map(|t| t.guard.as_ref())
                .any(Guard::reads_result)
    }

    pub fn reader(&self, name: &str) -> Option<&ReaderDecl> {
        self.readers.iter().find(|r| r.name == name)
    }

    /// The tool / skill / command names any transition or activity of this chart mentions.
    pub fn mentioned_patterns(&self) -> Vec<&Pattern> {
        let mut out: Vec<&Pattern> = Vec::new();
        for t in &self.transitions {
            if let Trigger::Event(p) | Trigger::Error(p) = &t.trigger {
                out.push(p);
            }
        }
        for s in &self.states {
            if let Some(a) = &s.activity {
                out.push(a);
            }
        }
        out
    }

    /// Cheap identity of the chart's content, to know when a cached snapshot is stale.
    pub fn fingerprint(&self) -> String {
        // FNV-1a over the serialized chart: stable across runs, no extra dependency.
        let bytes = serde_json::to_vec(self).unwrap_or_default();
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        format!("{h:016x}")
    }
}
