//! Transitions and what they carry: the trigger, the typed guard and the data-only actions.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Span, StateId};
use crate::engine::pattern::Pattern;

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
    /// The triggering call's result (PostToolUse's `tool_response`) at a JSON pointer
    /// (empty: the whole result), compared with `op`. `contains` looks for the text in every
    /// string of the result. Before the call has run (a gate) the result is unknown.
    Result {
        pointer: String,
        op: CmpOp,
        value: Value,
    },
    /// The input value at `pointer` is one of the list variable `var`'s entries: a glob entry
    /// (`*`, `?`) matches it ignoring case; any other entry is a path or a plain value that
    /// equals it or is a folder above it (see [`crate::engine::guard::list_covers`]).
    InList {
        pointer: String,
        var: String,
    },
}

impl Guard {
    /// `not true`: a transition kept for documentation that can never fire (a Mermaid edge
    /// whose condition no hook event can observe). Paths and lints ignore it.
    pub fn is_never(&self) -> bool {
        matches!(self, Guard::Not { guard } if **guard == Guard::True)
    }

    /// It reads the call's result somewhere.
    pub fn reads_result(&self) -> bool {
        match self {
            Guard::Result { .. } => true,
            Guard::All { of } | Guard::Any { of } => of.iter().any(Guard::reads_result),
            Guard::Not { guard } => guard.reads_result(),
            _ => false,
        }
    }
}

/// How an input value is matched: a glob on its string form, or exact JSON equality.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum InputMatcher {
    Glob(String),
    Equals(Value),
    Present,
}

/// Triggers are told apart in hash sets (one per step's way out, however many): an `Equals`
/// value is left out of the hash, which equal matchers still share.
impl std::hash::Hash for InputMatcher {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        if let InputMatcher::Glob(g) = self {
            g.hash(state);
        }
    }
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
    /// Remember the string (or each string of the list) at `pointer` in the call's input or
    /// result in the list variable `name`, once each: the per-file memory a guard's `input.x
    /// in name` reads. The list keeps the newest [`crate::engine::guard::MAX_REMEMBERED`].
    Remember {
        name: String,
        #[serde(default)]
        from: ResultPart,
        pointer: String,
    },
    MergeVar {
        name: String,
        value: Value,
    },
    /// Set `name` to how many items variable `of` holds (a list's or mapping's entries, a
    /// text's characters, 0 for anything else): seed 003's `count_sources`.
    CountVar {
        name: String,
        of: String,
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
    /// A web fetch's result with `status`, the HTTP status its `code` reports (seed 003's
    /// `fetch_succeeded` reads it); a result that reports none gets no `status`.
    Fetch,
}
