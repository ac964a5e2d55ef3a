//! Mermaid files as editors write them: a UTF-8 byte-order mark at the start, and the fix an
//! error suggests for a name that is not a valid state id.

use crate::support::mermaid as mermaid_common;

use std::collections::HashMap;

use mermaid_common::diagram::{error, load, walk};
use seed::dialects::{LoadError, Loaded, load_text};
use seed::engine::Event;
use serde_json::Value;

const BOM: &str = "\u{feff}";

fn manifest(text: &str, diagram: &str) -> Result<Loaded, LoadError> {
    let files: HashMap<String, String> = [("top.mmd".to_string(), diagram.to_string())].into();
    load_text("m.toml", text, &|rel| files.get(rel).cloned())
}

#[test]
fn a_byte_order_mark_before_the_header_is_skipped() {
    let text =
        format!("{BOM}stateDiagram-v2\n  [*] --> a\n  a --> b : Edit\n  b --> [*] : Write\n");
    let l = load(&text);
    assert_eq!(walk(&l, &[]), vec!["a"]);
    assert_eq!(walk(&l, &[Event::tool("Edit", Value::Null)]), vec!["b"]);
    // The same with Windows line ends and front matter after the mark.
    let text = format!(
        "{BOM}---\r\ntitle: t\r\n---\r\nstateDiagram-v2\r\n  [*] --> a\r\n  a --> [*] : Edit\r\n"
    );
    assert_eq!(walk(&load(&text), &[]), vec!["a"]);
}

#[test]
fn positions_after_a_byte_order_mark_are_the_editors() {
    // The mark is invisible: an error on line 1 is at the column the author sees.
    let e = error(&format!("{BOM}stateDiagram-v3\n"));
    assert_eq!((e.line, e.col), (1, 1), "{e}");
    assert!(e.message.contains("found `stateDiagram-v3`"), "{e}");
    let e = error(&format!("{BOM}stateDiagram-v2\n  A --> B\n  }}\n"));
    assert_eq!((e.line, e.col), (3, 3), "{e}");
}

#[test]
fn only_one_leading_mark_is_skipped() {
    // A second mark is text: the header is then not `stateDiagram-v2`.
    let e = error(&format!("{BOM}{BOM}stateDiagram-v2\n"));
    assert!(e.message.contains("expected `stateDiagram-v2`"), "{e}");
}

#[test]
fn a_manifest_and_its_diagram_may_both_start_with_a_mark() {
    let diagram = format!("{BOM}stateDiagram-v2\n  [*] --> a\n  a --> [*] : Edit\n");
    let text = format!("{BOM}name = \"m\"\ndiagram = \"top.mmd\"\n");
    let l = manifest(&text, &diagram).unwrap_or_else(|e| panic!("should load: {e}"));
    assert_eq!(l.chart.name, "m");
    assert_eq!(walk(&l, &[]), vec!["a"]);
}

#[test]
fn an_invalid_id_is_told_a_declaration_that_loads() {
    for (name, label, id) in [
        ("\"B\"", "B", "B"),
        ("heaven-subagent", "heaven-subagent", "heaven_subagent"),
        ("\"B-2\"", "B-2", "B_2"),
        ("-", "-", "state"),
    ] {
        for edge in [format!("ok --> {name}"), format!("{name} --> ok")] {
            let e = error(&format!("stateDiagram-v2\n  [*] --> ok\n  {edge}\n"));
            let fix = format!("write `state \"{label}\" as {id}`");
            assert!(e.message.ends_with(&fix), "{edge}: {e}");
        }
        let fix = format!("state \"{label}\" as {id}");
        // The suggestion is itself a valid declaration: the diagram loads with it.
        let fixed = format!("stateDiagram-v2\n  {fix}\n  [*] --> ok\n  ok --> {id}\n");
        let l = load(&fixed);
        assert!(
            l.chart
                .states
                .iter()
                .any(|s| s.key == id && s.label == label),
            "{fixed}"
        );
    }
}
