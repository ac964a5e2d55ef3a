//! Guard evaluation and data-only actions.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde_json::Value;

use super::decode;
use super::interpolate;
use super::ir::{Action, CmpOp, Guard, InputMatcher, ResultPart};
use super::pattern::input_matches;
use super::snapshot::{Checkpoint, Snapshot};

/// Evaluate a guard against the snapshot (flags, vars, configuration, facts) and the input of
/// the event being processed.
pub fn eval(guard: &Guard, snap: &Snapshot, input: &Value) -> bool {
    eval_in(guard, snap, Some(input))
}

/// Evaluate a guard for a call not made yet: input matchers count as satisfiable (recovery
/// names the input the call needs).
pub fn eval_ignoring_input(guard: &Guard, snap: &Snapshot) -> bool {
    eval_in(guard, snap, None)
}

fn eval_in(guard: &Guard, snap: &Snapshot, input: Option<&Value>) -> bool {
    let eval = |g: &Guard, snap: &Snapshot, input: Option<&Value>| eval_in(g, snap, input);
    match guard {
        Guard::True => true,
        Guard::All { of } => of.iter().all(|g| eval(g, snap, input)),
        Guard::Any { of } => of.iter().any(|g| eval(g, snap, input)),
        Guard::Not { guard } => !eval(guard, snap, input),
        Guard::Flag { name } => snap.flags.get(name).copied().unwrap_or(false),
        Guard::Var { name, op, value } => {
            compare(lookup_var(snap, name).unwrap_or(&Value::Null), *op, value)
        }
        Guard::Count { name, op, value } => {
            let len = match lookup_var(snap, name) {
                Some(Value::Array(a)) => a.len() as f64,
                Some(Value::Object(o)) => o.len() as f64,
                Some(Value::String(s)) => s.chars().count() as f64,
                _ => 0.0,
            };
            compare(&Value::from(len), *op, &Value::from(*value))
        }
        Guard::In { state } => snap.is_active(*state),
        Guard::FileExists { reader } => truthy(snap.facts.get(reader).unwrap_or(&Value::Null)),
        Guard::Reader { name, op, value } => {
            compare(snap.facts.get(name).unwrap_or(&Value::Null), *op, value)
        }
        Guard::Input { pointer, matcher } => input.is_none_or(|i| match matcher {
            // A glob written with `${var}` takes the variables' values as they are now.
            InputMatcher::Glob(g) if g.contains("${") => {
                let scope = interpolate::Scope {
                    vars: &snap.vars,
                    flags: &snap.flags,
                };
                let now = InputMatcher::Glob(interpolate::glob(g, &scope));
                input_matches(i, pointer, &now)
            }
            m => input_matches(i, pointer, m),
        }),
    }
}

/// A variable by name, or a path into one (`config.sources`).
fn lookup_var<'a>(snap: &'a Snapshot, name: &str) -> Option<&'a Value> {
    var_path(&snap.vars, name)
}

/// `name` in `vars`, or a dotted path into one (`config.sources.0`): object keys and list
/// indexes.
pub fn var_path<'a>(vars: &'a BTreeMap<String, Value>, name: &str) -> Option<&'a Value> {
    if let Some(v) = vars.get(name) {
        return Some(v);
    }
    let (head, rest) = name.split_once('.')?;
    let mut cur = vars.get(head)?;
    for part in rest.split('.') {
        cur = match cur {
            Value::Object(o) => o.get(part)?,
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Compare JSON values: numbers numerically (numeric strings count as numbers), strings
/// lexicographically, anything else by equality only. Mismatched types compare false.
pub fn compare(left: &Value, op: CmpOp, right: &Value) -> bool {
    match op {
        CmpOp::Eq => loose_eq(left, right),
        CmpOp::Ne => !loose_eq(left, right),
        CmpOp::Contains => match (left, right) {
            (Value::String(s), Value::String(needle)) => s.contains(needle.as_str()),
            (Value::Array(a), v) => a.iter().any(|x| loose_eq(x, v)),
            (Value::Object(o), Value::String(k)) => o.contains_key(k),
            _ => false,
        },
        _ => {
            let ord = match (as_number(left), as_number(right)) {
                (Some(a), Some(b)) => a.partial_cmp(&b),
                _ => match (left, right) {
                    (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
                    _ => None,
                },
            };
            match ord {
                None => false,
                Some(o) => match op {
                    CmpOp::Lt => o == Ordering::Less,
                    CmpOp::Le => o != Ordering::Greater,
                    CmpOp::Gt => o == Ordering::Greater,
                    CmpOp::Ge => o != Ordering::Less,
                    _ => false,
                },
            }
        }
    }
}

fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
}

fn loose_eq(a: &Value, b: &Value) -> bool {
    if a == b {
        return true;
    }
    match (as_number(a), as_number(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

fn scope(snap: &Snapshot) -> interpolate::Scope<'_> {
    interpolate::Scope {
        vars: &snap.vars,
        flags: &snap.flags,
    }
}

/// Apply data-only actions with the triggering event's input and result (`null` when there
/// is none). Returns the notes they produced.
pub fn apply(
    actions: &[Action],
    snap: &mut Snapshot,
    input: &Value,
    response: &Value,
) -> Vec<String> {
    let mut notes = Vec::new();
    for a in actions {
        match a {
            Action::SetFlag { name, value } => {
                snap.flags.insert(name.clone(), *value);
            }
            Action::SetVar { name, value } => {
                let value = interpolate::value(value, &scope(snap));
                snap.vars.insert(name.clone(), value);
            }
            Action::SetVarFromInput { name, pointer } => {
                let v = input.pointer(pointer).cloned().unwrap_or(Value::Null);
                snap.vars.insert(name.clone(), v);
            }
            Action::SetVarFromResult {
                name,
                from,
                pointer,
                decode: how,
            } => {
                let part = match from {
                    ResultPart::Response => response,
                    ResultPart::Input => input,
                };
                let v = part
                    .pointer(pointer)
                    .map_or(Value::Null, |v| decode::value(v, *how));
                snap.vars.insert(name.clone(), v);
            }
            Action::AppendVar { name, value } => {
                let value = &interpolate::value(value, &scope(snap));
                let slot = snap
                    .vars
                    .entry(name.clone())
                    .or_insert(Value::Array(Vec::new()));
                match slot {
                    Value::Array(a) => a.push(value.clone()),
                    other => *other = Value::Array(vec![other.clone(), value.clone()]),
                }
            }
            Action::MergeVar { name, value } => {
                let value = &interpolate::value(value, &scope(snap));
                let slot = snap
                    .vars
                    .entry(name.clone())
                    .or_insert(Value::Object(Default::default()));
                match (slot, value) {
                    (Value::Object(dst), Value::Object(src)) => {
                        for (k, v) in src {
                            dst.insert(k.clone(), v.clone());
                        }
                    }
                    (slot, v) => *slot = v.clone(),
                }
            }
            Action::Checkpoint { name } => {
                let cp = Checkpoint {
                    flags: snap.flags.clone(),
                    vars: snap.vars.clone(),
                };
                snap.checkpoints.insert(name.clone(), cp);
            }
            Action::Rollback { name } => {
                if let Some(cp) = snap.checkpoints.get(name).cloned() {
                    snap.flags = cp.flags;
                    snap.vars = cp.vars;
                }
            }
            Action::Note { text } => notes.push(interpolate::text(text, &scope(snap))),
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn comparisons() {
        assert!(compare(&json!(8), CmpOp::Ge, &json!(8)));
        assert!(compare(&json!("7"), CmpOp::Lt, &json!(8)));
        assert!(!compare(&json!(null), CmpOp::Gt, &json!(0)));
        assert!(compare(&json!(["a", "b"]), CmpOp::Contains, &json!("b")));
        assert!(compare(&json!("active"), CmpOp::Eq, &json!("active")));
        assert!(!compare(&json!({"a":1}), CmpOp::Lt, &json!(1)));
    }
}
