//! A node's consequence list as it runs: data actions, activities (tool calls the agent
//! makes) and `evaluate` consequences, which run as a chain of choice states after the
//! transition's other actions, each setting its flag to whether its expression holds; and the
//! transitions that wire that chain to where the node goes next.

use super::compile::Cx;
use super::consequence::{self, Activity, Compiled};
use super::schema::{Consequence, Sp};
use crate::dialects::LoadError;
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{Action, Guard, Span, StateId, Transition, Trigger};

/// State actions and activities of one consequence list, split at each `evaluate`.
pub(super) struct Flow {
    pub head: Vec<Action>,
    /// `(guard, flag, actions after it)`, in order.
    pub evals: Vec<(Guard, String, Vec<Action>)>,
    pub activities: Vec<Activity>,
}

pub(super) fn flow(
    cx: &Cx,
    list: Option<&Vec<Sp<Consequence>>>,
    activities_allowed: bool,
) -> Result<Flow, LoadError> {
    let mut f = Flow {
        head: Vec::new(),
        evals: Vec::new(),
        activities: Vec::new(),
    };
    let env = cx.env();
    for c in list.into_iter().flatten() {
        let tail = match f.evals.last_mut() {
            Some((_, _, after)) => after,
            None => &mut f.head,
        };
        match consequence::compile(c, &env)? {
            Compiled::Actions(a) => tail.extend(a),
            Compiled::Evaluate { guard, flag, .. } => f.evals.push((guard, flag, Vec::new())),
            Compiled::Activity(a) => {
                if !activities_allowed {
                    let kind = c
                        .value
                        .kind
                        .as_ref()
                        .map(|k| k.value.as_str())
                        .unwrap_or("");
                    return Err(cx.err(a.span, format!(
                        "`{kind}` is a tool call the agent makes; only an action node can wait for it: route this response to an action node"
                    )));
                }
                f.activities.push(a);
            }
        }
    }
    Ok(f)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn add(
    b: &mut ChartBuilder,
    source: StateId,
    target: Option<StateId>,
    trigger: Trigger,
    guard: Option<Guard>,
    actions: Vec<Action>,
    label: &str,
    span: Span,
) {
    b.add_transition(Transition {
        source,
        targets: target.into_iter().collect(),
        trigger,
        guard,
        actions,
        label: Some(label.to_string()),
        span: Some(span),
    });
}

/// Wire the `evaluate` chain of `scope` to `target`; returns where its transitions should go.
pub(super) fn wire(
    cx: &Cx,
    b: &mut ChartBuilder,
    scope: &str,
    flow: &Flow,
    target: StateId,
    span: Span,
) -> Result<StateId, LoadError> {
    let chain = cx.chains.get(scope).cloned().unwrap_or_default();
    if chain.len() != flow.evals.len() {
        return Err(cx.err(
            span,
            format!(
                "internal: `{scope}` has {} evaluate states for {} evaluations",
                chain.len(),
                flow.evals.len()
            ),
        ));
    }
    for (i, (guard, flag, after)) in flow.evals.iter().enumerate() {
        let next = chain.get(i + 1).copied().unwrap_or(target);
        for (value, g) in [(true, Some(guard.clone())), (false, None)] {
            let mut actions = vec![Action::SetFlag {
                name: flag.clone(),
                value,
            }];
            actions.extend(after.iter().cloned());
            add(
                b,
                chain[i],
                Some(next),
                Trigger::Always,
                g,
                actions,
                &format!("{flag} = {value}"),
                span,
            );
        }
    }
    Ok(chain.first().copied().unwrap_or(target))
}
