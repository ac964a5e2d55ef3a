//! `user_prompt` nodes: wait for `AskUserQuestion`; each `on_response` handler is a transition
//! guarded on the answer, with its consequences as actions.

use serde_json::Value;

use super::compile::{Cx, scope};
use super::flow::{add, flow, wire};
use super::schema::{Node, Sp, span_of};
use crate::dialects::LoadError;
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{Action, Decode, Guard, InputMatcher, ResultPart, Span, StateId, Trigger};
use crate::engine::pattern::Pattern;

/// How an answer is recognized: Claude Code's `AskUserQuestion` input carries `answers`
/// (question text → chosen label). A handler matches when the JSON of `answers` contains the
/// option's label, or its id, as a whole JSON string, e.g. `*"Git repository"*`.
pub fn answer_guard(id: &str, label: &str) -> Guard {
    let matcher = |s: &str| Guard::Input {
        pointer: "/answers".into(),
        matcher: InputMatcher::Glob(format!("*{}*", Value::String(s.to_string()))),
    };
    if id == label {
        matcher(label)
    } else {
        Guard::Any {
            of: vec![matcher(label), matcher(id)],
        }
    }
}

/// An option of the prompt: its id, its label, where it is written.
type Choice = (String, String, Span);

/// The handler taken for answers no option names: its entry, actions and position.
type Default = (StateId, Vec<Action>, Span);

pub fn compile(
    cx: &mut Cx,
    b: &mut ChartBuilder,
    name: &Sp<String>,
    n: &Node,
    id: StateId,
) -> Result<(), LoadError> {
    let at = span_of(name);
    let p = n.prompt.as_ref().ok_or_else(|| {
        cx.err(
            at,
            format!("user_prompt node `{}` needs `prompt`", name.value),
        )
    })?;
    let question = p
        .value
        .question
        .clone()
        .ok_or_else(|| cx.err(span_of(p), "`prompt` needs `question`"))?;
    let options = choices(cx, name, p)?;
    let handlers = match &n.on_response {
        Some(h) if !h.0.is_empty() => h,
        _ => {
            return Err(cx.err(
                at,
                format!(
                    "user_prompt node `{}` needs `on_response` handlers",
                    name.value
                ),
            ));
        }
    };
    let ask = Pattern::exact_tool("AskUserQuestion");
    let st = b.state_mut(id);
    st.activity = Some(ask.clone());
    st.notes.push(question);
    let record = recorded(name, n);
    let mut default = None;
    for (key, h) in &handlers.0 {
        let (entry, actions) = handler(cx, b, name, key, h, &record)?;
        let option = options
            .iter()
            .find(|(oid, label, _)| *oid == key.value || *label == key.value);
        match option {
            Some((oid, label, _)) => add(
                b,
                id,
                Some(entry),
                Trigger::Event(ask.clone()),
                Some(answer_guard(oid, label)),
                actions,
                &key.value,
                span_of(key),
            ),
            None if key.value == "default" => default = Some((entry, actions, span_of(key))),
            None => return Err(unmatched(cx, name, key, &options)),
        }
    }
    otherwise(cx, b, name, id, handlers, &options, default);
    Ok(())
}

/// The prompt's options, with a warning when AskUserQuestion cannot show them all.
fn choices(
    cx: &mut Cx,
    name: &Sp<String>,
    p: &Sp<super::schema::Prompt>,
) -> Result<Vec<Choice>, LoadError> {
    let mut options: Vec<Choice> = Vec::new();
    for o in &p.value.options {
        let label = o
            .value
            .label
            .clone()
            .ok_or_else(|| cx.err(span_of(o), "each prompt option needs a `label`"))?;
        options.push((
            o.value.id.clone().unwrap_or_else(|| label.clone()),
            label,
            span_of(o),
        ));
    }
    if !(2..=4).contains(&options.len()) {
        cx.warn("workflow-prompt-options", format!(
            "`{}` offers {} options: AskUserQuestion shows 2 to 4 (typed answers go to a `default` handler)", name.value, options.len()
        ), span_of(p));
    }
    Ok(options)
}

/// What every answer records: the answers map, and the chosen answer under `store_as`.
fn recorded(name: &Sp<String>, n: &Node) -> Vec<Action> {
    let mut record = vec![Action::SetVarFromInput {
        name: format!("user_responses.{}", name.value),
        pointer: "/answers".into(),
    }];
    // `store_as`: the chosen answer (a typed URL, an option's label), not the whole map.
    if let Some(var) = &n.store_as {
        record.push(Action::SetVarFromResult {
            name: var.clone(),
            from: ResultPart::Input,
            pointer: "/answers".into(),
            decode: Decode::First,
        });
    }
    record
}

/// A handler's way on: where its consequences start, and the actions of the answer.
fn handler(
    cx: &mut Cx,
    b: &mut ChartBuilder,
    name: &Sp<String>,
    key: &Sp<String>,
    h: &Sp<super::schema::Handler>,
    record: &[Action],
) -> Result<(StateId, Vec<Action>), LoadError> {
    let next = h.value.next_node.as_ref().ok_or_else(|| {
        cx.err(
            span_of(key),
            format!("response `{}` needs `next_node`", key.value),
        )
    })?;
    let target = cx.target(next)?;
    let f = flow(cx, h.value.consequence.as_ref(), false)?;
    let entry = wire(
        cx,
        b,
        &scope(&name.value, &key.value),
        &f,
        target,
        span_of(next),
    )?;
    let mut actions = record.to_vec();
    actions.extend(f.head);
    Ok((entry, actions))
}

fn unmatched(cx: &Cx, name: &Sp<String>, key: &Sp<String>, options: &[Choice]) -> LoadError {
    let ids: Vec<&str> = options.iter().map(|(i, _, _)| i.as_str()).collect();
    cx.err(
        span_of(key),
        format!(
            "response `{}` matches no option of `{}`: expected one of {} or `default`",
            key.value,
            name.value,
            ids.join(", ")
        ),
    )
}

/// Answers no handler names: the `default` handler, else the node keeps waiting (and each
/// option without a handler is warned about).
fn otherwise(
    cx: &mut Cx,
    b: &mut ChartBuilder,
    name: &Sp<String>,
    id: StateId,
    handlers: &super::schema::OrderedMap<Sp<super::schema::Handler>>,
    options: &[Choice],
    default: Option<Default>,
) {
    let ask = Pattern::exact_tool("AskUserQuestion");
    if let Some((entry, actions, span)) = default {
        add(
            b,
            id,
            Some(entry),
            Trigger::Event(ask),
            None,
            actions,
            "default",
            span,
        );
        return;
    }
    for (oid, label, span) in options {
        if handlers.get(oid).is_none() && handlers.get(label).is_none() {
            cx.warn("workflow-unhandled-option", format!(
                "option `{oid}` of `{}` has no handler: choosing it leaves the workflow waiting", name.value
            ), *span);
        }
    }
    // Asking (PreToolUse) and unrecognized answers are allowed and keep the node waiting.
    add(
        b,
        id,
        None,
        Trigger::Event(ask),
        None,
        Vec::new(),
        "ask",
        span_of(name),
    );
}
