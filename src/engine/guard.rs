//! Guard evaluation and data-only actions.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde_json::Value;

use super::decode;
use super::interpolate;
use super::ir::{Action, CmpOp, Guard, InputMatcher, PROJECT_DIR_READER, ResultPart};
use super::pattern::input_matches;
use super::snapshot::{Checkpoint, Snapshot};

/// Evaluate a guard against the snapshot (flags, vars, configuration, facts) and the input of
/// the event being processed. The call's result is unknown (a gate: the call has not run).
pub fn eval(guard: &Guard, snap: &Snapshot, input: &Value) -> bool {
    eval_in(guard, snap, Some(input), None).unwrap_or(true)
}

/// [`eval`] for a call that has run: `result` is its result (`null` for none).
pub fn eval_after(guard: &Guard, snap: &Snapshot, input: &Value, result: &Value) -> bool {
    eval_in(guard, snap, Some(input), Some(result)).unwrap_or(true)
}

/// Evaluate a guard for a call not made yet: input matchers count as satisfiable (recovery
/// names the input the call needs).
pub fn eval_ignoring_input(guard: &Guard, snap: &Snapshot) -> bool {
    eval_in(guard, snap, None, None).unwrap_or(true)
}

/// Three-valued: `None` when the guard depends on a result not known yet, so a transition
/// that may fire once the call has run counts as one the call can take.
fn eval_in(
    guard: &Guard,
    snap: &Snapshot,
    input: Option<&Value>,
    result: Option<&Value>,
) -> Option<bool> {
    let eval = |g: &Guard| eval_in(g, snap, input, result);
    Some(match guard {
        Guard::True => true,
        Guard::All { of } => {
            let mut all = Some(true);
            for g in of {
                match eval(g) {
                    Some(false) => return Some(false),
                    None => all = None,
                    Some(true) => {}
                }
            }
            return all;
        }
        Guard::Any { of } => {
            let mut any = Some(false);
            for g in of {
                match eval(g) {
                    Some(true) => return Some(true),
                    None => any = None,
                    Some(false) => {}
                }
            }
            return any;
        }
        Guard::Not { guard } => return eval(guard).map(|b| !b),
        Guard::Flag { name } => snap.flags.get(name).copied().unwrap_or(false),
        Guard::Var { name, op, value } => {
            compare(lookup_var(snap, name).unwrap_or(&Value::Null), *op, value)
        }
        Guard::Count { name, op, value } => {
            let len = items_in(lookup_var(snap, name)) as f64;
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
                let g = in_project(g, snap);
                let now = InputMatcher::Glob(interpolate::glob(&g, &scope));
                input_matches(i, pointer, &now)
            }
            m => input_matches(i, pointer, m),
        }),
        Guard::Result { pointer, op, value } => result_holds(result?, pointer, *op, value),
        Guard::InList { pointer, var } => input.is_none_or(|i| {
            let Some(v) = i.pointer(pointer).and_then(text_of) else {
                return false;
            };
            lookup_var(snap, var).is_some_and(|list| list_covers(list, &v))
        }),
    })
}

/// `${CLAUDE_PROJECT_DIR}` in an input glob is the project's directory, as its reader sampled
/// it: seed 003's relative `data/config.yaml` is the file inside the project, not one of that
/// name anywhere. Unsampled, it stays and becomes `*` like any unknown reference.
fn in_project<'g>(glob: &'g str, snap: &Snapshot) -> std::borrow::Cow<'g, str> {
    let reference = format!("${{{PROJECT_DIR_READER}}}");
    match snap.facts.get(PROJECT_DIR_READER) {
        Some(Value::String(dir)) if !dir.is_empty() && glob.contains(&reference) => {
            glob.replace(&reference, dir.trim_end_matches('/')).into()
        }
        _ => glob.into(),
    }
}

/// A result compared at a pointer; `contains` looks into every string it holds.
fn result_holds(result: &Value, pointer: &str, op: CmpOp, value: &Value) -> bool {
    let part = result.pointer(pointer).unwrap_or(&Value::Null);
    match (op, value) {
        (CmpOp::Contains, Value::String(needle)) => {
            any_text(part, 0, &mut |s| s.contains(needle.as_str()))
        }
        _ => compare(part, op, value),
    }
}

/// Results are bounded by the host; the depth limit keeps a hostile one from recursing far.
const MAX_TEXT_DEPTH: usize = 16;

fn any_text(v: &Value, depth: usize, found: &mut dyn FnMut(&str) -> bool) -> bool {
    if depth > MAX_TEXT_DEPTH {
        return false;
    }
    match v {
        Value::String(s) => found(s),
        Value::Array(a) => a.iter().any(|x| any_text(x, depth + 1, found)),
        Value::Object(o) => o.values().any(|x| any_text(x, depth + 1, found)),
        _ => false,
    }
}

/// A scalar as text (a number's digits); lists and objects are no single value.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(_) | Value::Bool(_) => Some(v.to_string()),
        _ => None,
    }
}

/// Whether a list variable (or a single value) covers `value`: an entry with `*` or `?` is a
/// glob matched ignoring case (`*cargo test*`); any other entry equals it, or is a folder
/// above it (`src` covers `src/lib.rs`). A relative entry covers the same path made absolute
/// (`src/lib.rs` covers `/home/me/p/src/lib.rs`), as the agent passes paths.
pub fn list_covers(list: &Value, value: &str) -> bool {
    let entries: &[Value] = match list {
        Value::Array(a) => a,
        one => std::slice::from_ref(one),
    };
    entries
        .iter()
        .filter_map(text_of)
        .any(|e| entry_covers(&e, value))
}

fn entry_covers(entry: &str, value: &str) -> bool {
    if entry.contains(['*', '?']) {
        return wildmatch::WildMatch::new_case_insensitive(entry).matches(value);
    }
    let entry = trim_path(entry);
    let value = trim_path(value);
    if entry.is_empty() {
        return false;
    }
    let under = |v: &str| {
        v == entry
            || v.strip_prefix(entry)
                .is_some_and(|rest| rest.starts_with(['/', '\\']))
    };
    if under(value) {
        return true;
    }
    // Relative entry, absolute value: the entry is the end of the path, or a folder in it.
    let relative = !entry.starts_with(['/', '\\']) && !entry.contains(':');
    relative
        && [format!("/{entry}"), format!("\\{entry}")]
            .iter()
            .any(|tail| value.ends_with(tail.as_str()) || value.contains(&format!("{tail}/")))
}

fn trim_path(p: &str) -> &str {
    let p = p.strip_prefix("./").unwrap_or(p);
    let t = p.trim_end_matches(['/', '\\']);
    if t.is_empty() { p } else { t }
}

/// The newest entries a [`Action::Remember`] list keeps: a session that reads a whole tree
/// must not make the snapshot every hook loads grow without bound.
pub const MAX_REMEMBERED: usize = 4096;

fn remember(slot: &mut Value, items: &Value) {
    let list = match slot {
        Value::Array(a) => a,
        other => {
            *other = Value::Array(Vec::new());
            match other {
                Value::Array(a) => a,
                _ => return,
            }
        }
    };
    let new: Vec<&Value> = match items {
        Value::Array(a) => a.iter().collect(),
        one => vec![one],
    };
    for item in new {
        let Some(text) = text_of(item).filter(|t| !t.is_empty()) else {
            continue;
        };
        let v = Value::String(text);
        if !list.contains(&v) {
            list.push(v);
        }
    }
    if list.len() > MAX_REMEMBERED {
        let extra = list.len() - MAX_REMEMBERED;
        list.drain(..extra);
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
            _ => apply_to_var(a, snap, input, response),
        }
    }
    notes
}

/// The actions that set one variable.
fn apply_to_var(a: &Action, snap: &mut Snapshot, input: &Value, response: &Value) {
    let part = |from: &ResultPart| match from {
        ResultPart::Response => response,
        ResultPart::Input => input,
    };
    match a {
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
            let v = part(from)
                .pointer(pointer)
                .map_or(Value::Null, |v| decode::value(v, *how));
            snap.vars.insert(name.clone(), v);
        }
        Action::Remember {
            name,
            from,
            pointer,
        } => {
            if let Some(items) = part(from).pointer(pointer) {
                let slot = snap.vars.entry(name.clone()).or_insert(Value::Null);
                remember(slot, items);
            }
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
        Action::MergeVar { name, value } => merge_var(snap, name, value),
        Action::CountVar { name, of } => {
            let n = items_in(lookup_var(snap, of));
            snap.vars.insert(name.clone(), Value::from(n));
        }
        _ => {}
    }
}

fn merge_var(snap: &mut Snapshot, name: &str, value: &Value) {
    let value = &interpolate::value(value, &scope(snap));
    let slot = snap
        .vars
        .entry(name.to_string())
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

/// How many items a value holds, as `len()` counts them.
fn items_in(v: Option<&Value>) -> usize {
    match v {
        Some(Value::Array(a)) => a.len(),
        Some(Value::Object(o)) => o.len(),
        Some(Value::String(s)) => s.chars().count(),
        _ => 0,
    }
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

#[cfg(test)]
mod list_tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn entries_are_globs_paths_or_values() {
        let list = json!(["*cargo test*", "src", "/p/docs/a.md", "7"]);
        assert!(
            list_covers(&list, "CARGO TEST --release"),
            "a glob ignores case"
        );
        assert!(
            list_covers(&list, "/home/me/p/src/lib.rs"),
            "a relative folder"
        );
        assert!(list_covers(&list, "src/lib.rs"));
        assert!(list_covers(&list, "/p/docs/a.md"));
        assert!(list_covers(&list, "7"));
        assert!(
            !list_covers(&list, "/home/me/p/srcs/lib.rs"),
            "not a folder"
        );
        assert!(!list_covers(&list, "/p/docs/a.md.bak"));
        assert!(!list_covers(&json!([]), "x"));
        assert!(!list_covers(&json!([""]), ""));
        assert!(
            list_covers(&json!("./src/"), "/w/src/a"),
            "one value, trimmed"
        );
    }

    proptest! {
        /// A path is covered by itself and by each folder above it, and by nothing that
        /// merely starts like one of them.
        #[test]
        fn a_path_is_under_its_folders(parts in prop::collection::vec("[a-z]{1,6}", 1..6)) {
            let path = format!("/{}", parts.join("/"));
            prop_assert!(list_covers(&json!([path.clone()]), &path));
            for n in 1..parts.len() {
                let folder = format!("/{}", parts[..n].join("/"));
                prop_assert!(list_covers(&json!([folder.clone()]), &path));
                prop_assert!(list_covers(&json!([parts[..n].join("/")]), &path));
                let longer = format!("{folder}x");
                prop_assert!(!list_covers(&json!([longer]), &path));
            }
        }
    }

    #[test]
    fn remembering_keeps_each_value_once_and_the_newest_only() {
        let mut slot = Value::Null;
        remember(&mut slot, &json!(["a", "b", "a", 3, null, {"x": 1}, ""]));
        assert_eq!(slot, json!(["a", "b", "3"]));
        let many: Vec<String> = (0..MAX_REMEMBERED + 2).map(|i| i.to_string()).collect();
        remember(&mut slot, &json!(many));
        let kept = slot.as_array().unwrap();
        assert_eq!(kept.len(), MAX_REMEMBERED);
        assert_eq!(kept.last(), Some(&json!((MAX_REMEMBERED + 1).to_string())));
    }
}
