//! Tier 2: `state_constraints` become a parallel context region — `unknown` plus one state per
//! constraint — moved by eventless transitions on the readers.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::Ctx;
use super::guard::parse_guard;
use crate::dialects::locate::{LoadError, find_path};
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{Enforcement, Guard, Span, StateId, StateKind, Transition, Trigger};

/// What a guard's `in` may name: a tool of the railroad (its step), or a layer (every step in
/// it); a tool's name wins over a layer's.
pub(super) struct Places<'a> {
    pub tools: &'a BTreeMap<String, StateId>,
    pub layers: BTreeMap<String, Vec<StateId>>,
}

impl Places<'_> {
    fn get(&self, name: &str) -> Option<Vec<StateId>> {
        match self.tools.get(name) {
            Some(id) => Some(vec![*id]),
            None => self.layers.get(name).cloned(),
        }
    }

    fn is_layer(&self, name: &str) -> bool {
        !self.tools.contains_key(name) && self.layers.contains_key(name)
    }
}

/// The context region: `unknown` plus one state per constraint, moved by eventless transitions
/// on the readers. The first constraint (in file order) whose `when` holds is active.
pub(super) fn context(
    cx: &Ctx,
    cons: &Map<String, Value>,
    b: &mut ChartBuilder,
    places: &Places,
) -> Result<(), LoadError> {
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
    let mut states: Vec<(StateId, Option<Guard>, Option<Span>)> = Vec::new();
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
        b.state_mut(id).span = Some(Span::at(line, col));
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
                    let p = super::tool_pattern(cx, &["state_constraints", name, key], s)?;
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
            Some(w) => {
                let g = parse_guard(w, b, &|n: &str| places.get(n)).map_err(|e| {
                    let mut at = vec!["state_constraints", name.as_str(), "when"];
                    at.extend(e.path.iter().map(String::as_str));
                    cx.err(&at, format!("`when` of `{name}`: {}", e.message))
                })?;
                // What a refusal says: when this constraint applies, so what lifts it.
                b.state_mut(id).policy.recovery = Some(lift_text(name, w, places));
                Some(g)
            }
            None => None,
        };
        // Lints of the guards built from `when` point at it.
        let at = o
            .contains_key("when")
            .then(|| {
                find_path(
                    cx.text,
                    &["\"state_constraints\"", &format!("\"{name}\""), "\"when\""],
                )
            })
            .map(|(line, col)| Span::at(line, col));
        states.push((id, when, at));
    }
    // Eventless moves: from every state of the region to the winning constraint.
    let all_sources: Vec<StateId> = std::iter::once(unknown)
        .chain(states.iter().map(|(s, _, _)| *s))
        .collect();
    for &src in &all_sources {
        let mut earlier: Vec<Guard> = Vec::new();
        for (target, when, at) in &states {
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
                    span: *at,
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
                span: b.state(src).span,
            });
        }
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
