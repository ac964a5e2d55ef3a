//! Guards written as JSON objects (a constraint's `when`). Each object is one form, named by
//! its one head key; a key the form does not take is an error, not a guess (a misspelt
//! `value` would otherwise compare with `true`).

use serde_json::{Map, Value};

use crate::engine::build::ChartBuilder;
use crate::engine::ir::{CmpOp, Guard, InputMatcher, ReaderDecl, ReaderKind, StateId};

/// What is wrong with a guard, and the keys leading to it inside the guard (for its position).
#[derive(Debug, Clone, PartialEq)]
pub struct GuardError {
    pub path: Vec<String>,
    pub message: String,
}

impl GuardError {
    fn at(key: &str, message: impl Into<String>) -> GuardError {
        GuardError {
            path: vec![key.to_string()],
            message: message.into(),
        }
    }

    fn inside(mut self, key: &str) -> GuardError {
        self.path.insert(0, key.to_string());
        self
    }
}

/// The forms, by head key, with the other keys each one takes.
const FORMS: &[(&str, &[&str])] = &[
    ("all", &[]),
    ("any", &[]),
    ("not", &[]),
    ("flag", &[]),
    ("file_exists", &[]),
    ("reader", &["op", "value"]),
    ("var", &["op", "value"]),
    ("in", &[]),
    ("input", &["value"]),
];

fn heads() -> String {
    FORMS.iter().map(|(h, _)| *h).collect::<Vec<_>>().join(", ")
}

/// Guards in JSON: `{ "reader": "x", "op": "==", "value": v }`, `{ "all": [...] }`,
/// `{ "any": [...] }`, `{ "not": g }`, `{ "flag": "f" }`, `{ "file_exists": "PATH" }`,
/// `{ "var": "x", "op": ">=", "value": v }`, `{ "in": "step or layer" }`,
/// `{ "input": "/pointer", "value": v }`. `states` names the states an `in` means (a tool of
/// the railroad, or every step of a layer), or `None` for a name the sequence does not have.
pub fn parse_guard(
    v: &Value,
    b: &mut ChartBuilder,
    states: &dyn Fn(&str) -> Option<Vec<StateId>>,
) -> Result<Guard, GuardError> {
    let o = v.as_object().ok_or_else(|| GuardError {
        path: Vec::new(),
        message: format!("a guard must be an object with one of {}", heads()),
    })?;
    let head = head(o)?;
    only_its_keys(o, head)?;
    let arg = &o[head];
    let text = |what: &str| {
        arg.as_str()
            .ok_or_else(|| GuardError::at(head, format!("`{head}` must be {what}")))
    };
    Ok(match head {
        "all" | "any" => list(head, arg, b, states)?,
        "not" => Guard::Not {
            guard: Box::new(parse_guard(arg, b, states).map_err(|e| e.inside(head))?),
        },
        "flag" => Guard::Flag {
            name: text("a flag name")?.into(),
        },
        "file_exists" => file_exists(b, text("a path")?),
        "reader" | "var" => {
            let name = text("a name")?.to_string();
            let op = op(o)?;
            let value = o.get("value").cloned().unwrap_or(Value::Bool(true));
            if head == "reader" {
                Guard::Reader { name, op, value }
            } else {
                Guard::Var { name, op, value }
            }
        }
        "in" => in_places(
            text("a step (a tool of tool_transitions) or a layer")?,
            states,
        )?,
        _ => input(
            text("a JSON pointer into the call's input, e.g. \"/stage\"")?,
            o.get("value"),
        ),
    })
}

/// The guard's form: the one head key of the object.
fn head(o: &Map<String, Value>) -> Result<&'static str, GuardError> {
    let found: Vec<&str> = FORMS
        .iter()
        .map(|(h, _)| *h)
        .filter(|h| o.contains_key(*h))
        .collect();
    match found.as_slice() {
        [one] => Ok(one),
        [] => {
            let first = o.keys().next().map(String::as_str).unwrap_or("");
            Err(GuardError::at(
                first,
                format!("a guard needs one of {}", heads()),
            ))
        }
        [a, b, ..] => Err(GuardError::at(
            b,
            format!(
                "a guard is one form: `{a}` and `{b}` in one object (nest them, e.g. {{\"all\": [{{…}}, {{\"any\": […]}}]}})"
            ),
        )),
    }
}

/// A key the form does not take is an error, not a guess.
fn only_its_keys(o: &Map<String, Value>, head: &str) -> Result<(), GuardError> {
    let takes = FORMS
        .iter()
        .find(|(h, _)| *h == head)
        .map_or(&[][..], |(_, t)| *t);
    let Some(k) = o
        .keys()
        .find(|k| k.as_str() != head && !takes.contains(&k.as_str()))
    else {
        return Ok(());
    };
    let also = if takes.is_empty() {
        "nothing else".to_string()
    } else {
        takes.join(" and ")
    };
    Err(GuardError::at(
        k,
        format!("unknown key `{k}` in a `{head}` guard: it takes {also}"),
    ))
}

/// `all` / `any` of a non-empty list of guards.
fn list(
    head: &str,
    arg: &Value,
    b: &mut ChartBuilder,
    states: &dyn Fn(&str) -> Option<Vec<StateId>>,
) -> Result<Guard, GuardError> {
    let items = arg
        .as_array()
        .ok_or_else(|| GuardError::at(head, format!("`{head}` must be an array of guards")))?;
    // `all` of nothing always holds and `any` of nothing never does: either is a guard left
    // unfinished, not a condition.
    if items.is_empty() {
        return Err(GuardError::at(
            head,
            format!("`{head}` must list at least one guard"),
        ));
    }
    let of = items
        .iter()
        .map(|g| parse_guard(g, b, states).map_err(|e| e.inside(head)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(if head == "all" {
        Guard::All { of }
    } else {
        Guard::Any { of }
    })
}

/// `file_exists`: a reader of its own, declared once per path.
fn file_exists(b: &mut ChartBuilder, path: &str) -> Guard {
    let name = format!("file_exists:{path}");
    if b.chart().reader(&name).is_none() {
        b.chart_mut().readers.push(ReaderDecl {
            name: name.clone(),
            kind: ReaderKind::FileExists { path: path.into() },
            description: None,
        });
    }
    Guard::FileExists { reader: name }
}

/// `in`: the railroad is at a step, or at any step of a layer.
fn in_places(
    name: &str,
    states: &dyn Fn(&str) -> Option<Vec<StateId>>,
) -> Result<Guard, GuardError> {
    let ids = states(name).ok_or_else(|| {
        GuardError::at(
            "in",
            format!("`in` names `{name}`, which is neither a tool of tool_transitions nor a layer"),
        )
    })?;
    Ok(match ids.as_slice() {
        [one] => Guard::In { state: *one },
        _ => Guard::Any {
            of: ids.iter().map(|s| Guard::In { state: *s }).collect(),
        },
    })
}

/// `input`: the call's input at a pointer is present, matches a glob, or equals a value.
fn input(raw: &str, value: Option<&Value>) -> Guard {
    let pointer = if raw.starts_with('/') {
        raw.to_string()
    } else {
        format!("/{raw}")
    };
    // As in `next_allowed` inputs: a string is a glob, anything else must be equal.
    let matcher = match value {
        None => InputMatcher::Present,
        Some(Value::String(g)) => InputMatcher::Glob(g.clone()),
        Some(other) => InputMatcher::Equals(other.clone()),
    };
    Guard::Input { pointer, matcher }
}

fn op(o: &Map<String, Value>) -> Result<CmpOp, GuardError> {
    let Some(v) = o.get("op") else {
        return Ok(CmpOp::Eq);
    };
    Ok(match v.as_str().unwrap_or("") {
        "==" | "eq" => CmpOp::Eq,
        "!=" | "ne" => CmpOp::Ne,
        "<" | "lt" => CmpOp::Lt,
        "<=" | "le" => CmpOp::Le,
        ">" | "gt" => CmpOp::Gt,
        ">=" | "ge" => CmpOp::Ge,
        "contains" => CmpOp::Contains,
        _ => {
            return Err(GuardError::at(
                "op",
                format!("unknown operator {v}: expected ==, !=, <, <=, >, >= or contains"),
            ));
        }
    })
}
