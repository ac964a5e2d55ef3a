//! The workflow file as written (seed 003), deserialized with `serde-saphyr`.
//!
//! Every struct denies unknown keys, so a misspelt key is a located error rather than a silently
//! ignored one. Positions come from `Spanned` wrappers on the values errors point at. Node,
//! ending and handler maps keep file order ([`OrderedMap`]): document order decides which of two
//! enabled transitions wins.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_saphyr::Spanned;

use crate::engine::ir::Span;

/// A YAML value with the position it was written at.
pub type Sp<T> = Spanned<T>;

/// `line:col` of a spanned value, in the IR's span type.
pub fn span_of<T>(s: &Sp<T>) -> Span {
    Span::at(
        s.referenced.line().min(u64::from(u32::MAX)) as u32,
        s.referenced.column().min(u64::from(u32::MAX)) as u32,
    )
}

/// A mapping that keeps its entries in file order, each key with its position.
#[derive(Debug)]
pub struct OrderedMap<V>(pub Vec<(Sp<String>, V)>);

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap(Vec::new())
    }
}

impl<V> OrderedMap<V> {
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k.value == key).map(|(_, v)| v)
    }
    pub fn keys(&self) -> impl Iterator<Item = &Sp<String>> {
        self.0.iter().map(|(k, _)| k)
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V2<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V2<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping of names to definitions")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(OrderedMap(Vec::new()))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(OrderedMap(Vec::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<Sp<String>, V>()? {
                    out.push((k, v));
                }
                Ok(OrderedMap(out))
            }
        }
        d.deserialize_map(V2(PhantomData))
    }
}

/// `value: null` is a value (set a field to null), not a missing key.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workflow {
    pub name: Option<Sp<String>>,
    #[serde(default, deserialize_with = "present")]
    pub version: Option<Value>,
    pub description: Option<String>,
    #[serde(default)]
    pub entry_preconditions: Vec<Sp<Precondition>>,
    /// Extension: the ending to go to when an entry precondition fails.
    pub on_entry_failure: Option<Sp<String>>,
    pub initial_state: Option<serde_json::Map<String, Value>>,
    pub start_node: Option<Sp<String>>,
    #[serde(default)]
    pub nodes: OrderedMap<Sp<Node>>,
    #[serde(default)]
    pub endings: OrderedMap<Sp<Ending>>,
    /// Extensions shared with the master dialect.
    pub enforcement: Option<Sp<String>>,
    pub off_path: Option<Sp<String>>,
    pub neutral_tools: Option<Vec<Sp<String>>>,
    /// Extension: the skill that runs the workflow (default: `name` in kebab case).
    pub skill: Option<Sp<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Node {
    #[serde(rename = "type")]
    pub kind: Option<Sp<String>>,
    pub description: Option<String>,
    #[serde(alias = "consequences")]
    pub actions: Option<Vec<Sp<Consequence>>>,
    pub on_success: Option<Sp<String>>,
    pub on_failure: Option<Sp<String>>,
    pub condition: Option<Sp<Precondition>>,
    pub branches: Option<Sp<Branches>>,
    pub prompt: Option<Sp<Prompt>>,
    /// Extension on `user_prompt`: keep the answers in this variable.
    pub store_as: Option<String>,
    pub on_response: Option<OrderedMap<Sp<Handler>>>,
    pub validations: Option<Vec<Sp<Precondition>>>,
    pub on_valid: Option<Sp<String>>,
    pub on_invalid: Option<Sp<String>>,
    pub doc: Option<Sp<String>>,
    pub section: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub context: Option<Value>,
    pub next_node: Option<Sp<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Branches {
    #[serde(rename = "true")]
    pub when_true: Option<Sp<String>>,
    #[serde(rename = "false")]
    pub when_false: Option<Sp<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prompt {
    pub question: Option<String>,
    pub header: Option<String>,
    #[serde(default)]
    pub options: Vec<Sp<PromptOption>>,
    #[serde(alias = "multiSelect")]
    pub multi_select: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptOption {
    pub id: Option<String>,
    pub label: Option<String>,
    pub description: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Handler {
    #[serde(alias = "consequences")]
    pub consequence: Option<Vec<Sp<Consequence>>>,
    pub next_node: Option<Sp<String>>,
    pub description: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ending {
    #[serde(rename = "type")]
    pub kind: Option<Sp<String>>,
    pub message: Option<String>,
    pub recovery: Option<String>,
    pub description: Option<String>,
}

/// One precondition: `type` plus the parameters of that type.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Precondition {
    #[serde(rename = "type")]
    pub kind: Option<Sp<String>>,
    pub flag: Option<String>,
    pub field: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub value: Option<Value>,
    pub id: Option<String>,
    pub path: Option<String>,
    pub tool: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub min: Option<Value>,
    pub from: Option<String>,
    pub conditions: Option<Vec<Sp<Precondition>>>,
    pub expression: Option<Sp<String>>,
    pub description: Option<String>,
}

/// One consequence: `type` plus the parameters any known type takes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Consequence {
    #[serde(rename = "type")]
    pub kind: Option<Sp<String>>,
    pub flag: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub value: Option<Value>,
    pub field: Option<String>,
    pub store_as: Option<String>,
    pub from: Option<String>,
    pub name: Option<String>,
    pub expression: Option<Sp<String>>,
    pub set_flag: Option<String>,
    pub url: Option<String>,
    pub dest: Option<String>,
    pub branch: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub depth: Option<Value>,
    pub path: Option<String>,
    pub repo_path: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub spec: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub entry: Option<Value>,
    pub id: Option<String>,
    pub allow_failure: Option<bool>,
    pub section: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub context: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub content: Option<Value>,
    pub prompt: Option<String>,
    pub agent: Option<String>,
    pub subagent_type: Option<String>,
    pub skill: Option<String>,
    pub command: Option<String>,
    pub message: Option<String>,
    pub description: Option<String>,
}

/// Largest YAML node count a workflow may have: generous for real workflows (seed 003's
/// 60-node add-source is ~1,500 YAML nodes), small enough that a hostile file fails fast.
pub const MAX_YAML_NODES: usize = 400_000;

/// Deepest nesting of mappings and sequences. Real workflows need about 12; each level costs
/// stack in the deserializer, and 32 stays far below a 2 MiB thread stack even in debug builds.
pub const MAX_DEPTH: usize = 32;

/// Parse workflow text. Budgets stop alias bombs, deep nesting and huge inputs with an error.
pub fn parse(file: &str, text: &str) -> Result<Workflow, crate::dialects::LoadError> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_nodes: MAX_YAML_NODES,
            max_depth: MAX_DEPTH,
            max_aliases: 1_000,
            max_documents: 1,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: 100_000,
        },
        with_snippet: false,
    };
    serde_saphyr::from_str_with_options::<Workflow>(text, options).map_err(|e| {
        let (line, col) = e
            .location()
            .map(|l| (l.line() as u32, l.column() as u32))
            .unwrap_or((1, 1));
        crate::dialects::LoadError::at(
            file,
            line,
            col,
            format!("invalid workflow YAML: {}", clean(&e.to_string())),
        )
    })
}

/// serde-saphyr's message without the position (the `LoadError` carries it) or advice about
/// its own options; budget breaches in plain words.
fn clean(msg: &str) -> String {
    let first = msg.lines().next().unwrap_or("").trim();
    let first = match first.find(" at line ") {
        Some(i) => &first[..i],
        None => first,
    };
    if first.contains("budget breached") {
        let why = if first.contains("Depth") || first.contains("Nesting") {
            format!("nested deeper than {MAX_DEPTH} levels")
        } else if first.contains("Documents") {
            "more than one YAML document (`---`)".to_string()
        } else if first.contains("Alias") || first.contains("Anchor") || first.contains("Replay") {
            "too many aliases (`*name`) or too much aliased data".to_string()
        } else {
            format!("more than {MAX_YAML_NODES} YAML nodes")
        };
        return format!("{why}: too large or too deeply nested for a workflow");
    }
    if first.contains("recursion limit") {
        return format!("nested deeper than {MAX_DEPTH} levels: too deeply nested for a workflow");
    }
    first
        .replace(", set DuplicateKeyPolicy in Options if acceptable", "")
        .replace(
            "expected mapping start",
            "expected a mapping of keys to values",
        )
}
