//! Tier 1: `tool_transitions` become the railroad — one state per tool ("this tool was just
//! used"), one transition per `next_allowed` entry.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value};

use super::Ctx;
use super::spans::key_spans;
use crate::dialects::locate::LoadError;
use crate::engine::build::{BuildError, ChartBuilder};
use crate::engine::ir::{InputMatcher, Outcome, Span, StateId, StateKind, Transition, Trigger};
use crate::engine::pattern::Pattern;
use crate::engine::tool_name::canonical_tool_name;

/// One entry of `next_allowed`: a tool name, or `{ "tool": …, "input": { "/pointer": "glob" } }`.
fn next_entry(cx: &Ctx, from: &str, v: &Value) -> Result<(String, Pattern), LoadError> {
    match v {
        Value::String(s) => Ok((s.clone(), tool_pattern(cx, from, s)?)),
        Value::Object(o) => {
            if let Some(k) = o.keys().find(|k| !["tool", "input"].contains(&k.as_str())) {
                return Err(cx.err(
                    &["tool_transitions", from, "next_allowed", k],
                    format!("unknown key `{k}` in a `next_allowed` entry: expected tool and input"),
                ));
            }
            let tool = o.get("tool").and_then(Value::as_str).ok_or_else(|| {
                cx.err(
                    &["tool_transitions", from, "next_allowed"],
                    "a `next_allowed` object needs a `tool` string",
                )
            })?;
            let mut pat = tool_pattern(cx, from, tool)?;
            if let Some(inp) = o.get("input") {
                let inp = inp.as_object().ok_or_else(|| {
                    cx.err(
                        &["tool_transitions", from, "input"],
                        "`input` must map JSON pointers to values",
                    )
                })?;
                for (ptr, want) in inp {
                    let ptr = if ptr.starts_with('/') {
                        ptr.clone()
                    } else {
                        format!("/{ptr}")
                    };
                    let m = match want {
                        Value::String(g) => InputMatcher::Glob(g.clone()),
                        other => InputMatcher::Equals(other.clone()),
                    };
                    pat = pat.with_input(&ptr, m);
                }
            }
            Ok((tool.to_string(), pat))
        }
        _ => Err(cx.err(
            &["tool_transitions", from, "next_allowed"],
            "`next_allowed` entries must be tool names or { \"tool\", \"input\" } objects",
        )),
    }
}

fn tool_pattern(cx: &Ctx, from: &str, name: &str) -> Result<Pattern, LoadError> {
    super::tool_pattern(cx, &["tool_transitions", from], name)
}

/// The largest `weight` a step may have: enough to make one step dominate, small enough that
/// sums stay exact.
const MAX_WEIGHT: f64 = 1_000_000.0;

/// The railroad as the file writes it, read in one pass over `tool_transitions`: tools are
/// told apart by canonical name (`server.tool`); a step is named as its key spells it (else
/// its first mention).
#[derive(Default)]
struct Read {
    /// Canonical names in the order of first mention (membership by set: a long chain must
    /// load in linear time).
    order: Vec<String>,
    seen: HashSet<String>,
    spelling: HashMap<String, String>,
    /// (from, to, the call that goes from one to the other), canonical names.
    edges: Vec<(String, String, Pattern)>,
    descriptions: BTreeMap<String, String>,
    /// Extension: tools the agent may also use while the railroad is at this step (tier 1's
    /// own allowance; a constraint still narrows it).
    also: BTreeMap<String, Vec<Pattern>>,
    weights: BTreeMap<String, f64>,
}

/// Build the railroad: a `start` state, one state per tool ("this tool was just used"), one
/// transition per `next_allowed` entry. Returns canonical tool name (`server.tool`) → state:
/// `starlog.check` and `mcp__starlog__check` name one tool, so they are one step.
pub(super) fn railroad(
    cx: &Ctx,
    transitions: &Map<String, Value>,
    obj: &Map<String, Value>,
    b: &mut ChartBuilder,
    parent: StateId,
) -> Result<BTreeMap<String, StateId>, LoadError> {
    let mut read = Read {
        spelling: key_spellings(cx, transitions)?,
        ..Read::default()
    };
    for (tool, spec) in transitions {
        read_step(cx, tool, spec, &mut read)?;
    }
    let spans = step_spans(cx, transitions, &read);
    let start = add_start(cx, obj, b, parent)?;
    let ids = add_steps(cx, &mut read, &spans, b, parent)?;
    for s in &starts(cx, obj, &read)? {
        let Some(&target) = ids.get(&canonical_tool_name(s)) else {
            return Err(cx.err(
                &["start", s],
                format!("`start` names `{s}`, which is not in tool_transitions"),
            ));
        };
        b.add_transition(edge(start, target, Pattern::exact_tool(s), None));
    }
    for (from, to, pat) in read.edges {
        let span = spans.get(&read.spelling[&from]).copied();
        b.add_transition(edge(ids[&from], ids[&to], pat, span));
    }
    Ok(ids)
}

fn edge(source: StateId, target: StateId, pat: Pattern, span: Option<Span>) -> Transition {
    Transition {
        source,
        targets: vec![target],
        trigger: Trigger::Event(pat),
        guard: None,
        actions: Vec::new(),
        label: None,
        span,
    }
}

/// Each key's spelling by canonical name; two spellings of one tool are an error.
fn key_spellings(
    cx: &Ctx,
    transitions: &Map<String, Value>,
) -> Result<HashMap<String, String>, LoadError> {
    let mut spelling: HashMap<String, String> = HashMap::new();
    for tool in transitions.keys() {
        super::tool_pattern(cx, &["tool_transitions"], tool)?;
        let canon = canonical_tool_name(tool);
        if let Some(first) = spelling.get(&canon) {
            return Err(cx.err(
                &["tool_transitions", tool],
                format!("`{tool}` and `{first}` name the same tool: define it once"),
            ));
        }
        spelling.insert(canon, tool.clone());
    }
    Ok(spelling)
}

/// One entry of `tool_transitions`: its settings and its edges (tools named only in
/// `next_allowed` are steps too).
fn read_step(cx: &Ctx, tool: &str, spec: &Value, read: &mut Read) -> Result<(), LoadError> {
    let canon = canonical_tool_name(tool);
    mention(read, &canon, tool);
    let spec = spec.as_object().ok_or_else(|| {
        cx.err(
            &["tool_transitions", tool],
            format!("`{tool}` must be an object like {{ \"next_allowed\": [...] }}"),
        )
    })?;
    for k in spec.keys() {
        if !["next_allowed", "allowed_tools", "description", "weight"].contains(&k.as_str()) {
            return Err(cx.err(&["tool_transitions", tool, k], format!("unknown key `{k}` in `{tool}`: expected next_allowed, allowed_tools, description or weight")));
        }
    }
    if let Some(list) = spec.get("allowed_tools") {
        read.also
            .insert(canon.clone(), allowed_tools(cx, tool, list)?);
    }
    if let Some(d) = spec.get("description").and_then(Value::as_str) {
        read.descriptions.insert(canon.clone(), d.to_string());
    }
    if let Some(w) = spec.get("weight") {
        read.weights.insert(canon.clone(), weight(cx, tool, w)?);
    }
    let next = match spec.get("next_allowed") {
        None => &[][..],
        Some(Value::Array(a)) => a.as_slice(),
        Some(_) => {
            return Err(cx.err(
                &["tool_transitions", tool, "next_allowed"],
                format!("`{tool}.next_allowed` must be an array"),
            ));
        }
    };
    // Stop counting before building a million patterns nobody will load.
    BuildError::check_size(read.order.len(), read.edges.len() + next.len())
        .map_err(|e| cx.err(&["tool_transitions", tool, "next_allowed"], e.to_string()))?;
    for n in next {
        let (name, pat) = next_entry(cx, tool, n)?;
        let to = canonical_tool_name(&name);
        mention(read, &to, &name);
        read.edges.push((canon.clone(), to, pat));
    }
    Ok(())
}

/// A tool mentioned (as a key or in `next_allowed`): a step, named as first written.
fn mention(read: &mut Read, canon: &str, written: &str) {
    read.spelling
        .entry(canon.to_string())
        .or_insert_with(|| written.to_string());
    if read.seen.insert(canon.to_string()) {
        read.order.push(canon.to_string());
    }
}

/// `allowed_tools`: tool names.
fn allowed_tools(cx: &Ctx, tool: &str, list: &Value) -> Result<Vec<Pattern>, LoadError> {
    let list = list.as_array().ok_or_else(|| {
        cx.err(
            &["tool_transitions", tool, "allowed_tools"],
            format!("`{tool}.allowed_tools` must be an array of tool names"),
        )
    })?;
    let mut pats = Vec::with_capacity(list.len());
    for item in list {
        let name = item.as_str().ok_or_else(|| {
            cx.err(
                &["tool_transitions", tool, "allowed_tools"],
                format!("`{tool}.allowed_tools` entries must be tool names"),
            )
        })?;
        pats.push(tool_pattern(cx, tool, name)?);
    }
    Ok(pats)
}

/// `weight`: how much the step counts for progress.
fn weight(cx: &Ctx, tool: &str, w: &Value) -> Result<f64, LoadError> {
    w.as_f64()
        .filter(|w| w.is_finite() && (0.0..=MAX_WEIGHT).contains(w))
        .ok_or_else(|| {
            cx.err(
                &["tool_transitions", tool, "weight"],
                format!(
                    "`{tool}.weight` must be a number from 0 to {MAX_WEIGHT}: how much this step counts for progress (default 1)"
                ),
            )
        })
}

/// Where each step is written: a tool's own key; for tools only named in `next_allowed`,
/// their first mention (`order` is the order of first mentions, so one forward scan finds
/// them all).
fn step_spans(cx: &Ctx, transitions: &Map<String, Value>, read: &Read) -> BTreeMap<String, Span> {
    let spelled: Vec<String> = read
        .order
        .iter()
        .map(|c| read.spelling[c].clone())
        .collect();
    let mut spans = key_spans(cx.text, "\"tool_transitions\"", transitions.keys(), true);
    for (tool, span) in key_spans(cx.text, "\"tool_transitions\"", spelled.iter(), false) {
        spans.entry(tool).or_insert(span);
    }
    spans
}

/// The railroad's initial state, from which the first calls lead.
fn add_start(
    cx: &Ctx,
    obj: &Map<String, Value>,
    b: &mut ChartBuilder,
    parent: StateId,
) -> Result<StateId, LoadError> {
    let start = b
        .add_state(parent, "start", StateKind::Atomic)
        .map_err(|e| cx.err(&["tool_transitions"], e.to_string()))?;
    b.state_mut(start).weight = 0.0;
    b.state_mut(start).label = "start".into();
    // Lints about the start (a `start` list that leads nowhere) point at what made it.
    let at = if obj.contains_key("start") {
        ["\"start\""]
    } else {
        ["\"tool_transitions\""]
    };
    let (line, col) = crate::dialects::locate::find_path(cx.text, &at);
    b.state_mut(start).span = Some(Span::at(line, col));
    b.set_initial(parent, start);
    Ok(start)
}

/// One state per step: final when nothing follows it, its activity the tool itself.
fn add_steps(
    cx: &Ctx,
    read: &mut Read,
    spans: &BTreeMap<String, Span>,
    b: &mut ChartBuilder,
    parent: StateId,
) -> Result<BTreeMap<String, StateId>, LoadError> {
    let mut ids = BTreeMap::new();
    // Each tool's next calls, grouped once: a scan per tool would be quadratic on long files.
    let mut next_of: HashMap<&str, Vec<&Pattern>> = HashMap::new();
    for (f, _, p) in &read.edges {
        next_of.entry(f.as_str()).or_default().push(p);
    }
    for tool in &read.order {
        let kind = if next_of.contains_key(tool.as_str()) {
            StateKind::Atomic
        } else {
            StateKind::Final {
                outcome: Outcome::Success,
                message: None,
                recovery: None,
            }
        };
        let name = &read.spelling[tool];
        let id = b
            .add_state(parent, name, kind)
            .map_err(|e| cx.err(&["tool_transitions", name], e.to_string()))?;
        let st = b.state_mut(id);
        st.activity = Some(Pattern::exact_tool(name));
        st.complete_on_entry = true;
        st.weight = read.weights.get(tool).copied().unwrap_or(1.0);
        if let Some(d) = read.descriptions.get(tool) {
            st.notes.push(d.clone());
        }
        // An allow list is a filter, so the step's own next calls are on it too.
        if let Some(extra) = read.also.remove(tool) {
            st.policy.allow = extra;
            let own = next_of.get(tool.as_str()).into_iter().flatten();
            st.policy.allow.extend(own.map(|p| (*p).clone()));
        }
        st.span = spans.get(name).copied();
        ids.insert(tool.clone(), id);
    }
    Ok(ids)
}

/// The railroad's first calls: the explicit `start` list, else the tools nothing leads to
/// (else the first tool).
fn starts(cx: &Ctx, obj: &Map<String, Value>, read: &Read) -> Result<Vec<String>, LoadError> {
    let not_a_list = || {
        cx.err(
            &["start"],
            "`start` must be a tool name or a non-empty list of tool names: the railroad's first calls",
        )
    };
    match obj.get("start") {
        // An empty list would leave the railroad with no first step.
        Some(Value::Array(a)) if a.is_empty() => Err(not_a_list()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map(String::from).ok_or_else(not_a_list))
            .collect(),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(_) => Err(not_a_list()),
        None => {
            let led_to: HashSet<&str> = read
                .edges
                .iter()
                .filter(|(f, to, _)| f != to)
                .map(|(_, to, _)| to.as_str())
                .collect();
            let s: Vec<String> = read
                .order
                .iter()
                .filter(|t| !led_to.contains(t.as_str()))
                .map(|t| read.spelling[t].clone())
                .collect();
            Ok(if s.is_empty() {
                read.order
                    .first()
                    .map(|t| read.spelling[t].clone())
                    .into_iter()
                    .collect()
            } else {
                s
            })
        }
    }
}
