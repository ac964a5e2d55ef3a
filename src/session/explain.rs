//! A call explained in each sequence of a session's views (`seed explain`, the MCP `explain`
//! tool): one text and one JSON object for every face.

use serde_json::{Value, json};

use super::view::View;
use crate::dialects::{self, sequence_search_dirs};
use crate::engine::Event;
use crate::report::explain::{Source, explain_json, explain_text};

/// The text (sequences one after the other) and the JSON object (`{"call", "sequences"}`)
/// of `ev` explained in every view. `sequence` is the name or path the views were loaded
/// with, if one was given: the file the rules' places point into.
pub fn explained(views: &[View], ev: &Event, sequence: Option<&str>) -> (String, Value) {
    let mut texts = Vec::new();
    let mut objects = Vec::new();
    for v in views {
        let e = v.machine.explain(&v.snap, ev);
        let path = source_of(v, sequence);
        let src = Source {
            path: &path,
            files: &v.machine.chart.files,
        };
        texts.push(explain_text(&e, &src).trim_end().to_string());
        objects.push(explain_json(&e, &src));
    }
    let call = objects
        .first()
        .and_then(|o| o["call"].as_str())
        .unwrap_or_default()
        .to_string();
    (
        texts.join("\n\n"),
        json!({ "call": call, "sequences": objects }),
    )
}

/// The file the view's sequence was loaded from (`sequence`, else its name); its name when
/// it is found nowhere any more.
fn source_of(v: &View, sequence: Option<&str>) -> String {
    let name = sequence.unwrap_or(&v.machine.chart.name);
    dialects::resolve(name, &sequence_search_dirs())
        .map(|l| l.source)
        .unwrap_or_else(|_| name.to_string())
}
