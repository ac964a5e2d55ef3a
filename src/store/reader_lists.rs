//! Aggregates over a list in a JSON state file (`ReaderKind::JsonList`): counts, all / any,
//! the newest item, and items missing from another list. Pure functions over a parsed
//! document; the reader host loads the file (bounded) and calls [`aggregate`].

use serde_json::Value;

use crate::engine::guard::compare;
use crate::engine::ir::{CmpOp, ListOp};

/// Longest string a reader hands on (a recovery text quotes it): longer ones are cut.
pub const MAX_TEXT_CHARS: usize = 300;

/// `/a/b` stays; `a.b` (the manifest's short form) becomes `/a/b`; empty is the whole value.
pub fn pointer(p: &str) -> String {
    if p.is_empty() || p.starts_with('/') {
        p.to_string()
    } else {
        format!("/{}", p.replace('.', "/"))
    }
}

fn items(v: &Value) -> Option<Vec<&Value>> {
    match v {
        Value::Array(a) => Some(a.iter().collect()),
        Value::Object(o) => Some(o.values().collect()),
        _ => None,
    }
}

fn field<'a>(item: &'a Value, field: &str) -> Option<&'a Value> {
    item.pointer(&pointer(field))
}

fn holds(item: &Value, f: &str, equals: &Value) -> bool {
    field(item, f).is_some_and(|v| compare(v, CmpOp::Eq, equals))
}

/// A string with escape sequences (whole) and control characters dropped and its length
/// bounded; other values as they are.
pub fn tame(v: Value) -> Value {
    match v {
        Value::String(s) => Value::String(
            crate::engine::sanitize::terminal(&s)
                .chars()
                .filter(|c| !c.is_control())
                .take(MAX_TEXT_CHARS)
                .collect(),
        ),
        other => other,
    }
}

/// The aggregate of `op` over the list at `at` in `doc`; `null` when `at` is not a list.
pub fn aggregate(doc: &Value, at: &str, op: &ListOp) -> Value {
    let Some(list) = doc.pointer(&pointer(at)).and_then(items) else {
        return Value::Null;
    };
    match op {
        ListOp::Count { field: f, equals } => {
            let n = match equals {
                None => list.len(),
                Some(e) => list.iter().filter(|i| holds(i, f, e)).count(),
            };
            Value::from(n as u64)
        }
        ListOp::All { field: f, equals } => {
            Value::Bool(!list.is_empty() && list.iter().all(|i| holds(i, f, equals)))
        }
        ListOp::Any { field: f, equals } => Value::Bool(list.iter().any(|i| holds(i, f, equals))),
        ListOp::Last { field: f } => list
            .last()
            .and_then(|i| field(i, f))
            .cloned()
            .map(tame)
            .unwrap_or(Value::Null),
        ListOp::NotIn { other } => {
            let present = doc
                .pointer(&pointer(other))
                .and_then(items)
                .unwrap_or_default();
            let missing = match doc.pointer(&pointer(at)) {
                Some(Value::Object(o)) => o
                    .keys()
                    .filter(|k| !present.iter().any(|p| p.as_str() == Some(k.as_str())))
                    .count(),
                _ => list.iter().filter(|n| !present.contains(n)).count(),
            };
            Value::from(missing as u64)
        }
    }
}
