//! Per-item readers (`[each]`, seed 002's organs): the items a state file lists, and for each
//! the values of the chart's readers as if the file held that item alone — its lists narrowed
//! to the entries naming it, the readers of other files pointed at its own file.

use std::path::Path;
use std::time::SystemTime;

use serde_json::Value;

use super::reader_lists;
use super::readers::{self, Budget, ReaderVars};
use super::redact;
use crate::engine::Facts;
use crate::engine::ir::{Each, ReaderDecl, ReaderKind};

/// Items followed at most; more are left out (and counted).
pub const MAX_ITEMS: usize = 64;

/// One item and the facts its files give for it (only the readers that read it).
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub name: String,
    pub facts: Facts,
}

/// The items and their facts, in the file's order, and how many were left out past
/// [`MAX_ITEMS`]. None when the file or its list cannot be read.
pub fn sample(
    each: &Each,
    decls: &[ReaderDecl],
    vars: &ReaderVars,
    now: SystemTime,
) -> (Vec<Item>, usize) {
    let Some(file) = readers::expand(&each.path, vars) else {
        return (Vec::new(), 0);
    };
    let Some(doc) = readers::newest_json(&file, &mut Budget::per_reader()) else {
        return (Vec::new(), 0);
    };
    let names = names(&doc, &each.pointer);
    let left_out = names.len().saturating_sub(MAX_ITEMS);
    let items = names
        .into_iter()
        .take(MAX_ITEMS)
        .map(|name| {
            let narrowed = narrow(&doc, each, &name);
            let facts = decls
                .iter()
                .filter_map(|d| {
                    let mut v = item_value(each, d, &file, &narrowed, &name, vars, now)?;
                    redact::redact_value(&mut v);
                    Some((d.name.clone(), v))
                })
                .collect();
            Item { name, facts }
        })
        .collect();
    (items, left_out)
}

/// The keys of the object at `pointer`, or the strings of the list there.
fn names(doc: &Value, pointer: &str) -> Vec<String> {
    match doc.pointer(&reader_lists::pointer(pointer)) {
        Some(Value::Object(o)) => o.keys().cloned().collect(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    }
}

/// The document as if it listed `item` alone: the items' object or list, and every list
/// `each.narrow` names, keep only the entries naming it.
pub fn narrow(doc: &Value, each: &Each, item: &str) -> Value {
    let mut out = doc.clone();
    let names_it = |entry: &Value, field: &str| {
        let v = if field.is_empty() {
            Some(entry)
        } else {
            entry.pointer(&reader_lists::pointer(field))
        };
        v.and_then(Value::as_str) == Some(item)
    };
    if let Some(v) = out.pointer_mut(&reader_lists::pointer(&each.pointer)) {
        match v {
            Value::Object(o) => o.retain(|k, _| k == item),
            Value::Array(a) => a.retain(|e| names_it(e, "")),
            _ => {}
        }
    }
    for (list, field) in &each.narrow {
        if let Some(Value::Array(a)) = out.pointer_mut(&reader_lists::pointer(list)) {
            a.retain(|e| names_it(e, field));
        }
    }
    out
}

/// A reader's value for one item: read from the narrowed document when it reads the items'
/// file, from the item's own path when `each.paths` gives one; `None` for the others (the
/// session's value stands).
fn item_value(
    each: &Each,
    d: &ReaderDecl,
    file: &Path,
    narrowed: &Value,
    item: &str,
    vars: &ReaderVars,
    now: SystemTime,
) -> Option<Value> {
    if let Some(path) = each.paths.get(&d.name) {
        let path = path.replace("${EACH_PATH}", &item.replace('.', "/"));
        return Some(readers::evaluate(&with_path(&d.kind, path), vars, now));
    }
    let json = matches!(
        d.kind,
        ReaderKind::Json { .. } | ReaderKind::JsonList { .. }
    );
    (json && readers::expand(d.kind.path(), vars).as_deref() == Some(file))
        .then(|| reader_lists::tame(readers::evaluate_doc(&d.kind, narrowed)))
}

fn with_path(kind: &ReaderKind, path: String) -> ReaderKind {
    let mut k = kind.clone();
    match &mut k {
        ReaderKind::Json { path: p, .. }
        | ReaderKind::JsonList { path: p, .. }
        | ReaderKind::FileExists { path: p }
        | ReaderKind::Count { path: p }
        | ReaderKind::Age { path: p }
        | ReaderKind::Contains { path: p, .. }
        | ReaderKind::Dir { path: p } => *p = path,
        ReaderKind::OnPath { .. } => {}
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn each() -> Each {
        Each {
            name: "organ".into(),
            path: "dna.json".into(),
            pointer: "/blueprint".into(),
            narrow: [
                ("/failures".to_string(), "/module_name".to_string()),
                ("/active_modules".to_string(), String::new()),
            ]
            .into(),
            paths: Default::default(),
            progress: None,
        }
    }

    #[test]
    fn an_item_s_document_keeps_only_its_entries() {
        let doc = json!({
            "blueprint": { "a.x": {}, "b.y": {} },
            "failures": [{ "module_name": "b.y", "error_type": "import" }],
            "active_modules": ["a.x"],
            "goals": [{ "achieved": true }],
        });
        assert_eq!(names(&doc, "/blueprint"), ["a.x", "b.y"]);
        let a = narrow(&doc, &each(), "a.x");
        assert_eq!(a["blueprint"], json!({ "a.x": {} }));
        assert_eq!(a["failures"], json!([]));
        assert_eq!(a["active_modules"], json!(["a.x"]));
        assert_eq!(
            a["goals"], doc["goals"],
            "what is not narrowed is the whole's"
        );
        let b = narrow(&doc, &each(), "b.y");
        assert_eq!(b["failures"][0]["error_type"], "import");
        assert_eq!(b["active_modules"], json!([]));
    }

    #[test]
    fn no_list_no_items() {
        assert!(names(&json!({ "blueprint": 3 }), "/blueprint").is_empty());
        assert!(names(&json!([]), "/blueprint").is_empty());
    }
}
