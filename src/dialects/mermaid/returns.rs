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

/// A side trip as its binding declares it, resolved.
struct Trip {
    trigger: Trigger,
    guard: Option<Guard>,
    actions: Vec<Action>,
    /// The event as written, for labels.
    on: String,
    /// Where the trip starts, the top-level state it is in, and that state's `[*]`.
    target: StateId,
    top: StateId,
    end: StateId,
    /// The states it may be taken from (`from`, else everywhere).
    roots: Vec<StateId>,
    /// `return = "state"`: where the trip goes on to instead of back.
    then: Option<StateId>,
    /// The variable that records where the trip came from.
    var: String,
}

pub(super) fn binding(cx: &Cx, b: &Spanned<BindToml>, a: &mut Assembly) -> Result<(), LoadError> {
    let trip = trip(cx, b, a)?;
    // Both halves hang on the root, guarded by where the session is: like a global command,
    // a side trip is no step of a path (recovery and progress skip root transitions), and a
    // state's own transitions on the same event win over it.
    for (source, key) in sources(cx, b, a, trip.top, &trip.roots)? {
        leave_and_return(a, &trip, source, &key);
    }
    abandoned(a, trip.top, trip.var);
    Ok(())
}

/// The binding's event, where it starts and where it returns to.
fn trip(cx: &Cx, b: &Spanned<BindToml>, a: &mut Assembly) -> Result<Trip, LoadError> {
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
    let then = goes_on_to(cx, b, a, top)?;
    Ok(Trip {
        roots,
        trigger,
        guard,
        actions,
        on: on.get_ref().clone(),
        target,
        top,
        end,
        then,
        var: return_var(&a.key(top)),
    })
}

/// `return = "state"`: the state after the trip, which must lie outside it.
fn goes_on_to(
    cx: &Cx,
    b: &Spanned<BindToml>,
    a: &Assembly,
    top: StateId,
) -> Result<Option<StateId>, LoadError> {
    let bt = b.get_ref();
    let Some(ReturnToml::To(key)) = &bt.returns else {
        return Ok(None);
    };
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
    Ok(Some(id))
}

/// The states a trip may leave: resting states under `roots`, outside the trip, that the
/// session can reach (trips from the others would make them look reachable: the lint
/// follows every return edge).
fn sources(
    cx: &Cx,
    b: &Spanned<BindToml>,
    a: &Assembly,
    top: StateId,
    roots: &[StateId],
) -> Result<Vec<(StateId, String)>, LoadError> {
    let preview = a.b.preview().map_err(|e| cx.at(b.span(), e.to_string()))?;
    let m = Machine::new(preview);
    let reachable: HashSet<String> = m
        .reachable_atomic()
        .into_iter()
        .map(|id| m.chart.state(id).key.clone())
        .collect();
    let chart = a.b.chart();
    Ok(chart
        .states
        .iter()
        .filter(|s| resting(&s.kind, s.parent))
        .filter(|s| !chart.is_descendant_or_self(s.id, top))
        .filter(|s| reachable.contains(&s.key))
        .filter(|s| roots.iter().any(|r| chart.is_descendant_or_self(s.id, *r)))
        .map(|s| (s.id, s.key.clone()))
        .collect())
}

/// From `source`: the event enters the trip and records where it came from; the trip's end
/// goes back there (or on to `then`).
fn leave_and_return(a: &mut Assembly, trip: &Trip, source: StateId, key: &str) {
    // What the variable records: where the trip came from, and where it goes on to when
    // that is elsewhere (two trips from one state may end in different places).
    let mark = match trip.then {
        Some(next) => format!("{key} → {}", a.key(next)),
        None => key.to_string(),
    };
    let recorded = |op| Guard::Var {
        name: trip.var.clone(),
        op,
        value: Value::String(mark.clone()),
    };
    let mut acts = trip.actions.clone();
    acts.push(Action::SetVar {
        name: trip.var.clone(),
        value: Value::String(mark.clone()),
    });
    // While the trip is away, progress stays where it left (it does not fall back to the
    // trip's own place in the pipeline).
    a.b.chart_mut().floors.push(Floor {
        when: recorded(CmpOp::Eq),
        at: source,
    });
    let here = Guard::In { state: source };
    a.b.add_transition(Transition {
        source: StateId::ROOT,
        targets: vec![trip.target],
        trigger: trip.trigger.clone(),
        guard: Some(match &trip.guard {
            Some(g) => Guard::All {
                of: vec![here, g.clone()],
            },
            None => here,
        }),
        actions: acts,
        label: Some(format!("bind: {} (from {key}, returns)", trip.on)),
        span: None,
    });
    if let Some(next) = trip.then {
        a.b.add_transition(Transition {
            source,
            targets: vec![next],
            trigger: trip.trigger.clone(),
            guard: Some(Guard::In { state: trip.end }),
            actions: Vec::new(),
            label: Some(format!("bind: {} (via {})", trip.on, a.key(trip.top))),
            span: None,
        });
    }
    let label = match trip.then {
        Some(next) => format!("return: from {key} on to {}", a.key(next)),
        None => format!("return: back to {key}"),
    };
    add_once(
        a,
        Transition {
            source: StateId::ROOT,
            targets: vec![trip.then.unwrap_or(source)],
            trigger: Trigger::Always,
            guard: Some(Guard::All {
                of: vec![Guard::In { state: trip.end }, recorded(CmpOp::Eq)],
            }),
            actions: vec![Action::SetVar {
                name: trip.var.clone(),
                value: Value::Null,
            }],
            label: Some(label),
            span: None,
        },
    );
}

/// Outside `T` with a return still recorded: the trip was abandoned. Targetless, so it only
/// runs its action, and its guard is false once it has.
fn abandoned(a: &mut Assembly, top: StateId, var: String) {
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
