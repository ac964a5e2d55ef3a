//! Each node type's transitions (statecharts reference §5.2(b)):
//! - `action`: waits for its activities, in order (several become sub-steps); the last one's
//!   PostToolUse goes to `on_success`, a PostToolUseFailure of any of them to `on_failure`
//!   (`allow_failure: true`: on to the next step or `on_success`). A node with no activity moves
//!   on at once.
//! - `user_prompt`: waits for `AskUserQuestion`; each `on_response` handler is a transition
//!   guarded on the answer (see [`super::prompt::answer_guard`]).
//! - `conditional`, `validation_gate`: choices with ordered guarded eventless branches.
//! - `reference`: waits for a `Read` of its document, then `next_node`.
//!
//! `evaluate` consequences and the transitions that carry a node's consequences are built in
//! [`super::flow`].

use super::calls::path_glob;
use super::compile::{Cx, scope};
use super::consequence::split_templates;
use super::flow::{Flow, add, flow, wire};
use super::precond;
use super::schema::{Node, Sp, span_of};
use super::{lints, prompt};
use crate::dialects::LoadError;
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{Guard, InputMatcher, StateId, Trigger};
use crate::engine::pattern::{Alt, Pattern};
use crate::engine::wording::as_calls;

fn need<'n>(
    cx: &Cx,
    kind: &str,
    name: &Sp<String>,
    v: &'n Option<Sp<String>>,
    what: &str,
) -> Result<&'n Sp<String>, LoadError> {
    v.as_ref().ok_or_else(|| {
        cx.err(
            span_of(name),
            format!("{kind} node `{}` needs `{what}`", name.value),
        )
    })
}

pub fn compile(
    cx: &mut Cx,
    b: &mut ChartBuilder,
    name: &Sp<String>,
    node: &Sp<Node>,
) -> Result<(), LoadError> {
    let n = &node.value;
    let kind = n.kind.as_ref().map(|k| k.value.as_str()).unwrap_or("");
    lints::stray_keys(cx, kind, name, n);
    let Some(&id) = cx.ids.get(&name.value) else {
        return Err(cx.err(
            span_of(name),
            format!("internal: node `{}` was not declared", name.value),
        ));
    };
    match kind {
        "action" => action(cx, b, name, n, id),
        "conditional" => conditional(cx, b, name, n, id),
        "validation_gate" => validation_gate(cx, b, name, n, id),
        "reference" => reference(cx, b, name, n, id),
        "user_prompt" => prompt::compile(cx, b, name, n, id),
        _ => Ok(()),
    }
}

/// `conditional`: the `true` branch when the condition holds, else the `false` one.
fn conditional(
    cx: &mut Cx,
    b: &mut ChartBuilder,
    name: &Sp<String>,
    n: &Node,
    id: StateId,
) -> Result<(), LoadError> {
    let cond = n.condition.as_ref().ok_or_else(|| {
        cx.err(
            span_of(name),
            format!("conditional node `{}` needs `condition`", name.value),
        )
    })?;
    let branches = n.branches.as_ref().ok_or_else(|| {
        cx.err(
            span_of(name),
            format!(
                "conditional node `{}` needs `branches: {{ true: …, false: … }}`",
                name.value
            ),
        )
    })?;
    let t = branches
        .value
        .when_true
        .as_ref()
        .ok_or_else(|| cx.err(span_of(branches), "`branches` needs `true`"))?;
    let f = branches
        .value
        .when_false
        .as_ref()
        .ok_or_else(|| cx.err(span_of(branches), "`branches` needs `false`"))?;
    let guard = precond::to_guard(cond, b, &cx.env())?;
    let (tid, fid) = (cx.target(t)?, cx.target(f)?);
    add(
        b,
        id,
        Some(tid),
        Trigger::Always,
        Some(guard),
        Vec::new(),
        "true",
        span_of(t),
    );
    add(
        b,
        id,
        Some(fid),
        Trigger::Always,
        None,
        Vec::new(),
        "false",
        span_of(f),
    );
    Ok(())
}

/// `validation_gate`: `on_valid` when every validation holds, else `on_invalid`.
fn validation_gate(
    cx: &mut Cx,
    b: &mut ChartBuilder,
    name: &Sp<String>,
    n: &Node,
    id: StateId,
) -> Result<(), LoadError> {
    let kind = "validation_gate";
    let checks = match &n.validations {
        Some(v) if !v.is_empty() => v,
        _ => {
            return Err(cx.err(
                span_of(name),
                format!(
                    "validation_gate node `{}` needs a non-empty `validations` list",
                    name.value
                ),
            ));
        }
    };
    let (ok, bad) = (
        need(cx, kind, name, &n.on_valid, "on_valid")?,
        need(cx, kind, name, &n.on_invalid, "on_invalid")?,
    );
    let env = cx.env();
    let of = checks
        .iter()
        .map(|p| precond::to_guard(p, b, &env))
        .collect::<Result<Vec<_>, _>>()?;
    let (okid, badid) = (cx.target(ok)?, cx.target(bad)?);
    add(
        b,
        id,
        Some(okid),
        Trigger::Always,
        Some(Guard::All { of }),
        Vec::new(),
        "valid",
        span_of(ok),
    );
    add(
        b,
        id,
        Some(badid),
        Trigger::Always,
        None,
        Vec::new(),
        "invalid",
        span_of(bad),
    );
    Ok(())
}

/// `reference`: waits for a `Read` of its document, then `next_node`.
fn reference(
    cx: &mut Cx,
    b: &mut ChartBuilder,
    name: &Sp<String>,
    n: &Node,
    id: StateId,
) -> Result<(), LoadError> {
    let kind = "reference";
    let doc = need(cx, kind, name, &n.doc, "doc")?;
    let next = cx.target(need(cx, kind, name, &n.next_node, "next_node")?)?;
    let shown = Pattern {
        alts: vec![Alt {
            kind: None,
            glob: "Read".into(),
            input: vec![(
                "/file_path".into(),
                InputMatcher::Glob(path_glob(&doc.value)),
            )],
        }],
    };
    let (pattern, guard) = split_templates(shown.clone());
    let st = b.state_mut(id);
    st.activity = Some(shown);
    st.call = Some(format!(
        "Read(file_path={})",
        serde_json::Value::String(doc.value.clone())
    ));
    st.notes.push(match &n.section {
        Some(s) => format!("read {} (section {s})", doc.value),
        None => format!("read {}", doc.value),
    });
    add(
        b,
        id,
        Some(next),
        Trigger::Event(pattern),
        guard,
        Vec::new(),
        "read",
        span_of(doc),
    );
    Ok(())
}

fn action(
    cx: &mut Cx,
    b: &mut ChartBuilder,
    name: &Sp<String>,
    n: &Node,
    id: StateId,
) -> Result<(), LoadError> {
    let f = flow(cx, n.actions.as_ref(), true)?;
    let succ = n.on_success.as_ref().ok_or_else(|| {
        cx.err(
            span_of(name),
            format!(
                "action node `{}` needs `on_success`: the node or ending that follows it",
                name.value
            ),
        )
    })?;
    let succ_id = cx.target(succ)?;
    let fail_id = n.on_failure.as_ref().map(|t| cx.target(t)).transpose()?;
    let entry = wire(cx, b, &scope(&name.value, ""), &f, succ_id, span_of(succ))?;
    if f.activities.is_empty() {
        if let Some(t) = &n.on_failure {
            cx.warn("workflow-unused-key", format!(
                "`on_failure` of `{}` is never taken: the node makes no tool call, so nothing can fail", name.value
            ), span_of(t));
        }
        add(
            b,
            id,
            Some(entry),
            Trigger::Always,
            None,
            f.head.clone(),
            "on_success",
            span_of(succ),
        );
        return Ok(());
    }
    let steps = cx
        .steps
        .get(&name.value)
        .cloned()
        .unwrap_or_else(|| vec![id]);
    if steps.len() != f.activities.len() {
        return Err(cx.err(
            span_of(name),
            format!(
                "internal: `{}` has {} steps for {} tool calls",
                name.value,
                steps.len(),
                f.activities.len()
            ),
        ));
    }
    b.state_mut(id).notes.push(format!(
        "waits for {}",
        f.activities
            .iter()
            .map(|a| a.call.clone().unwrap_or_else(|| as_calls(&a.shown)))
            .collect::<Vec<_>>()
            .join(", then ")
    ));
    activity_edges(b, n, &f, &steps, entry, fail_id);
    Ok(())
}

/// Each activity's step: its tool call moves on to the next step (the last to `entry`), its
/// failure to `on_failure` (or on, when the failure is allowed).
fn activity_edges(
    b: &mut ChartBuilder,
    n: &Node,
    f: &Flow,
    steps: &[StateId],
    entry: StateId,
    fail_id: Option<StateId>,
) {
    let last = f.activities.len().saturating_sub(1);
    for (i, a) in f.activities.iter().enumerate() {
        let src = steps[i];
        b.state_mut(src).activity = Some(a.shown.clone());
        b.state_mut(src).call = a.call.clone();
        let (next, mut ok, mut failed) = if i == last {
            (entry, a.on_ok.clone(), a.on_fail.clone())
        } else {
            (steps[i + 1], a.on_ok.clone(), a.on_fail.clone())
        };
        if i == last {
            ok.extend(f.head.iter().cloned());
            failed.extend(f.head.iter().cloned());
        }
        let label = if i == last { "on_success" } else { "next step" };
        add(
            b,
            src,
            Some(next),
            Trigger::Event(a.pattern.clone()),
            a.guard.clone(),
            ok,
            label,
            a.span,
        );
        if a.allow_failure {
            add(
                b,
                src,
                Some(next),
                Trigger::Error(a.pattern.clone()),
                a.guard.clone(),
                failed,
                "failure allowed",
                a.span,
            );
        } else if let (Some(fail), Some(t)) = (fail_id, &n.on_failure) {
            add(
                b,
                src,
                Some(fail),
                Trigger::Error(a.pattern.clone()),
                a.guard.clone(),
                a.on_fail.clone(),
                "on_failure",
                span_of(t),
            );
        }
    }
}
