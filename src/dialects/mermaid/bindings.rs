//! The bindings of a manifest: `[[bind]]` (events entering states, activities), `[[policy]]`
//! and `[[edge]]` (mini-language labels for drawn edges).

use toml::Spanned;

use super::assembly::{Assembly, EdgeEnd, Node, Override};
use super::guard_expr;
use super::label;
use super::manifest::{BindToml, Cx, EdgeToml, PolicyToml};
use super::stmt::clip;
use crate::dialects::LoadError;
use crate::engine::ir::{
    Action, Fill, Guard, Policy, Span, State, StateId, StateKind, Transition, Trigger,
};
use crate::engine::pattern::Pattern;

/// `[[bind]] state = "…" activity = "…"`: the tool, skill or command that performs a state.
pub(super) fn activity(cx: &Cx, b: &Spanned<BindToml>, a: &mut Assembly) -> Result<(), LoadError> {
    let bt = b.get_ref();
    let Some(state) = &bt.state else {
        return Ok(());
    };
    if bt.on.is_some() || bt.enter.is_some() || bt.from.is_some() {
        return Err(cx.at(
            b.span(),
            "a [[bind]] has either `state` (with `activity`) or `on` (with `enter`/`from`), not both",
        ));
    }
    let id = a
        .resolve(state.get_ref(), Some(0))
        .map_err(|e| cx.at(state.span(), e))?;
    if let Some(act) = &bt.activity {
        let p = label::parse_trigger(act.get_ref()).map_err(|e| cx.at(act.span(), e.message))?;
        a.b.state_mut(id).activity = Some(p);
    }
    if let Some(w) = bt.weight {
        a.b.state_mut(id).weight = w.clamp(0.0, 1000.0);
    }
    Ok(())
}

pub(super) fn states_of(
    cx: &Cx,
    v: &Spanned<toml::Value>,
    a: &Assembly,
) -> Result<Vec<StateId>, LoadError> {
    let names: Vec<String> = match v.get_ref() {
        toml::Value::String(s) => vec![s.clone()],
        toml::Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(String::from))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| cx.at(v.span(), "expected a state key or a list of state keys"))?,
        _ => return Err(cx.at(v.span(), "expected a state key or a list of state keys")),
    };
    names
        .iter()
        .map(|n| a.resolve(n, Some(0)).map_err(|e| cx.at(v.span(), e)))
        .collect()
}

/// `[[policy]]`: allow / deny lists, a recovery text and an enforcement override. One with a
/// `when` or a `gate`, or on the whole sequence (no `state`), stays a policy of its own with
/// its own enforcement; others merge into their states' policy.
pub(super) fn policy(cx: &Cx, p: &Spanned<PolicyToml>, a: &mut Assembly) -> Result<(), LoadError> {
    let pt = p.get_ref();
    let parse = |v: &Spanned<String>| {
        Pattern::parse(v.get_ref()).map_err(|e| cx.at(v.span(), e.to_string()))
    };
    let allow = pt.allow.iter().map(parse).collect::<Result<Vec<_>, _>>()?;
    let deny = pt.deny.iter().map(parse).collect::<Result<Vec<_>, _>>()?;
    let fill = pt.progress.as_ref().map(|f| Fill {
        done: f.get_ref().done.clone(),
        total: f.get_ref().of.clone(),
    });
    let own = pt.when.is_some() || pt.gate.is_some() || pt.state.is_none();
    let states = match &pt.state {
        Some(v) => states_of(cx, v, a)?,
        None => vec![StateId::ROOT],
    };
    let when = policy_when(cx, pt, a)?;
    let gate = match &pt.gate {
        Some(g) if g.get_ref().trim().is_empty() || g.get_ref().chars().any(char::is_control) => {
            return Err(cx.at(g.span(), "`gate` must be a name"));
        }
        g => g.as_ref().map(|g| g.get_ref().trim().to_string()),
    };
    if own && allow.is_empty() && deny.is_empty() {
        return Err(cx.at(
            p.span(),
            "a [[policy]] with `when` or `gate`, or on the whole sequence, needs `allow` or `deny`",
        ));
    }
    if let (Some(at), None) = (&pt.progress, &pt.state) {
        return Err(cx.at(at.span(), "`progress` fills a state: name it with `state`"));
    }
    let (line, col) = cx.pos(p.span());
    let span = Some(Span::at(line, col));
    for id in states {
        if let (Some(f), Some(at)) = (&fill, &pt.progress) {
            if !matches!(a.b.chart().state(id).kind, StateKind::Atomic) {
                return Err(cx.at(
                    at.span(),
                    format!(
                        "`progress` fills an atomic state; `{}` has states inside",
                        a.key(id)
                    ),
                ));
            }
            a.b.state_mut(id).fill = Some(f.clone());
        }
        let st = a.b.state_mut(id);
        if own {
            st.policies.push(Policy {
                allow: allow.clone(),
                deny: deny.clone(),
                recovery: pt.recovery.clone(),
                when: when.clone(),
                gate: gate.clone(),
                enforcement: pt.enforcement,
                span,
            });
        } else {
            merge(st, pt, &allow, &deny);
            // A state's merged policy is placed at the first `[[policy]]` that named it.
            st.policy.span = st.policy.span.or(span);
        }
    }
    Ok(())
}

/// A policy's `when`: a guard of the label language.
fn policy_when(cx: &Cx, pt: &PolicyToml, a: &Assembly) -> Result<Option<Guard>, LoadError> {
    let Some(w) = &pt.when else {
        return Ok(None);
    };
    if w.get_ref().chars().count() > label::MAX_LABEL_CHARS {
        return Err(cx.at(
            w.span(),
            format!(
                "`when` is longer than {} characters",
                label::MAX_LABEL_CHARS
            ),
        ));
    }
    let e = guard_expr::parse(w.get_ref()).map_err(|e| {
        cx.at(
            w.span(),
            format!("`when = \"{}\"`: {}", clip(w.get_ref()), e.message),
        )
    })?;
    e.to_guard(&mut |n: &str| a.resolve(n, Some(0)))
        .map(Some)
        .map_err(|e| cx.at(w.span(), e))
}

/// A policy without `when` or `gate` merges into its state's own.
fn merge(st: &mut State, pt: &PolicyToml, allow: &[Pattern], deny: &[Pattern]) {
    st.policy.allow.extend(allow.iter().cloned());
    st.policy.deny.extend(deny.iter().cloned());
    if let Some(r) = &pt.recovery {
        st.policy.recovery = Some(r.clone());
    }
    if let Some(e) = pt.enforcement {
        st.enforcement = Some(e);
    }
}

/// `[[edge]]`: give a diagram edge (usually one labelled in prose) a mini-language label.
pub(super) fn edge_override(
    cx: &Cx,
    e: &Spanned<EdgeToml>,
    a: &mut Assembly,
) -> Result<(), LoadError> {
    let et = e.get_ref();
    let from = a
        .resolve(et.from.get_ref(), Some(0))
        .map_err(|m| cx.at(et.from.span(), m))?;
    let to_star = et.to.get_ref() == "[*]";
    let to = if to_star {
        None
    } else {
        Some(
            a.resolve(et.to.get_ref(), Some(0))
                .map_err(|m| cx.at(et.to.span(), m))?,
        )
    };
    let finals = a.finals.clone();
    let matches: Vec<usize> = (0..a.edges.len())
        .filter(|&i| {
            let pe = &a.edges[i];
            let target_ok = match (pe.to, to) {
                (EdgeEnd::Star, None) => true,
                (EdgeEnd::Star, Some(t)) => finals.get(&pe.scope) == Some(&t),
                (EdgeEnd::Node(Node::State(x)), Some(t)) => x == t,
                _ => false,
            };
            let label_ok = et.matching.as_ref().is_none_or(|m| {
                pe.label
                    .as_ref()
                    .is_some_and(|l| l.text.trim() == m.trim() || l.text.contains(m.as_str()))
            });
            pe.from == EdgeEnd::Node(Node::State(from)) && target_ok && label_ok
        })
        .collect();
    let (line, col) = cx.pos(et.label.span());
    match matches.as_slice() {
        [i] => {
            a.edges[*i].override_label = Some(Override {
                text: et.label.get_ref().clone(),
                line,
                col,
                why: et.why.clone(),
            });
            Ok(())
        }
        [] => Err(cx.at(
            e.span(),
            format!("[[edge]]: no diagram edge from `{}` to `{}`{}", et.from.get_ref(), et.to.get_ref(), et.matching.as_ref().map(|m| format!(" labelled `{m}`")).unwrap_or_default()),
        )),
        _ => Err(cx.at(
            e.span(),
            format!("[[edge]]: {} edges lead from `{}` to `{}`: add `match = \"<part of the label>\"` to pick one", matches.len(), et.from.get_ref(), et.to.get_ref()),
        )),
    }
}

/// `[[bind]] on = "…" [enter = "…"] [from = …]`: a transition from `from` (default: anywhere)
/// into `enter`; without `enter` the event is neutral there (no state change).
pub(super) fn binding(cx: &Cx, b: &Spanned<BindToml>, a: &mut Assembly) -> Result<(), LoadError> {
    let bt = b.get_ref();
    let Some(on) = &bt.on else {
        if bt.state.is_none() {
            return Err(cx.at(
                b.span(),
                "a [[bind]] needs `on` (an event) or `state` (with `activity`)",
            ));
        }
        return Ok(());
    };
    let (trigger, guard, actions) = parse_on(cx, bt, on, a)?;
    let target = match &bt.enter {
        Some(t) => vec![
            a.resolve(t.get_ref(), Some(0))
                .map_err(|e| cx.at(t.span(), e))?,
        ],
        None => Vec::new(),
    };
    let sources = match &bt.from {
        Some(f) => states_of(cx, f, a)?,
        None => vec![StateId::ROOT],
    };
    for source in sources {
        a.b.add_transition(Transition {
            source,
            targets: target.clone(),
            trigger: trigger.clone(),
            guard: guard.clone(),
            actions: actions.clone(),
            label: Some(format!("bind: {}", on.get_ref())),
            span: None,
        });
    }
    Ok(())
}

/// The trigger, guard and actions of a `[[bind]]`'s `on` label (its `note` appended).
pub(super) fn parse_on(
    cx: &Cx,
    bt: &BindToml,
    on: &Spanned<String>,
    a: &Assembly,
) -> Result<(Trigger, Option<Guard>, Vec<Action>), LoadError> {
    let l = label::parse(on.get_ref()).map_err(|e| {
        cx.at(
            on.span(),
            format!("`on = \"{}\"`: {}", clip(on.get_ref()), e.message),
        )
    })?;
    let trigger = match &l.trigger {
        Some(p) => Trigger::Event(p.clone()),
        None if l.guard.is_some() && bt.enter.is_some() => Trigger::Always,
        None => {
            return Err(cx.at(
                on.span(),
                "`on` needs an event (a trigger), or a guard together with `enter`",
            ));
        }
    };
    let guard = match &l.guard {
        Some(g) => Some(
            g.to_guard(&mut |n: &str| a.resolve(n, Some(0)))
                .map_err(|e| cx.at(on.span(), e))?,
        ),
        None => None,
    };
    let mut actions = l.actions;
    if let Some(n) = &bt.note {
        actions.push(Action::Note { text: n.clone() });
    }
    Ok((trigger, guard, actions))
}
