//! `[[bind]] … return = true`: a side trip. Seed 004 runs some states "parallel to the current
//! state" (`/hope:panel`, `/hope:summon`, soul on every turn) and draws them as top-level
//! states; the IR has no history states, so the manifest compiles the return into plain data:
//!
//! - in every state the session can rest in (reachable atomic states and ends of composites,
//!   under `from`, outside the trip's top-level state `T`), the event enters `enter` and
//!   records where it came from in the variable `<T>_return`;
//! - once `T` reaches its `[*]`, an eventless transition per recorded state goes back there
//!   and clears the variable (a history of the one state left, in guards and actions only).
//!
//! `return = "state"` goes on to that state instead of back (seed 004's consults from shape
//! and loop: the panel runs, then the step it served continues). Such a trip needs `from`, and
//! for each state it leaves the graph also gets the step as the hook sees it, `from` → `state`
//! on the trip's event: recovery and progress skip root transitions, and this keeps "call
//! hope:consult next" and the remaining steps right. At run time that transition's guard (in
//! the trip's end) cannot hold while the session is in `from`, so the trip takes the event.
//!
//! A trip entered otherwise (a drawn edge, a binding without `return`) leaves the variable
//! unset, so `T`'s own ways out apply as drawn; a trip left otherwise (a command elsewhere,
//! one of `T`'s own exits) clears it, so a later visit does not return to a stale state.

use std::collections::HashSet;

use serde_json::Value;
use toml::Spanned;

use super::assembly::Assembly;
use super::bindings::{parse_on, states_of};
use super::manifest::{BindToml, Cx, ReturnToml};
use crate::dialects::LoadError;
use crate::engine::Machine;
use crate::engine::ir::{Action, CmpOp, Floor, Guard, StateId, StateKind, Transition, Trigger};

/// The variable holding the state a trip into `top` returns to.
pub fn return_var(top_key: &str) -> String {
    format!("{top_key}_return")
}

pub(super) fn binding(cx: &Cx, b: &Spanned<BindToml>, a: &mut Assembly) -> Result<(), LoadError> {
    let bt = b.get_ref();
    let (Some(on), Some(enter)) = (&bt.on, &bt.enter) else {
        return Err(cx.at(
            b.span(),
            "`return = true` needs `on` (the event) and `enter` (where the trip starts)",
        ));
    };
    let (trigger, guard, actions) = parse_on(cx, bt, on, a)?;
    let target = a
        .resolve(enter.get_ref(), Some(0))
        .map_err(|e| cx.at(enter.span(), e))?;
    let top = top_level(a, target);
    let Some(end) = a.finals.get(&top).copied() else {
        return Err(cx.at(
            enter.span(),
            format!(
                "`return = true`: `{}` has no `[*]` to come back from",
                a.key(top)
            ),
        ));
    };
    let roots = match &bt.from {
        Some(f) => states_of(cx, f, a)?,
        None => vec![StateId::ROOT],
    };
    let then = match &bt.returns {
        Some(ReturnToml::To(key)) => {
            if bt.from.is_none() {
                return Err(cx.at(
                    b.span(),
                    format!("`return = \"{key}\"` needs `from`: the states the trip leaves"),
                ));
            }
            let id = a.resolve(key, Some(0)).map_err(|e| cx.at(b.span(), e))?;
            if a.b.chart().is_descendant_or_self(id, top) {
                return Err(cx.at(
                    b.span(),
                    format!("`return = \"{key}\"` must lead out of `{}`", a.key(top)),
                ));
            }
            Some(id)
        }
        _ => None,
    };
    let var = return_var(&a.key(top));
    // Only a state the session can reach can be left for a trip: trips from the others would
    // make them look reachable (the lint follows every return edge).
    let preview = a.b.preview().map_err(|e| cx.at(b.span(), e.to_string()))?;
    let m = Machine::new(preview);
    let reachable: HashSet<String> = m
        .reachable_atomic()
        .into_iter()
        .map(|id| m.chart.state(id).key.clone())
        .collect();
    let chart = a.b.chart();
    let sources: Vec<(StateId, String)> = chart
        .states
        .iter()
        .filter(|s| resting(&s.kind, s.parent))
        .filter(|s| !chart.is_descendant_or_self(s.id, top))
        .filter(|s| reachable.contains(&s.key))
        .filter(|s| roots.iter().any(|r| chart.is_descendant_or_self(s.id, *r)))
        .map(|s| (s.id, s.key.clone()))
        .collect();
    // Both halves hang on the root, guarded by where the session is: like a global command,
    // a side trip is no step of a path (recovery and progress skip root transitions), and a
    // state's own transitions on the same event win over it.
    for (source, key) in sources {
        // What the variable records: where the trip came from, and where it goes on to when
        // that is elsewhere (two trips from one state may end in different places).
        let mark = match then {
            Some(next) => format!("{key} → {}", a.key(next)),
            None => key.clone(),
        };
        let mut acts = actions.clone();
        acts.push(Action::SetVar {
            name: var.clone(),
            value: Value::String(mark.clone()),
        });
        // While the trip is away, progress stays where it left (it does not fall back to the
        // trip's own place in the pipeline).
        a.b.chart_mut().floors.push(Floor {
            when: Guard::Var {
                name: var.clone(),
                op: CmpOp::Eq,
                value: Value::String(mark.clone()),
            },
            at: source,
        });
        let here = Guard::In { state: source };
        a.b.add_transition(Transition {
            source: StateId::ROOT,
            targets: vec![target],
            trigger: trigger.clone(),
            guard: Some(match &guard {
                Some(g) => Guard::All {
                    of: vec![here, g.clone()],
                },
                None => here,
            }),
            actions: acts,
            label: Some(format!("bind: {} (from {key}, returns)", on.get_ref())),
            span: None,
        });
        if let Some(next) = then {
            a.b.add_transition(Transition {
                source,
                targets: vec![next],
                trigger: trigger.clone(),
                guard: Some(Guard::In { state: end }),
                actions: Vec::new(),
                label: Some(format!("bind: {} (via {})", on.get_ref(), a.key(top))),
                span: None,
            });
        }
        add_once(
            a,
            Transition {
                source: StateId::ROOT,
                targets: vec![then.unwrap_or(source)],
                trigger: Trigger::Always,
                guard: Some(Guard::All {
                    of: vec![
                        Guard::In { state: end },
                        Guard::Var {
                            name: var.clone(),
                            op: CmpOp::Eq,
                            value: Value::String(mark.clone()),
                        },
                    ],
                }),
                actions: vec![Action::SetVar {
                    name: var.clone(),
                    value: Value::Null,
                }],
                label: Some(match then {
                    Some(next) => format!("return: from {key} on to {}", a.key(next)),
                    None => format!("return: back to {key}"),
                }),
                span: None,
            },
        );
    }
    // Outside `T` with a return still recorded: the trip was abandoned. Targetless, so it
    // only runs its action, and its guard is false once it has.
    add_once(
        a,
        Transition {
            source: StateId::ROOT,
            targets: Vec::new(),
            trigger: Trigger::Always,
            guard: Some(Guard::All {
                of: vec![
                    Guard::Not {
                        guard: Box::new(Guard::In { state: top }),
                    },
                    Guard::Var {
                        name: var.clone(),
                        op: CmpOp::Ne,
                        value: Value::Null,
                    },
                ],
            }),
            actions: vec![Action::SetVar {
                name: var,
                value: Value::Null,
            }],
            label: Some("return: trip abandoned".into()),
            span: None,
        },
    );
    Ok(())
}

/// Add `t` unless the same transition is there already: several trips into one state (the
/// `/hope:panel` and `/hope:summon` trips into consult) share their returns.
fn add_once(a: &mut Assembly, t: Transition) {
    let same = a.b.chart().transitions.iter().any(|o| {
        o.source == t.source
            && o.targets == t.targets
            && o.trigger == t.trigger
            && o.guard == t.guard
            && o.actions == t.actions
    });
    if !same {
        a.b.add_transition(t);
    }
}

/// The child of the root that holds `id` (or `id` itself).
fn top_level(a: &Assembly, mut id: StateId) -> StateId {
    while let Some(p) = a.b.state(id).parent {
        if p == StateId::ROOT {
            return id;
        }
        id = p;
    }
    id
}

/// A state a session can wait in: an atomic state, or the end of a composite (the end of the
/// whole chart is not: the session is over). Choices are passed through.
fn resting(kind: &StateKind, parent: Option<StateId>) -> bool {
    match kind {
        StateKind::Atomic => true,
        StateKind::Final { .. } => parent.is_some_and(|p| p != StateId::ROOT),
        _ => false,
    }
}
