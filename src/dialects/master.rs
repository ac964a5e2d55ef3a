//! The master-sequence dialect of seed 000: `tool_transitions` become the railroad (tier 1),
//! `state_constraints` + `state_readers` a parallel context region whose policies intersect
//! with it (tier 2), `progress_layers` progress bands.
//!
//! The JSON of the seed loads exactly as written. Extensions (all optional): `start`,
//! `neutral_tools`, `enforcement`, `off_path`, `fail`, `deadlock`, `stop`, `aliases`, `when` on
//! a constraint, reader objects, `steps` on a layer, `{ "tool", "input" }` entries in
//! `next_allowed`, and `description` and `allowed_tools` on a tool.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value};

use super::Loaded;
use super::locate::{LineIndex, LoadError, find_path, line_col_of_offset};
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{
    Band, CmpOp, DeadlockFallback, Dialect, Enforcement, FailMode, Guard, InputMatcher,
    OffPathPolicy, Outcome, ReaderDecl, ReaderKind, StateId, StateKind, Transition, Trigger,
};
use crate::engine::pattern::Pattern;

struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    fn err(&self, path: &[&str], msg: impl Into<String>) -> LoadError {
        let quoted: Vec<String> = path.iter().map(|p| format!("\"{p}\"")).collect();
        let refs: Vec<&str> = quoted.iter().map(String::as_str).collect();
        let (line, col) = find_path(self.text, &refs);
        LoadError::at(self.file, line, col, msg)
    }
}

/// Reader presets named by seed 000's `state_readers` (`"check_waypoint_temp_files"`…): where
/// the HEAVEN systems keep their state, under `${HEAVEN_DATA_DIR}`.
pub fn preset_reader(name: &str) -> Option<ReaderKind> {
    Some(match name {
        "check_waypoint_temp_files" => ReaderKind::Json {
            path: "${HEAVEN_DATA_DIR}/waypoints/*.json".into(),
            pointer: "/status".into(),
        },
        "check_starlog_registries" => ReaderKind::Count {
            path: "${HEAVEN_DATA_DIR}/registry/*.json".into(),
        },
        "check_active_flight_configs" => ReaderKind::Json {
            path: "${HEAVEN_DATA_DIR}/flights/*.json".into(),
            pointer: "/status".into(),
        },
        _ => return None,
    })
}

pub fn load(file: &str, text: &str) -> Result<Loaded, LoadError> {
    let cx = Ctx { file, text };
    let root: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            // Seed 000's sketches are bare members (`"tool_transitions": {…}`): load them as an
            // object; errors still point at the text as written.
            let wrapped = format!("{{{text}\n}}");
            let retry = text
                .trim_start()
                .starts_with('"')
                .then(|| serde_json::from_str::<Value>(&wrapped));
            match retry {
                Some(Ok(v)) => v,
                _ => {
                    let msg = format!("invalid JSON: {}", strip_pos(&e.to_string()));
                    return Err(LoadError::at(file, e.line() as u32, e.column() as u32, msg));
                }
            }
        }
    };
    let Value::Object(obj) = root else {
        return Err(LoadError::at(
            file,
            1,
            1,
            "expected a JSON object with `name` and `tool_transitions`",
        ));
    };
    const KNOWN: &[&str] = &[
        "name",
        "description",
        "tool_transitions",
        "state_constraints",
        "state_readers",
        "progress_layers",
        "start",
        "neutral_tools",
        "enforcement",
        "off_path",
        "fail",
        "deadlock",
        "stop",
        "aliases",
        "version",
        "$schema",
    ];
    for k in obj.keys() {
        if !KNOWN.contains(&k.as_str()) {
            return Err(cx.err(
                &[k],
                format!("unknown key `{k}`: expected one of {}", KNOWN.join(", ")),
            ));
        }
    }
    // A sketch without a name is named after its file.
    let stem = std::path::Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("sequence")
        .to_string();
    let name = match obj.get("name") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(_) => return Err(cx.err(&["name"], "`name` must be a non-empty string")),
        None => stem,
    };
    let constraints = obj
        .get("state_constraints")
        .map(|v| as_object(&cx, v, "state_constraints"))
        .transpose()?;
    let empty = Map::new();
    let transitions = match obj.get("tool_transitions") {
        Some(Value::Object(m)) if !m.is_empty() => m,
        Some(_) => {
            return Err(cx.err(
                &["tool_transitions"],
                "`tool_transitions` must be a non-empty object of tool → { next_allowed: [...] }",
            ));
        }
        None if constraints.is_some() => &empty,
        None => {
            return Err(LoadError::at(
                file,
                1,
                1,
                "missing `tool_transitions`: expected an object of tool → { next_allowed: [...] }",
            ));
        }
    };
    let mut b = ChartBuilder::new(&name, Dialect::MasterJson, constraints.is_some());
    b.chart_mut().description = obj
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    settings(&cx, &obj, &mut b)?;

    let has_railroad = !transitions.is_empty();
    let railroad_parent = if constraints.is_some() && has_railroad {
        let r = b
            .add_state(
                StateId::ROOT,
                "railroad",
                StateKind::Compound {
                    initial: StateId::ROOT,
                },
            )
            .map_err(|e| cx.err(&["tool_transitions"], e.to_string()))?;
        b.state_mut(r).label = "railroad".into();
        r
    } else {
        StateId::ROOT
    };
    let tools = if has_railroad {
        railroad(&cx, transitions, &obj, &mut b, railroad_parent)?
    } else {
        BTreeMap::new()
    };
    readers(&cx, &obj, &mut b)?;
    if let Some(cons) = constraints {
        context(&cx, cons, &mut b)?;
    }
    layers(&cx, &obj, &mut b, &tools)?;
    let chart = b
        .finish()
        .map_err(|e| LoadError::at(file, 1, 1, e.to_string()))?;
    Ok(Loaded {
        chart,
        source: file.to_string(),
        warnings: Vec::new(),
    })
}

fn strip_pos(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

fn as_object<'v>(cx: &Ctx, v: &'v Value, key: &str) -> Result<&'v Map<String, Value>, LoadError> {
    v.as_object()
        .ok_or_else(|| cx.err(&[key], format!("`{key}` must be an object")))
}

fn settings(cx: &Ctx, obj: &Map<String, Value>, b: &mut ChartBuilder) -> Result<(), LoadError> {
    let s = &mut b.chart_mut().settings;
    if let Some(v) = obj.get("enforcement") {
        s.enforcement = match v.as_str() {
            Some("enforce") => Enforcement::Enforce,
            Some("advise") => Enforcement::Advise,
            Some("observe") => Enforcement::Observe,
            _ => {
                return Err(cx.err(
                    &["enforcement"],
                    "`enforcement` must be \"enforce\", \"advise\" or \"observe\"",
                ));
            }
        };
    }
    if let Some(v) = obj.get("off_path") {
        s.off_path = match v.as_str() {
            Some("observe") => OffPathPolicy::Observe,
            Some("warn") => OffPathPolicy::Warn,
            Some("deny") => OffPathPolicy::Deny,
            _ => {
                return Err(cx.err(
                    &["off_path"],
                    "`off_path` must be \"observe\", \"warn\" or \"deny\"",
                ));
            }
        };
    }
    if let Some(v) = obj.get("fail") {
        s.fail = match v.as_str() {
            Some("open") => FailMode::Open,
            Some("closed") => FailMode::Closed,
            _ => return Err(cx.err(&["fail"], "`fail` must be \"open\" or \"closed\"")),
        };
    }
    if let Some(v) = obj.get("deadlock") {
        let d = as_object(cx, v, "deadlock")?;
        if let Some(l) = d.get("limit") {
            s.deadlock.limit = l.as_u64().filter(|n| *n <= 1000).ok_or_else(|| {
                cx.err(
                    &["deadlock", "limit"],
                    "`deadlock.limit` must be a whole number ≤ 1000",
                )
            })? as u32;
        }
        if let Some(f) = d.get("fallback") {
            s.deadlock.fallback = match f.as_str() {
                Some("deny") => DeadlockFallback::Deny,
                Some("ask") => DeadlockFallback::Ask,
                Some("advise") => DeadlockFallback::Advise,
                _ => {
                    return Err(cx.err(
                        &["deadlock", "fallback"],
                        "`deadlock.fallback` must be \"deny\", \"ask\" or \"advise\"",
                    ));
                }
            };
        }
    }
    if let Some(v) = obj.get("stop") {
        let d = as_object(cx, v, "stop")?;
        s.stop.block_until_final = d
            .get("block_until_final")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        s.stop.max_blocks = d
            .get("max_blocks")
            .and_then(Value::as_u64)
            .unwrap_or(2)
            .min(100) as u32;
    }
    if let Some(v) = obj.get("neutral_tools") {
        let list = v.as_array().ok_or_else(|| {
            cx.err(
                &["neutral_tools"],
                "`neutral_tools` must be an array of tool patterns",
            )
        })?;
        for item in list {
            let p = item.as_str().ok_or_else(|| {
                cx.err(
                    &["neutral_tools"],
                    "`neutral_tools` entries must be strings",
                )
            })?;
            let pat =
                Pattern::parse(p).map_err(|e| cx.err(&["neutral_tools", p], e.to_string()))?;
            b.chart_mut().neutral.push(pat);
        }
    }
    if let Some(v) = obj.get("aliases") {
        for (alias, actual) in as_object(cx, v, "aliases")? {
            let actual = actual.as_str().ok_or_else(|| {
                cx.err(&["aliases", alias], "alias values must be MCP server names")
            })?;
            b.chart_mut()
                .aliases
                .insert(alias.clone(), actual.to_string());
        }
    }
    Ok(())
}

/// One entry of `next_allowed`: a tool name, or `{ "tool": …, "input": { "/pointer": "glob" } }`.
fn next_entry(cx: &Ctx, from: &str, v: &Value) -> Result<(String, Pattern), LoadError> {
    match v {
        Value::String(s) => Ok((s.clone(), tool_pattern(cx, from, s)?)),
        Value::Object(o) => {
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
    Pattern::parse(name).map_err(|e| cx.err(&["tool_transitions", from, name], e.to_string()))
}

/// Build the railroad: a `start` state, one state per tool ("this tool was just used"), one
/// transition per `next_allowed` entry. Returns tool name → state.
fn railroad(
    cx: &Ctx,
    transitions: &Map<String, Value>,
    obj: &Map<String, Value>,
    b: &mut ChartBuilder,
    parent: StateId,
) -> Result<BTreeMap<String, StateId>, LoadError> {
    // Collect edges first: tools named only in next_allowed are states too.
    let mut order: Vec<String> = Vec::new();
    // Membership by set: a long chain must load in linear time.
    let mut seen: HashSet<String> = HashSet::new();
    let mut edges: Vec<(String, String, Pattern)> = Vec::new();
    let mut descriptions: BTreeMap<String, String> = BTreeMap::new();
    // Extension: tools the agent may also use while the railroad is at this step (tier 1's
    // own allowance; a constraint still narrows it).
    let mut also: BTreeMap<String, Vec<Pattern>> = BTreeMap::new();
    for (tool, spec) in transitions {
        if seen.insert(tool.clone()) {
            order.push(tool.clone());
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
            also.insert(tool.clone(), pats);
        }
        if let Some(d) = spec.get("description").and_then(Value::as_str) {
            descriptions.insert(tool.clone(), d.to_string());
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
        for n in &next {
            let (name, pat) = next_entry(cx, tool, n)?;
            if seen.insert(name.clone()) {
                order.push(name.clone());
            }
            edges.push((tool.clone(), name, pat));
        }
    }
    // A tool's own key; for tools only named in `next_allowed`, their first mention (`order`
    // is the order of first mentions, so one forward scan finds them all).
    let mut spans = key_spans(cx.text, "\"tool_transitions\"", transitions.keys(), true);
    for (tool, span) in key_spans(cx.text, "\"tool_transitions\"", order.iter(), false) {
        spans.entry(tool).or_insert(span);
    }
    let start = b
        .add_state(parent, "start", StateKind::Atomic)
        .map_err(|e| cx.err(&["tool_transitions"], e.to_string()))?;
    b.state_mut(start).weight = 0.0;
    b.state_mut(start).label = "start".into();
    b.set_initial(parent, start);
    let mut ids = BTreeMap::new();
    let sources: HashSet<&str> = edges.iter().map(|(f, _, _)| f.as_str()).collect();
    for tool in &order {
        let has_next = sources.contains(tool.as_str());
        let kind = if has_next {
            StateKind::Atomic
        } else {
            StateKind::Final {
                outcome: Outcome::Success,
                message: None,
                recovery: None,
            }
        };
        let id = b
            .add_state(parent, tool, kind)
            .map_err(|e| cx.err(&["tool_transitions", tool], e.to_string()))?;
        let st = b.state_mut(id);
        st.activity = Some(Pattern::exact_tool(tool));
        st.complete_on_entry = true;
        st.weight = 1.0;
        if let Some(d) = descriptions.get(tool) {
            st.notes.push(d.clone());
        }
        // An allow list is a filter, so the step's own next calls are on it too.
        if let Some(extra) = also.remove(tool) {
            st.policy.allow = extra;
            st.policy.allow.extend(
                edges
                    .iter()
                    .filter(|(f, _, _)| f == tool)
                    .map(|(_, _, p)| p.clone()),
            );
        }
        st.span = spans.get(tool).copied();
        ids.insert(tool.clone(), id);
    }
    // Entry: the explicit `start` list, else tools nothing leads to.
    let starts: Vec<String> = match obj.get("start") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(_) => {
            return Err(cx.err(
                &["start"],
                "`start` must be a tool name or a list of tool names",
            ));
        }
        None => {
            let led_to: HashSet<&str> = edges
                .iter()
                .filter(|(f, to, _)| f != to)
                .map(|(_, to, _)| to.as_str())
                .collect();
            let s: Vec<String> = order
                .iter()
                .filter(|t| !led_to.contains(t.as_str()))
                .cloned()
                .collect();
            if s.is_empty() {
                order.first().cloned().into_iter().collect()
            } else {
                s
            }
        }
    };
    for s in &starts {
        let Some(&target) = ids.get(s) else {
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
        let span = spans.get(&from).copied();
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

fn readers(cx: &Ctx, obj: &Map<String, Value>, b: &mut ChartBuilder) -> Result<(), LoadError> {
    let Some(v) = obj.get("state_readers") else {
        return Ok(());
    };
    for (name, spec) in as_object(cx, v, "state_readers")? {
        let kind = match spec {
            Value::String(s) => parse_reader_string(s).ok_or_else(|| {
                cx.err(&["state_readers", name], format!(
                    "reader `{name}`: unknown check `{s}`: expected a preset (check_waypoint_temp_files, check_starlog_registries, check_active_flight_configs) or json:GLOB#POINTER, exists:PATH, count:GLOB, age:GLOB"
                ))
            })?,
            Value::Object(o) => parse_reader_object(o).map_err(|m| cx.err(&["state_readers", name], format!("reader `{name}`: {m}")))?,
            _ => return Err(cx.err(&["state_readers", name], format!("reader `{name}` must be a string or an object"))),
        };
        let description = spec
            .get("description")
            .and_then(Value::as_str)
            .map(String::from);
        b.chart_mut().readers.push(ReaderDecl {
            name: name.clone(),
            kind,
            description,
        });
    }
    Ok(())
}

fn parse_reader_string(s: &str) -> Option<ReaderKind> {
    if let Some(p) = preset_reader(s) {
        return Some(p);
    }
    let (kind, rest) = s.split_once(':')?;
    Some(match kind {
        "json" => {
            let (path, ptr) = rest.split_once('#').unwrap_or((rest, ""));
            ReaderKind::Json {
                path: path.into(),
                pointer: ptr.into(),
            }
        }
        "exists" => ReaderKind::FileExists { path: rest.into() },
        "count" => ReaderKind::Count { path: rest.into() },
        "age" => ReaderKind::Age { path: rest.into() },
        _ => return None,
    })
}

fn parse_reader_object(o: &Map<String, Value>) -> Result<ReaderKind, String> {
    let path = o
        .get("path")
        .and_then(Value::as_str)
        .ok_or("needs a `path` string")?
        .to_string();
    match o.get("kind").and_then(Value::as_str) {
        Some("json") => Ok(ReaderKind::Json {
            path,
            pointer: o
                .get("pointer")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        }),
        Some("file_exists") | Some("exists") => Ok(ReaderKind::FileExists { path }),
        Some("count") => Ok(ReaderKind::Count { path }),
        Some("age") => Ok(ReaderKind::Age { path }),
        _ => Err("`kind` must be json, file_exists, count or age".into()),
    }
}

/// The context region: `unknown` plus one state per constraint, moved by eventless transitions
/// on the readers. The first constraint (in file order) whose `when` holds is active.
fn context(cx: &Ctx, cons: &Map<String, Value>, b: &mut ChartBuilder) -> Result<(), LoadError> {
    let region = b
        .add_state(
            StateId::ROOT,
            "context",
            StateKind::Compound {
                initial: StateId::ROOT,
            },
        )
        .map_err(|e| cx.err(&["state_constraints"], e.to_string()))?;
    b.state_mut(region).label = "context".into();
    let unknown = b
        .add_state(region, "unknown", StateKind::Atomic)
        .map_err(|e| cx.err(&["state_constraints"], e.to_string()))?;
    b.state_mut(unknown).weight = 0.0;
    b.state_mut(unknown).label = "no constraint".into();
    b.set_initial(region, unknown);
    let mut states: Vec<(StateId, Option<Guard>)> = Vec::new();
    for (name, spec) in cons {
        let o = spec.as_object().ok_or_else(|| {
            cx.err(
                &["state_constraints", name],
                format!("constraint `{name}` must be an object"),
            )
        })?;
        for k in o.keys() {
            if ![
                "allowed_tools",
                "disallowed_tools",
                "when",
                "description",
                "enforcement",
            ]
            .contains(&k.as_str())
            {
                return Err(cx.err(&["state_constraints", name, k], format!("unknown key `{k}` in constraint `{name}`: expected allowed_tools, disallowed_tools, when, description or enforcement")));
            }
        }
        let id = b
            .add_state(region, name, StateKind::Atomic)
            .map_err(|e| cx.err(&["state_constraints", name], e.to_string()))?;
        let (line, col) = find_path(cx.text, &["\"state_constraints\"", &format!("\"{name}\"")]);
        b.state_mut(id).span = Some(crate::engine::ir::Span::at(line, col));
        b.state_mut(id).weight = 0.0;
        for (key, deny) in [("allowed_tools", false), ("disallowed_tools", true)] {
            if let Some(list) = o.get(key) {
                let list = list.as_array().ok_or_else(|| {
                    cx.err(
                        &["state_constraints", name, key],
                        format!("`{key}` must be an array"),
                    )
                })?;
                for item in list {
                    let s = item.as_str().ok_or_else(|| {
                        cx.err(
                            &["state_constraints", name, key],
                            format!("`{key}` entries must be strings"),
                        )
                    })?;
                    let p = Pattern::parse(s)
                        .map_err(|e| cx.err(&["state_constraints", name, s], e.to_string()))?;
                    let policy = &mut b.state_mut(id).policy;
                    if deny {
                        policy.deny.push(p)
                    } else {
                        policy.allow.push(p)
                    }
                }
            }
        }
        if let Some(d) = o.get("description").and_then(Value::as_str) {
            b.state_mut(id).notes.push(d.to_string());
        }
        if let Some(e) = o.get("enforcement") {
            b.state_mut(id).enforcement = Some(match e.as_str() {
                Some("enforce") => Enforcement::Enforce,
                Some("advise") => Enforcement::Advise,
                Some("observe") => Enforcement::Observe,
                _ => {
                    return Err(cx.err(
                        &["state_constraints", name, "enforcement"],
                        "`enforcement` must be enforce, advise or observe",
                    ));
                }
            });
        }
        let when = match o.get("when") {
            Some(w) => Some(parse_guard(w, b).map_err(|m| {
                cx.err(
                    &["state_constraints", name, "when"],
                    format!("`when` of `{name}`: {m}"),
                )
            })?),
            None => None,
        };
        states.push((id, when));
    }
    // Eventless moves: from every state of the region to the winning constraint.
    let all_sources: Vec<StateId> = std::iter::once(unknown)
        .chain(states.iter().map(|(s, _)| *s))
        .collect();
    for &src in &all_sources {
        let mut earlier: Vec<Guard> = Vec::new();
        for (target, when) in &states {
            let Some(w) = when else { continue };
            if *target != src {
                let mut all = vec![w.clone()];
                all.extend(earlier.iter().map(|g| Guard::Not {
                    guard: Box::new(g.clone()),
                }));
                b.add_transition(Transition {
                    source: src,
                    targets: vec![*target],
                    trigger: Trigger::Always,
                    guard: Some(Guard::All { of: all }),
                    actions: Vec::new(),
                    label: None,
                    span: None,
                });
            }
            earlier.push(w.clone());
        }
        if src != unknown && !earlier.is_empty() {
            b.add_transition(Transition {
                source: src,
                targets: vec![unknown],
                trigger: Trigger::Always,
                guard: Some(Guard::Not {
                    guard: Box::new(Guard::Any {
                        of: earlier.clone(),
                    }),
                }),
                actions: Vec::new(),
                label: None,
                span: None,
            });
        }
    }
    Ok(())
}

/// Guards in JSON: `{ "reader": "x", "op": "==", "value": v }`, `{ "all": [...] }`,
/// `{ "any": [...] }`, `{ "not": g }`, `{ "flag": "f" }`, `{ "file_exists": "PATH" }`,
/// `{ "var": "x", "op": ">=", "value": v }`.
pub fn parse_guard(v: &Value, b: &mut ChartBuilder) -> Result<Guard, String> {
    let o = v.as_object().ok_or("a guard must be an object")?;
    if let Some(list) = o.get("all").or_else(|| o.get("any")) {
        let items = list
            .as_array()
            .ok_or("`all`/`any` must be an array of guards")?;
        let of = items
            .iter()
            .map(|g| parse_guard(g, b))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(if o.contains_key("all") {
            Guard::All { of }
        } else {
            Guard::Any { of }
        });
    }
    if let Some(g) = o.get("not") {
        return Ok(Guard::Not {
            guard: Box::new(parse_guard(g, b)?),
        });
    }
    if let Some(f) = o.get("flag") {
        return Ok(Guard::Flag {
            name: f.as_str().ok_or("`flag` must be a string")?.into(),
        });
    }
    if let Some(p) = o.get("file_exists") {
        let path = p.as_str().ok_or("`file_exists` must be a path string")?;
        let name = format!("file_exists:{path}");
        if b.chart().reader(&name).is_none() {
            b.chart_mut().readers.push(ReaderDecl {
                name: name.clone(),
                kind: ReaderKind::FileExists { path: path.into() },
                description: None,
            });
        }
        return Ok(Guard::FileExists { reader: name });
    }
    let op = match o.get("op").and_then(Value::as_str).unwrap_or("==") {
        "==" | "eq" => CmpOp::Eq,
        "!=" | "ne" => CmpOp::Ne,
        "<" | "lt" => CmpOp::Lt,
        "<=" | "le" => CmpOp::Le,
        ">" | "gt" => CmpOp::Gt,
        ">=" | "ge" => CmpOp::Ge,
        "contains" => CmpOp::Contains,
        other => {
            return Err(format!(
                "unknown operator `{other}`: expected ==, !=, <, <=, >, >= or contains"
            ));
        }
    };
    let value = o.get("value").cloned().unwrap_or(Value::Bool(true));
    if let Some(r) = o.get("reader") {
        return Ok(Guard::Reader {
            name: r.as_str().ok_or("`reader` must be a string")?.into(),
            op,
            value,
        });
    }
    if let Some(r) = o.get("var") {
        return Ok(Guard::Var {
            name: r.as_str().ok_or("`var` must be a string")?.into(),
            op,
            value,
        });
    }
    Err("expected one of all, any, not, flag, file_exists, reader, var".into())
}

/// `progress_layers`: `{ "base": [0, 50] }` or `{ "base": { "range": [0, 50], "steps": [...] } }`.
/// Tools no layer lists fall into the layer of the step before them, or, when no layer lists
/// steps at all, are spread over the layers in path order.
fn layers(
    cx: &Ctx,
    obj: &Map<String, Value>,
    b: &mut ChartBuilder,
    tools: &BTreeMap<String, StateId>,
) -> Result<(), LoadError> {
    let Some(v) = obj.get("progress_layers") else {
        return Ok(());
    };
    let mut bands: Vec<Band> = Vec::new();
    let layer_map = as_object(cx, v, "progress_layers")?;
    let spans = key_spans(cx.text, "\"progress_layers\"", layer_map.keys(), true);
    for (name, spec) in layer_map {
        let (range, steps) = match spec {
            Value::Array(_) => (spec, None),
            Value::Object(o) => (
                o.get("range").ok_or_else(|| {
                    cx.err(
                        &["progress_layers", name],
                        format!("layer `{name}` needs `range: [lo, hi]`"),
                    )
                })?,
                o.get("steps"),
            ),
            _ => {
                return Err(cx.err(
                    &["progress_layers", name],
                    format!("layer `{name}` must be [lo, hi] or {{ range, steps }}"),
                ));
            }
        };
        let nums: Vec<f64> = range
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        if nums.len() != 2 {
            return Err(cx.err(
                &["progress_layers", name],
                format!("layer `{name}`: expected a range of two numbers [lo, hi]"),
            ));
        }
        let mut states = Vec::new();
        if let Some(steps) = steps {
            let list = steps.as_array().ok_or_else(|| {
                cx.err(
                    &["progress_layers", name, "steps"],
                    "`steps` must be an array of tool names",
                )
            })?;
            for s in list {
                let s = s.as_str().unwrap_or_default();
                let id = tools.get(s).ok_or_else(|| {
                    cx.err(
                        &["progress_layers", name, s],
                        format!("layer `{name}` lists `{s}`, which is not in tool_transitions"),
                    )
                })?;
                states.push(*id);
            }
        }
        bands.push(Band {
            name: name.clone(),
            lo: nums[0],
            hi: nums[1],
            states,
            span: spans.get(name).copied(),
        });
    }
    assign_unlisted(b, &mut bands, tools);
    for band in bands {
        b.add_band(band);
    }
    let _ = line_col_of_offset;
    Ok(())
}

fn assign_unlisted(b: &ChartBuilder, bands: &mut [Band], tools: &BTreeMap<String, StateId>) {
    if bands.is_empty() {
        return;
    }
    let chart = b.chart();
    // Path order: breadth-first from the start state over the railroad transitions.
    let mut order: Vec<StateId> = Vec::new();
    let start = chart
        .states
        .iter()
        .find(|s| s.name == "start")
        .map(|s| s.id);
    let mut queue: std::collections::VecDeque<StateId> = start.into_iter().collect();
    while let Some(u) = queue.pop_front() {
        for t in chart.transitions.iter().filter(|t| t.source == u) {
            for &x in &t.targets {
                if !order.contains(&x) && tools.values().any(|v| *v == x) {
                    order.push(x);
                    queue.push_back(x);
                }
            }
        }
    }
    for id in tools.values() {
        if !order.contains(id) {
            order.push(*id);
        }
    }
    let listed_any = bands.iter().any(|b| !b.states.is_empty());
    if !listed_any {
        // Spread in path order, proportionally to each band's width.
        let total: f64 = bands
            .iter()
            .map(|b| (b.hi - b.lo).max(0.0))
            .sum::<f64>()
            .max(1e-9);
        let n = order.len();
        let mut i = 0usize;
        let mut acc = 0.0;
        let count = bands.len();
        for (bi, band) in bands.iter_mut().enumerate() {
            acc += (band.hi - band.lo).max(0.0) / total;
            let end = if bi + 1 == count {
                n
            } else {
                ((acc * n as f64).round() as usize).min(n)
            };
            while i < end {
                band.states.push(order[i]);
                i += 1;
            }
        }
        return;
    }
    let unlisted: Vec<StateId> = order
        .iter()
        .copied()
        .filter(|id| !bands.iter().any(|b| b.states.contains(id)))
        .collect();
    let open: Vec<usize> = (0..bands.len())
        .filter(|&i| bands[i].states.is_empty())
        .collect();
    if !open.is_empty() {
        // Tools no layer lists fill the layers that list none, in path order.
        let total: f64 = open
            .iter()
            .map(|&i| (bands[i].hi - bands[i].lo).max(0.0))
            .sum::<f64>()
            .max(1e-9);
        let n = unlisted.len();
        let (mut i, mut acc) = (0usize, 0.0);
        for (k, &bi) in open.iter().enumerate() {
            acc += (bands[bi].hi - bands[bi].lo).max(0.0) / total;
            let end = if k + 1 == open.len() {
                n
            } else {
                ((acc * n as f64).round() as usize).min(n)
            };
            while i < end {
                bands[bi].states.push(unlisted[i]);
                i += 1;
            }
        }
        return;
    }
    // Every layer lists steps: an unlisted tool joins the layer of the step before it.
    let mut current: Option<usize> = None;
    for id in order {
        if let Some(bi) = bands.iter().position(|b| b.states.contains(&id)) {
            current = Some(bi);
        } else if let Some(bi) = current.or(Some(0)) {
            bands[bi].states.push(id);
        }
    }
}

/// Where each key of an object section sits, found in one forward scan (keys appear in file
/// order), so large files cost linear time.
fn key_spans<'k>(
    text: &str,
    section: &str,
    keys: impl Iterator<Item = &'k String>,
    keys_only: bool,
) -> BTreeMap<String, crate::engine::ir::Span> {
    let mut index = LineIndex::new(text);
    let mut out = BTreeMap::new();
    let mut from = text.find(section).map(|i| i + section.len()).unwrap_or(0);
    // Keys spelled with escapes are not found as written; a scan budget keeps hostile files
    // from making this quadratic (positions are then left out, nothing else changes).
    let mut budget = text.len().saturating_mul(8);
    for k in keys {
        let quoted = format!("\"{k}\"");
        let mut at = from;
        // With `keys_only`, a mention as a value (`"next_allowed": ["x"]`) is passed over.
        while let Some(i) = text[at..].find(&quoted) {
            budget = budget.saturating_sub(i + quoted.len());
            let end = at + i + quoted.len();
            let is_key = text[end..].trim_start().starts_with(':');
            if !keys_only || is_key {
                let (line, col) = index.line_col(at + i);
                out.insert(k.clone(), crate::engine::ir::Span::at(line, col));
                from = end;
                break;
            }
            at = end;
        }
        if !out.contains_key(k.as_str()) {
            budget = budget.saturating_sub(text.len() - at);
        }
        if budget == 0 {
            break;
        }
    }
    out
}
