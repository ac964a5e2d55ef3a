//! States first, in file order: the entry gate, each node (with its sub-steps and `evaluate`
//! choices), each ending; targets can then resolve in any order.

use super::compile::{Cx, ENTRY_FAILED, ENTRY_GATE, NODE_TYPES, consequences, scope};
use super::consequence::ACTIVITY_TYPES;
use super::precond;
use super::schema::{Ending, Node, Sp, Workflow, span_of};
use crate::dialects::LoadError;
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{Guard, Outcome, Span, StateId, StateKind, Transition, Trigger};

/// Create every state first, in file order, so targets resolve and document order holds.
pub fn declare(cx: &mut Cx, wf: &Workflow, b: &mut ChartBuilder) -> Result<(), LoadError> {
    if !wf.entry_preconditions.is_empty() {
        let id = b
            .add_state(StateId::ROOT, ENTRY_GATE, StateKind::Choice)
            .map_err(|e| LoadError::at(cx.file, 1, 1, e.to_string()))?;
        b.state_mut(id).label = "entry preconditions".into();
        b.state_mut(id).span = wf.entry_preconditions.first().map(span_of);
        cx.ids.insert(ENTRY_GATE.into(), id);
    }
    for (key, node) in &wf.nodes.0 {
        declare_node(cx, b, key, &node.value)?;
    }
    for (key, ending) in &wf.endings.0 {
        declare_ending(cx, b, key, &ending.value)?;
    }
    undefined_targets(cx, wf, b)
}

/// The nodes a node goes on to, as written.
fn targets(node: &Node) -> Vec<&Sp<String>> {
    let branches = node
        .branches
        .iter()
        .flat_map(|b| [&b.value.when_true, &b.value.when_false]);
    let handlers = node
        .on_response
        .iter()
        .flat_map(|h| h.0.iter().map(|(_, h)| &h.value.next_node));
    [&node.on_success, &node.on_failure, &node.on_valid]
        .into_iter()
        .chain([&node.on_invalid, &node.next_node])
        .chain(branches)
        .chain(handlers)
        .flatten()
        .collect()
}

/// A target no node or ending declares: seed 003's schema example is an excerpt that names
/// nodes it leaves out ("# ... continues with deterministic routing"). It loads: the target
/// becomes an error ending that says what is missing, and `seed validate` warns at each use.
fn undefined_targets(cx: &mut Cx, wf: &Workflow, b: &mut ChartBuilder) -> Result<(), LoadError> {
    let known: Vec<String> = cx
        .ids
        .keys()
        .filter(|k| *k != ENTRY_GATE)
        .cloned()
        .collect();
    for t in wf.nodes.0.iter().flat_map(|(_, n)| targets(&n.value)) {
        if known.contains(&t.value) {
            continue;
        }
        let meant = crate::dialects::suggest::closest(&t.value, &known)
            .map(|m| format!(" (did you mean `{m}`?)"))
            .unwrap_or_default();
        cx.warn(
            "workflow-undefined-node",
            format!(
                "`{}` is not a node or an ending{meant}: the workflow ends there, as an error",
                t.value
            ),
            span_of(t),
        );
        if cx.ids.contains_key(&t.value) {
            continue;
        }
        let kind = StateKind::Final {
            outcome: Outcome::Error,
            message: Some(format!("`{}` is not defined in this workflow", t.value)),
            recovery: Some(format!("Define node `{}` in {}.", t.value, cx.file)),
        };
        let id = b
            .add_state(StateId::ROOT, &t.value, kind)
            .map_err(|e| cx.err(span_of(t), e.to_string()))?;
        b.state_mut(id).span = Some(span_of(t));
        cx.ids.insert(t.value.clone(), id);
    }
    Ok(())
}

/// A node's state, its sub-steps and its `evaluate` choices.
fn declare_node(
    cx: &mut Cx,
    b: &mut ChartBuilder,
    key: &Sp<String>,
    node: &Node,
) -> Result<(), LoadError> {
    let at = span_of(key);
    if key.value.trim().is_empty() {
        return Err(cx.err(at, "empty node name"));
    }
    let Some(kind) = &node.kind else {
        return Err(cx.err(
            at,
            format!(
                "node `{}` has no `type`: expected one of {}",
                key.value,
                NODE_TYPES.join(", ")
            ),
        ));
    };
    let activities: Vec<&Sp<String>> = match kind.value.as_str() {
        "action" => node
            .actions
            .iter()
            .flatten()
            .filter_map(|c| c.value.kind.as_ref())
            .filter(|k| ACTIVITY_TYPES.contains(&k.value.as_str()))
            .collect(),
        _ => Vec::new(),
    };
    let (sk, weight) = state_kind(cx, kind, activities.is_empty())?;
    let id = b
        .add_state(StateId::ROOT, &key.value, sk)
        .map_err(|_| cx.err(at, format!("`{}` is declared twice", key.value)))?;
    let st = b.state_mut(id);
    st.weight = weight;
    st.span = Some(at);
    st.notes.extend(node.description.clone());
    cx.ids.insert(key.value.clone(), id);
    if activities.len() > 1 {
        let steps = sub_steps(cx, b, key, id, &activities)?;
        cx.steps.insert(key.value.clone(), steps);
    }
    for (handler, list) in consequences(node) {
        let evals: Vec<&Sp<String>> = list
            .iter()
            .filter(|c| c.value.kind.as_ref().is_some_and(|k| k.value == "evaluate"))
            .filter_map(|c| c.value.expression.as_ref())
            .collect();
        let scope = scope(&key.value, &handler);
        let chain = evaluate_choices(cx, b, at, &scope, &evals)?;
        cx.chains.insert(scope, chain);
    }
    Ok(())
}

/// The state a node type is, and what it weighs for progress.
fn state_kind(
    cx: &Cx,
    kind: &Sp<String>,
    no_activity: bool,
) -> Result<(StateKind, f64), LoadError> {
    Ok(match kind.value.as_str() {
        // A node that only changes state is instantaneous: no step for progress.
        "action" => (StateKind::Atomic, if no_activity { 0.0 } else { 1.0 }),
        "user_prompt" | "reference" => (StateKind::Atomic, 1.0),
        "conditional" | "validation_gate" => (StateKind::Choice, 0.0),
        other => {
            return Err(cx.err(
                span_of(kind),
                format!(
                    "unknown node type `{other}`: expected one of {}",
                    NODE_TYPES.join(", ")
                ),
            ));
        }
    })
}

/// One sub-step per tool call, in file order ("FOR each action IN node.actions").
fn sub_steps(
    cx: &Cx,
    b: &mut ChartBuilder,
    key: &Sp<String>,
    id: StateId,
    activities: &[&Sp<String>],
) -> Result<Vec<StateId>, LoadError> {
    let mut steps = Vec::new();
    for (i, k) in activities.iter().enumerate() {
        let mut step = k.value.clone();
        if activities[..i].iter().any(|p| p.value == k.value) {
            step = format!("{step}-{}", i + 1);
        }
        let sid = b
            .add_state(id, &step, StateKind::Atomic)
            .map_err(|_| cx.err(span_of(*k), format!("`{step}` is declared twice")))?;
        b.state_mut(sid).weight = 1.0 / activities.len() as f64;
        b.state_mut(sid).span = Some(span_of(*k));
        b.state_mut(sid).label = format!("{}.{step}", key.value);
        steps.push(sid);
    }
    Ok(steps)
}

/// A choice per `evaluate` consequence of one handler, in order.
fn evaluate_choices(
    cx: &Cx,
    b: &mut ChartBuilder,
    at: Span,
    scope: &str,
    evals: &[&Sp<String>],
) -> Result<Vec<StateId>, LoadError> {
    let mut chain = Vec::new();
    for (i, e) in evals.iter().enumerate() {
        let name = format!("{scope}/evaluate{}", i + 1);
        let cid = b
            .add_state(StateId::ROOT, &name, StateKind::Choice)
            .map_err(|_| cx.err(at, format!("`{name}` is declared twice")))?;
        b.state_mut(cid).label = format!("evaluate {}", e.value);
        b.state_mut(cid).span = Some(span_of(*e));
        chain.push(cid);
    }
    Ok(chain)
}

/// An ending: a final state with its outcome, message and recovery.
fn declare_ending(
    cx: &mut Cx,
    b: &mut ChartBuilder,
    key: &Sp<String>,
    e: &Ending,
) -> Result<(), LoadError> {
    let at = span_of(key);
    let outcome = match e.kind.as_ref().map(|k| k.value.as_str()) {
        Some("success") => Outcome::Success,
        Some("error") => Outcome::Error,
        Some(other) => {
            let kat = e.kind.as_ref().map(span_of).unwrap_or(at);
            return Err(cx.err(
                kat,
                format!(
                    "ending `{}` has type `{other}`: expected success or error",
                    key.value
                ),
            ));
        }
        None => {
            return Err(cx.err(
                at,
                format!(
                    "ending `{}` needs `type: success` or `type: error`",
                    key.value
                ),
            ));
        }
    };
    let kind = StateKind::Final {
        outcome,
        message: e.message.clone(),
        recovery: e.recovery.clone(),
    };
    let id = b.add_state(StateId::ROOT, &key.value, kind).map_err(|_| {
        cx.err(
            at,
            format!(
                "`{}` is both a node and an ending: names must be unique",
                key.value
            ),
        )
    })?;
    b.state_mut(id).span = Some(at);
    b.state_mut(id).notes.extend(e.description.clone());
    cx.ids.insert(key.value.clone(), id);
    Ok(())
}

/// Entry preconditions gate the start: all hold → `start_node`, else the failure ending.
pub fn entry_gate(
    cx: &mut Cx,
    wf: &Workflow,
    b: &mut ChartBuilder,
    start: StateId,
    skill: &str,
) -> Result<StateId, LoadError> {
    let Some(gate) = cx.ids.get(ENTRY_GATE).copied() else {
        if let Some(f) = &wf.on_entry_failure {
            cx.warn(
                "workflow-unused-key",
                "`on_entry_failure` is never taken: there are no entry_preconditions",
                span_of(f),
            );
        }
        return Ok(start);
    };
    let env = cx.env();
    let mut of = Vec::new();
    for p in &wf.entry_preconditions {
        of.push(precond::to_guard(p, b, &env)?);
    }
    let failed = match &wf.on_entry_failure {
        Some(t) => cx.target(t)?,
        None => {
            let list: Vec<String> = wf
                .entry_preconditions
                .iter()
                .map(|p| precond::describe(&p.value))
                .collect();
            let kind = StateKind::Final {
                outcome: Outcome::Error,
                message: Some(format!(
                    "Entry preconditions do not hold: {}",
                    list.join(", ")
                )),
                recovery: Some(format!(
                    "Make {} hold, then run {skill} again.",
                    list.join(" and "),
                )),
            };
            let id = b
                .add_state(StateId::ROOT, ENTRY_FAILED, kind)
                .map_err(|e| LoadError::at(cx.file, 1, 1, e.to_string()))?;
            b.state_mut(id).span = b.state(gate).span;
            id
        }
    };
    let span = b.state(gate).span;
    for (target, guard, label) in [
        (start, Some(Guard::All { of }), "preconditions hold"),
        (failed, None, "a precondition fails"),
    ] {
        b.add_transition(Transition {
            source: gate,
            targets: vec![target],
            trigger: Trigger::Always,
            guard,
            actions: Vec::new(),
            label: Some(label.into()),
            span,
        });
    }
    Ok(gate)
}
