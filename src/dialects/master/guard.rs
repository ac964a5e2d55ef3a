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
    let found: Vec<&str> = FORMS
        .iter()
        .map(|(h, _)| *h)
        .filter(|h| o.contains_key(*h))
        .collect();
    let head = match found.as_slice() {
        [one] => *one,
        [] => {
            let first = o.keys().next().map(String::as_str).unwrap_or("");
            return Err(GuardError::at(
                first,
                format!("a guard needs one of {}", heads()),
            ));
        }
        [a, b, ..] => {
            return Err(GuardError::at(
                b,
                format!(
                    "a guard is one form: `{a}` and `{b}` in one object (nest them, e.g. {{\"all\": [{{…}}, {{\"any\": […]}}]}})"
                ),
            ));
        }
    };
    let takes = FORMS
        .iter()
        .find(|(h, _)| *h == head)
        .map_or(&[][..], |(_, t)| *t);
    if let Some(k) = o
        .keys()
        .find(|k| k.as_str() != head && !takes.contains(&k.as_str()))
    {
        let also = if takes.is_empty() {
            "nothing else".to_string()
        } else {
            takes.join(" and ")
        };
        return Err(GuardError::at(
            k,
            format!("unknown key `{k}` in a `{head}` guard: it takes {also}"),
        ));
    }
    let arg = &o[head];
    let text = |what: &str| {
        arg.as_str()
            .ok_or_else(|| GuardError::at(head, format!("`{head}` must be {what}")))
    };
    Ok(match head {
        "all" | "any" => {
            let items = arg.as_array().ok_or_else(|| {
                GuardError::at(head, format!("`{head}` must be an array of guards"))
            })?;
            // `all` of nothing always holds and `any` of nothing never does: either is a
            // guard left unfinished, not a condition.
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
            if head == "all" {
                Guard::All { of }
            } else {
                Guard::Any { of }
            }
        }
        "not" => Guard::Not {
            guard: Box::new(parse_guard(arg, b, states).map_err(|e| e.inside(head))?),
        },
        "flag" => Guard::Flag {
            name: text("a flag name")?.into(),
        },
        "file_exists" => {
            let path = text("a path")?;
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
        "in" => {
            let name = text("a step (a tool of tool_transitions) or a layer")?;
            let ids = states(name).ok_or_else(|| {
                GuardError::at(
                    head,
                    format!("`in` names `{name}`, which is neither a tool of tool_transitions nor a layer"),
                )
            })?;
            match ids.as_slice() {
                [one] => Guard::In { state: *one },
                _ => Guard::Any {
                    of: ids.iter().map(|s| Guard::In { state: *s }).collect(),
                },
            }
        }
        _ => {
            let raw = text("a JSON pointer into the call's input, e.g. \"/stage\"")?;
            let pointer = if raw.starts_with('/') {
                raw.to_string()
            } else {
                format!("/{raw}")
            };
            // As in `next_allowed` inputs: a string is a glob, anything else must be equal.
            let matcher = match o.get("value") {
                None => InputMatcher::Present,
                Some(Value::String(g)) => InputMatcher::Glob(g.clone()),
                Some(other) => InputMatcher::Equals(other.clone()),
            };
            Guard::Input { pointer, matcher }
        }
    })
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
