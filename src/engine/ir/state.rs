//! The state tree: states, their kinds, policies, progress fills and bands, and where each
//! was declared.

use serde::{Deserialize, Serialize};

use super::{Action, Enforcement, Guard, StateId};
use crate::engine::pattern::Pattern;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Success,
    Error,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StateKind {
    Atomic,
    Compound {
        initial: StateId,
    },
    Parallel,
    /// Routing pseudo-state: ordered guarded eventless transitions, first match wins.
    Choice,
    Final {
        outcome: Outcome,
        message: Option<String>,
        recovery: Option<String>,
    },
}

/// Allow / deny patterns of a state. A non-empty `allow` list is a filter: a tool outside it
/// (and not neutral) is denied while the state is active. Lists of all active states intersect.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Policy {
    pub allow: Vec<Pattern>,
    pub deny: Vec<Pattern>,
    /// What to do instead, added to the reason when this policy denies a call (seed 004's
    /// ExitPlanMode chain names the missing artifact; seed 001 names the next anchor call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<String>,
    /// The policy applies only while this holds (seed 004: ExitPlanMode is denied while an
    /// artifact is missing, `not flag intent_brief`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Guard>,
    /// Policies naming the same gate share one deadlock count ("max 3 denials" for the whole
    /// ExitPlanMode chain), which a state change does not reset: only a call the gate lets
    /// through does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// What this policy's objections do, over the state's and the sequence's mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforcement: Option<Enforcement>,
    /// Where the policy is declared, for lints of its `when`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

impl Policy {
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub id: StateId,
    /// Local name inside the parent (may contain dots, e.g. a tool name).
    pub name: String,
    /// Path from the root's children, joined with `.`; unique.
    pub key: String,
    /// Display label (first line of a Mermaid label, a node description…).
    pub label: String,
    pub parent: Option<StateId>,
    pub children: Vec<StateId>,
    pub kind: StateKind,
    /// The tool, skill or command that performs this step.
    pub activity: Option<Pattern>,
    /// The activity as the agent makes the call, for people to read: `Bash(command="git clone
    /// ${source_url} .source/${source_id}")` where `activity` holds the globs that match it.
    /// `${var}` stays as written; `Machine::activity_call` fills in the values a snapshot holds.
    /// `None`: the pattern says it well enough (views show `activity` as calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    pub policy: Policy,
    /// Further policies of their own (a `when`, a gate, a recovery text), checked after
    /// `policy` in order: the first that objects speaks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<Policy>,
    pub enforcement: Option<Enforcement>,
    /// Progress weight; pseudo-states default to 0, others to 1.
    pub weight: f64,
    /// `true` when entering the state means its step is already done (seed 000 railroad: the
    /// state is named after the tool that was just used).
    pub complete_on_entry: bool,
    /// Where the state sits inside its parent, in percent of the parent's interval, when the
    /// sequence pins it (hope's loop steps: a loop would fold them into one interval, so
    /// progress would stand still through a whole wave). Over the computed layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<[f64; 2]>,
    /// How far along an atomic state is, read from a watched system's own measure (SEAAM's
    /// goals achieved of goals set) instead of 0 until it is left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill: Option<Fill>,
    pub on_entry: Vec<Action>,
    pub notes: Vec<String>,
    /// Where the state was declared in its source file (`line:col`), for messages.
    pub span: Option<Span>,
}

/// A state's own progress: reader `done` of reader `total`, both sampled facts (numbers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fill {
    pub done: String,
    pub total: String,
}

impl State {
    pub fn is_final(&self) -> bool {
        matches!(self.kind, StateKind::Final { .. })
    }
    pub fn is_pseudo(&self) -> bool {
        matches!(self.kind, StateKind::Choice)
    }
    /// `policy`, then `policies`.
    pub fn all_policies(&self) -> impl Iterator<Item = &Policy> {
        std::iter::once(&self.policy).chain(&self.policies)
    }
    pub fn is_atomic_like(&self) -> bool {
        matches!(
            self.kind,
            StateKind::Atomic | StateKind::Final { .. } | StateKind::Choice
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub line: u32,
    pub col: u32,
    /// Which file: 0 is the file that was loaded; `k` is
    /// [`Chart::files`](super::Chart::files)`[k - 1]` (the diagrams a Mermaid manifest nests).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub file: u16,
}

fn is_zero(n: &u16) -> bool {
    *n == 0
}

impl Span {
    /// A position in the loaded file.
    pub fn at(line: u32, col: u32) -> Span {
        Span { line, col, file: 0 }
    }
}

/// A progress band pinned at the top level (seed 000 `progress_layers`), in percent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Band {
    pub name: String,
    pub lo: f64,
    pub hi: f64,
    pub states: Vec<StateId>,
    /// Where the band is declared, for lints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

/// While `when` holds, overall progress is at least where state `at` starts: a side trip (a
/// consult run beside the loop, soul on every prompt) keeps the progress of the step it left.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Floor {
    pub when: super::Guard,
    pub at: StateId,
}
