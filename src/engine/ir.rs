//! The statechart IR every dialect compiles to: a state tree in document order plus one flat
//! transition table (ARCHITECTURE §3, statecharts reference §5.1).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::pattern::Pattern;

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

/// What a denied call does (per sequence, overridable per state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Enforcement {
    /// Deny blocks the call.
    #[default]
    Enforce,
    /// The call goes through, with a warning to the model and the user.
    Advise,
    /// Log only.
    Observe,
}

impl Enforcement {
    pub fn as_str(self) -> &'static str {
        match self {
            Enforcement::Enforce => "enforce",
            Enforcement::Advise => "advise",
            Enforcement::Observe => "observe",
        }
    }
}

/// What a call that fits nowhere in the chart gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OffPathPolicy {
    Observe,
    #[default]
    Warn,
    Deny,
}

/// How seed answers when seed itself fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailMode {
    #[default]
    Open,
    Closed,
}

/// What the deadlock breaker does once a tool has been denied `limit` times in a row by the
/// same rule (the next attempt escalates).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeadlockFallback {
    /// Keep denying, with a message telling the model to stop and ask the user.
    #[default]
    Deny,
    /// Hand the decision to the user (`permissionDecision: ask`).
    Ask,
    /// Let the call through with a warning.
    Advise,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deadlock {
    pub limit: u32,
    pub fallback: DeadlockFallback,
}

impl Default for Deadlock {
    fn default() -> Self {
        Deadlock {
            limit: 3,
            fallback: DeadlockFallback::Deny,
        }
    }
}

/// Whether Stop / SubagentStop may keep the agent working until the sequence is finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StopGate {
    pub block_until_final: bool,
    pub max_blocks: u32,
}

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
    /// Which file: 0 is the file that was loaded; `k` is [`Chart::files`]`[k - 1]` (the
    /// diagrams a Mermaid manifest nests).
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "pattern", rename_all = "snake_case")]
pub enum Trigger {
    /// A normalized event matching the pattern (`tool:…`, `skill:…`, `command:…`, `lifecycle:…`).
    Event(Pattern),
    /// An `error.*` event (a failed tool call), e.g. `error.tool:Edit`.
    Error(Pattern),
    /// `done.state` of the given compound or parallel state.
    Done(StateId),
    /// Eventless: taken as soon as the guard holds.
    Always,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    pub source: StateId,
    /// Empty: targetless (runs its actions, exits nothing).
    pub targets: Vec<StateId>,
    pub trigger: Trigger,
    pub guard: Option<Guard>,
    pub actions: Vec<Action>,
    /// Documentation label from the source file.
    pub label: Option<String>,
    pub span: Option<Span>,
}

/// Comparison operator for variables and readers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// String contains / array contains.
    Contains,
}

impl CmpOp {
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Contains => "contains",
        }
    }
}

/// Typed guards: data only, never code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Guard {
    True,
    All {
        of: Vec<Guard>,
    },
    Any {
        of: Vec<Guard>,
    },
    Not {
        guard: Box<Guard>,
    },
    Flag {
        name: String,
    },
    Var {
        name: String,
        op: CmpOp,
        value: Value,
    },
    /// `len(var) > min` for arrays, strings and objects.
    Count {
        name: String,
        op: CmpOp,
        value: f64,
    },
    In {
        state: StateId,
    },
    /// Sugar for a `file_exists` reader fact; the loader registers the reader.
    FileExists {
        reader: String,
    },
    Reader {
        name: String,
        op: CmpOp,
        value: Value,
    },
    /// A JSON pointer into the triggering event's input.
    Input {
        pointer: String,
        matcher: InputMatcher,
    },
}

impl Guard {
    /// `not true`: a transition kept for documentation that can never fire (a Mermaid edge
    /// whose condition no hook event can observe). Paths and lints ignore it.
    pub fn is_never(&self) -> bool {
        matches!(self, Guard::Not { guard } if **guard == Guard::True)
    }
}

/// How an input value is matched: a glob on its string form, or exact JSON equality.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum InputMatcher {
    Glob(String),
    Equals(Value),
    Present,
}

/// Data-only actions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    SetFlag {
        name: String,
        value: bool,
    },
    /// `${name}` in string parts of `value` reads the variable when the action runs (see
    /// `interpolate`); so do `AppendVar`, `MergeVar` and `Note`.
    SetVar {
        name: String,
        value: Value,
    },
    /// Set a variable from a JSON pointer into the triggering event's input.
    SetVarFromInput {
        name: String,
        pointer: String,
    },
    /// Set a variable from the triggering call's result (`Event::response`) or input, at a
    /// JSON pointer, decoded: seed 003's `store_as` keeps what the action produced.
    SetVarFromResult {
        name: String,
        #[serde(default)]
        from: ResultPart,
        pointer: String,
        #[serde(default)]
        decode: Decode,
    },
    AppendVar {
        name: String,
        value: Value,
    },
    MergeVar {
        name: String,
        value: Value,
    },
    Checkpoint {
        name: String,
    },
    Rollback {
        name: String,
    },
    Note {
        text: String,
    },
}

/// Which part of the triggering event a [`Action::SetVarFromResult`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultPart {
    /// The tool's result (PostToolUse).
    #[default]
    Response,
    /// The call's input (AskUserQuestion's `answers` are there too).
    Input,
}

/// How a [`Action::SetVarFromResult`] value is decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decode {
    /// As it is.
    #[default]
    Json,
    /// Text without surrounding whitespace (a command's stdout).
    Trim,
    /// Text parsed as YAML (a Read of a YAML file); text that does not parse stays text.
    Yaml,
    /// The first value of an object (AskUserQuestion's answer to its question).
    First,
}

/// A deep-state reader: data evaluated by the host, passed to `step` as facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReaderDecl {
    pub name: String,
    pub kind: ReaderKind,
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReaderKind {
    /// JSON value at `pointer` in the newest file matching `path` (a glob).
    Json {
        path: String,
        pointer: String,
    },
    /// An aggregate over the list at `pointer` (an object's values) in the newest JSON file
    /// matching `path`: seed 002's dna.json keeps goals, failures and active modules as lists.
    JsonList {
        path: String,
        pointer: String,
        op: ListOp,
    },
    FileExists {
        path: String,
    },
    /// Number of files matching the glob.
    Count {
        path: String,
    },
    /// Age in seconds of the newest file matching the glob.
    Age {
        path: String,
    },
    /// `true` when the file at `path` contains `text` (seed 003's `index_is_placeholder`).
    Contains {
        path: String,
        text: String,
    },
    /// `true` when `program` is found on `PATH` (seed 003's `tool_available`, `which git`).
    OnPath {
        program: String,
    },
}

/// What a [`ReaderKind::JsonList`] reader computes. `field` is a JSON pointer inside each item
/// (empty: the item itself). Anything that is not a list (or object) yields `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ListOp {
    /// How many items there are; with `equals`, how many whose `field` equals it.
    Count {
        #[serde(default)]
        field: String,
        #[serde(default)]
        equals: Option<Value>,
    },
    /// Every item's `field` equals `equals` (`false` for an empty list).
    All { field: String, equals: Value },
    /// Some item's `field` equals `equals`.
    Any { field: String, equals: Value },
    /// `field` of the last item (the newest, for lists that are appended to).
    Last {
        #[serde(default)]
        field: String,
    },
    /// How many items (an object's keys) are missing from the list at pointer `other`.
    NotIn { other: String },
}

impl ReaderKind {
    /// The path the host expands and reads (for `OnPath`, the program name).
    pub fn path(&self) -> &str {
        match self {
            ReaderKind::Json { path, .. }
            | ReaderKind::JsonList { path, .. }
            | ReaderKind::FileExists { path }
            | ReaderKind::Count { path }
            | ReaderKind::Age { path }
            | ReaderKind::Contains { path, .. } => path,
            ReaderKind::OnPath { program } => program,
        }
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

/// Sequence-wide settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Settings {
    pub enforcement: Enforcement,
    pub off_path: OffPathPolicy,
    pub fail: FailMode,
    pub deadlock: Deadlock,
    pub stop: StopGate,
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
    /// Initial values of variables and flags (flags are booleans under `flags.`).
    pub vars: BTreeMap<String, Value>,
    /// Other files the chart was assembled from, named by [`Span::file`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

impl Chart {
    pub fn state(&self, id: StateId) -> &State {
        &self.states[id.index()]
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

    /// Some transition keeps a tool's result (`store_as` of what a call produced): only then
    /// does a stepped event need the response, and only then does the log carry it in the event.
    pub fn reads_responses(&self) -> bool {
        self.transitions.iter().flat_map(|t| &t.actions).any(|a| {
            matches!(
                a,
                Action::SetVarFromResult {
                    from: ResultPart::Response,
                    ..
                }
            )
        })
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
