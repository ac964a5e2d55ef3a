//! Tier 2: `state_constraints` become a parallel context region — `unknown` plus one state per
//! constraint — moved by eventless transitions on the readers.

use serde_json::{Map, Value};

use super::Ctx;
use super::guard::parse_guard;
use crate::dialects::locate::{LoadError, find_path};
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{Enforcement, Guard, Span, StateId, StateKind, Transition, Trigger};

/// The context region: `unknown` plus one state per constraint, moved by eventless transitions
/// on the readers. The first constraint (in file order) whose `when` holds is active.
pub(super) fn context(
    cx: &Ctx,
    cons: &Map<String, Value>,
    b: &mut ChartBuilder,
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
            Some(w) => Some(parse_guard(w, b).map_err(|m| {
                cx.err(
                    &["state_constraints", name, "when"],
                    format!("`when` of `{name}`: {m}"),
                )
            })?),
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
