//! Tier 2: `state_constraints` become a parallel context region — one `off`/`on` region per
//! constraint — switched by eventless transitions on the readers.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::Ctx;
use super::guard::parse_guard;
use crate::dialects::locate::{LoadError, find_path};
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{Enforcement, Guard, Span, StateId, StateKind, Transition, Trigger};
use crate::engine::tool_name::canonical_tool_name;

/// What a guard's `in` may name: a tool of the railroad (its step), or a layer (every step in
/// it); a tool's name wins over a layer's.
pub(super) struct Places<'a> {
    pub tools: &'a BTreeMap<String, StateId>,
    pub layers: BTreeMap<String, Vec<StateId>>,
}

impl Places<'_> {
    fn get(&self, name: &str) -> Option<Vec<StateId>> {
        match self.tools.get(&canonical_tool_name(name)) {
            Some(id) => Some(vec![*id]),
            None => self.layers.get(name).cloned(),
        }
    }

    fn is_layer(&self, name: &str) -> bool {
        !self.tools.contains_key(&canonical_tool_name(name)) && self.layers.contains_key(name)
    }
}

/// The context region: one region per constraint, each `off` until the constraint's `when`
/// holds and `on` while it does, so every constraint that holds applies at once and their
/// lists intersect (tier 1 ∩ tier 2, however many constraints hold).
pub(super) fn context(
    cx: &Ctx,
    cons: &Map<String, Value>,
    b: &mut ChartBuilder,
    places: &Places,
) -> Result<(), LoadError> {
    // With no constraint at all, a plain state: a parallel state needs regions.
    let kind = if cons.is_empty() {
        StateKind::Atomic
    } else {
        StateKind::Parallel
    };
    let region = b
        .add_state(StateId::ROOT, "context", kind)
        .map_err(|e| cx.err(&["state_constraints"], e.to_string()))?;
    b.state_mut(region).label = "context".into();
    b.state_mut(region).weight = 0.0;
    for (name, spec) in cons {
        constraint(cx, b, region, name, spec, places)?;
    }
    Ok(())
}

/// One constraint's region: `off` until its `when` holds, `on` (the constraint, with its
/// lists) while it does.
fn constraint(
    cx: &Ctx,
    b: &mut ChartBuilder,
    region: StateId,
    name: &str,
    spec: &Value,
    places: &Places,
) -> Result<(), LoadError> {
    let o = spec.as_object().ok_or_else(|| {
        cx.err(
            &["state_constraints", name],
            format!("constraint `{name}` must be an object"),
        )
    })?;
    for k in o.keys() {
        if !KEYS.contains(&k.as_str()) {
            return Err(cx.err(&["state_constraints", name, k], format!("unknown key `{k}` in constraint `{name}`: expected allowed_tools, disallowed_tools, when, description or enforcement")));
        }
    }
    let (line, col) = find_path(cx.text, &["\"state_constraints\"", &format!("\"{name}\"")]);
    let span = Some(Span::at(line, col));
    let add = |b: &mut ChartBuilder, parent, local: &str, kind| {
        let id = b
            .add_state(parent, local, kind)
            .map_err(|e| cx.err(&["state_constraints", name], e.to_string()))?;
        let st = b.state_mut(id);
        st.weight = 0.0;
        st.span = span;
        Ok::<StateId, LoadError>(id)
    };
    let switch = add(
        b,
        region,
        name,
        StateKind::Compound {
            initial: StateId::ROOT,
        },
    )?;
    b.state_mut(switch).label = name.to_string();
    let off = add(b, switch, "off", StateKind::Atomic)?;
    // What the outline shows while the constraint's `when` fails (its id stays `off`).
    b.state_mut(off).label = "not in force".into();
    b.set_initial(switch, off);
    // The constraint itself: named as the file names it, where refusals quote it.
    let id = add(b, switch, "on", StateKind::Atomic)?;
    b.state_mut(id).label = name.to_string();
    tool_lists(cx, b, id, name, o)?;
    if let Some(d) = o.get("description").and_then(Value::as_str) {
        b.state_mut(id).notes.push(d.to_string());
    }
    if let Some(e) = o.get("enforcement") {
        b.state_mut(id).enforcement = Some(enforcement(cx, name, e)?);
    }
    // Without `when` the constraint never applies (seed 000's sketch says only what it
    // allows): it stays `off`.
    match o.get("when") {
        Some(w) => switch_on_when(cx, b, name, w, (off, id), places),
        None => Ok(()),
    }
}

/// The keys a constraint takes.
const KEYS: &[&str] = &[
    "allowed_tools",
    "disallowed_tools",
    "when",
    "description",
    "enforcement",
];

/// `allowed_tools` and `disallowed_tools`: the constraint's policy.
fn tool_lists(
    cx: &Ctx,
    b: &mut ChartBuilder,
    id: StateId,
    name: &str,
    o: &Map<String, Value>,
) -> Result<(), LoadError> {
    for (key, deny) in [("allowed_tools", false), ("disallowed_tools", true)] {
        let Some(list) = o.get(key) else { continue };
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
            let p = super::tool_pattern(cx, &["state_constraints", name, key], s)?;
            let policy = &mut b.state_mut(id).policy;
            if deny {
                policy.deny.push(p)
            } else {
                policy.allow.push(p)
            }
        }
    }
    Ok(())
}

fn enforcement(cx: &Ctx, name: &str, e: &Value) -> Result<Enforcement, LoadError> {
    match e.as_str() {
        Some("enforce") => Ok(Enforcement::Enforce),
        Some("advise") => Ok(Enforcement::Advise),
        Some("observe") => Ok(Enforcement::Observe),
        _ => Err(cx.err(
            &["state_constraints", name, "enforcement"],
            "`enforcement` must be enforce, advise or observe",
        )),
    }
}

/// `off` → `on` when `when` holds, back when it no longer does; the refusal's recovery says
/// what lifts the constraint.
fn switch_on_when(
    cx: &Ctx,
    b: &mut ChartBuilder,
    name: &str,
    w: &Value,
    (off, on): (StateId, StateId),
    places: &Places,
) -> Result<(), LoadError> {
    let when = parse_guard(w, b, &|n: &str| places.get(n)).map_err(|e| {
        let mut at = vec!["state_constraints", name, "when"];
        at.extend(e.path.iter().map(String::as_str));
        cx.err(&at, format!("`when` of `{name}`: {}", e.message))
    })?;
    // What a refusal says: when this constraint applies, so what lifts it.
    b.state_mut(on).policy.recovery = Some(lift_text(name, w, places));
    // Lints of the guards built from `when` point at it.
    let (line, col) = find_path(
        cx.text,
        &["\"state_constraints\"", &format!("\"{name}\""), "\"when\""],
    );
    let at = Some(Span::at(line, col));
    let unless = Guard::Not {
        guard: Box::new(when.clone()),
    };
    for (source, target, guard) in [(off, on, when), (on, off, unless)] {
        b.add_transition(Transition {
            source,
            targets: vec![target],
            trigger: Trigger::Always,
            guard: Some(guard),
            actions: Vec::new(),
            label: None,
            span: at,
        });
    }
    Ok(())
}

/// "`name` applies while …; it lifts when that no longer holds", with each reader's value now
/// (`{reader}` is filled in from the sampled facts when the text is shown).
fn lift_text(name: &str, when: &Value, places: &Places) -> String {
    let mut readers = Vec::new();
    let cond = describe(when, places, &mut readers);
    let now = if readers.is_empty() {
        String::new()
    } else {
        let parts: Vec<String> = readers.iter().map(|r| format!("{r} is {{{r}}}")).collect();
        format!(" (now {})", parts.join(", "))
    };
    format!("\"{name}\" applies while {cond}{now}; it lifts when that no longer holds.")
}

/// A JSON guard in words, collecting the readers it reads.
fn describe(g: &Value, places: &Places, readers: &mut Vec<String>) -> String {
    let Some(o) = g.as_object() else {
        return g.to_string();
    };
    let op = || o.get("op").and_then(Value::as_str).unwrap_or("==");
    let value = || o.get("value").map_or("true".to_string(), Value::to_string);
    let text = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let list = |k: &str, readers: &mut Vec<String>| -> Vec<String> {
        o.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|g| {
                        let d = describe(g, places, readers);
                        let nested = g.get("all").or_else(|| g.get("any")).is_some();
                        if nested { format!("({d})") } else { d }
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    if o.contains_key("all") {
        list("all", readers).join(" and ")
    } else if o.contains_key("any") {
        list("any", readers).join(" or ")
    } else if let Some(inner) = o.get("not") {
        format!("not ({})", describe(inner, places, readers))
    } else if o.contains_key("reader") {
        let r = text("reader");
        if !readers.contains(&r) {
            readers.push(r.clone());
        }
        format!("{r} {} {}", op(), value())
    } else if o.contains_key("var") {
        format!("{} {} {}", text("var"), op(), value())
    } else if o.contains_key("flag") {
        format!("flag {} is set", text("flag"))
    } else if o.contains_key("file_exists") {
        format!("{} exists", text("file_exists"))
    } else if o.contains_key("in") {
        let n = text("in");
        if places.is_layer(&n) {
            format!("the railroad is in layer {n}")
        } else {
            format!("the railroad is at {n}")
        }
    } else if o.contains_key("input") {
        match o.get("value") {
            Some(v) => format!("the call's input {} is {v}", text("input")),
            None => format!("the call's input has {}", text("input")),
        }
    } else {
        g.to_string()
    }
}
