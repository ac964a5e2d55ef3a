//! Tier 1: `tool_transitions` become the railroad — one state per tool ("this tool was just
//! used"), one transition per `next_allowed` entry.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value};

use super::Ctx;
use super::spans::key_spans;
use crate::dialects::locate::LoadError;
use crate::engine::build::{BuildError, ChartBuilder};
use crate::engine::ir::{InputMatcher, Outcome, StateId, StateKind, Transition, Trigger};
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
    // Collect edges first: tools named only in next_allowed are states too. Tools are told
    // apart by canonical name; a step is named as its key spells it (else its first mention).
    let mut order: Vec<String> = Vec::new();
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
    // Membership by set: a long chain must load in linear time.
    let mut seen: HashSet<String> = HashSet::new();
    let mut edges: Vec<(String, String, Pattern)> = Vec::new();
    let mut descriptions: BTreeMap<String, String> = BTreeMap::new();
    // Extension: tools the agent may also use while the railroad is at this step (tier 1's
    // own allowance; a constraint still narrows it).
    let mut also: BTreeMap<String, Vec<Pattern>> = BTreeMap::new();
    let mut weights: BTreeMap<String, f64> = BTreeMap::new();
    for (tool, spec) in transitions {
        let canon = canonical_tool_name(tool);
        if seen.insert(canon.clone()) {
            order.push(canon.clone());
        }
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
            also.insert(canon.clone(), pats);
        }
        if let Some(d) = spec.get("description").and_then(Value::as_str) {
            descriptions.insert(canon.clone(), d.to_string());
        }
        if let Some(w) = spec.get("weight") {
            let w = w
                .as_f64()
                .filter(|w| w.is_finite() && (0.0..=MAX_WEIGHT).contains(w))
                .ok_or_else(|| {
                    cx.err(
                        &["tool_transitions", tool, "weight"],
                        format!(
                            "`{tool}.weight` must be a number from 0 to {MAX_WEIGHT}: how much this step counts for progress (default 1)"
                        ),
                    )
                })?;
            weights.insert(canon.clone(), w);
        }
        let next = match spec.get("next_allowed") {
            None => Vec::new(),
            Some(Value::Array(a)) => a.clone(),
            Some(_) => {
                return Err(cx.err(
                    &["tool_transitions", tool, "next_allowed"],
                    format!("`{tool}.next_allowed` must be an array"),
                ));
            }
        };
        // Stop counting before building a million patterns nobody will load.
        BuildError::check_size(order.len(), edges.len() + next.len())
            .map_err(|e| cx.err(&["tool_transitions", tool, "next_allowed"], e.to_string()))?;
        for n in &next {
            let (name, pat) = next_entry(cx, tool, n)?;
            let to = canonical_tool_name(&name);
            spelling.entry(to.clone()).or_insert(name);
            if seen.insert(to.clone()) {
                order.push(to.clone());
            }
            edges.push((canon.clone(), to, pat));
        }
    }
    // A tool's own key; for tools only named in `next_allowed`, their first mention (`order`
    // is the order of first mentions, so one forward scan finds them all).
    let spelled: Vec<String> = order.iter().map(|c| spelling[c].clone()).collect();
    let mut spans = key_spans(cx.text, "\"tool_transitions\"", transitions.keys(), true);
    for (tool, span) in key_spans(cx.text, "\"tool_transitions\"", spelled.iter(), false) {
        spans.entry(tool).or_insert(span);
    }
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
    b.state_mut(start).span = Some(crate::engine::ir::Span::at(line, col));
    b.set_initial(parent, start);
    let mut ids = BTreeMap::new();
    // Each tool's next calls, grouped once: a scan per tool would be quadratic on long files.
    let mut next_of: HashMap<&str, Vec<&Pattern>> = HashMap::new();
    for (f, _, p) in &edges {
        next_of.entry(f.as_str()).or_default().push(p);
    }
    for tool in &order {
        let has_next = next_of.contains_key(tool.as_str());
        let kind = if has_next {
            StateKind::Atomic
        } else {
            StateKind::Final {
                outcome: Outcome::Success,
                message: None,
                recovery: None,
            }
        };
        let name = &spelling[tool];
        let id = b
            .add_state(parent, name, kind)
            .map_err(|e| cx.err(&["tool_transitions", name], e.to_string()))?;
        let st = b.state_mut(id);
        st.activity = Some(Pattern::exact_tool(name));
        st.complete_on_entry = true;
        st.weight = weights.get(tool).copied().unwrap_or(1.0);
        if let Some(d) = descriptions.get(tool) {
            st.notes.push(d.clone());
        }
        // An allow list is a filter, so the step's own next calls are on it too.
        if let Some(extra) = also.remove(tool) {
            st.policy.allow = extra;
            st.policy.allow.extend(
                next_of
                    .get(tool.as_str())
                    .into_iter()
                    .flatten()
                    .map(|p| (*p).clone()),
            );
        }
        st.span = spans.get(name).copied();
        ids.insert(tool.clone(), id);
    }
    // Entry: the explicit `start` list, else tools nothing leads to.
    let not_a_list = || {
        cx.err(
            &["start"],
            "`start` must be a tool name or a non-empty list of tool names: the railroad's first calls",
        )
    };
    let starts: Vec<String> = match obj.get("start") {
        // An empty list would leave the railroad with no first step.
        Some(Value::Array(a)) if a.is_empty() => return Err(not_a_list()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map(String::from).ok_or_else(not_a_list))
            .collect::<Result<_, _>>()?,
        Some(Value::String(s)) => vec![s.clone()],
        Some(_) => return Err(not_a_list()),
        None => {
            let led_to: HashSet<&str> = edges
                .iter()
                .filter(|(f, to, _)| f != to)
                .map(|(_, to, _)| to.as_str())
                .collect();
            let s: Vec<String> = order
                .iter()
                .filter(|t| !led_to.contains(t.as_str()))
                .map(|t| spelling[t].clone())
                .collect();
            if s.is_empty() {
                order
                    .first()
                    .map(|t| spelling[t].clone())
                    .into_iter()
                    .collect()
            } else {
                s
            }
        }
    };
    for s in &starts {
        let Some(&target) = ids.get(&canonical_tool_name(s)) else {
            return Err(cx.err(
                &["start", s],
                format!("`start` names `{s}`, which is not in tool_transitions"),
            ));
        };
        b.add_transition(Transition {
            source: start,
            targets: vec![target],
            trigger: Trigger::Event(Pattern::exact_tool(s)),
            guard: None,
            actions: Vec::new(),
            label: None,
            span: None,
        });
    }
    for (from, to, pat) in edges {
        let span = spans.get(&spelling[&from]).copied();
        b.add_transition(Transition {
            source: ids[&from],
            targets: vec![ids[&to]],
            trigger: Trigger::Event(pat),
            guard: None,
            actions: Vec::new(),
            label: None,
            span,
        });
    }
    Ok(ids)
}
