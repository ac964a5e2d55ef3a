//! The MCP servers each sequence the installation steps calls, and whether Claude Code's
//! configuration provides them: a call to a server it lacks ends in "No such tool available",
//! which no hook hears, so the sequence would wait for it forever.

use std::path::Path;

use serde_json::{Value, json};

use crate::commands::install::checks;
use crate::engine::Machine;
use crate::hosted::{self, Provided};

/// `{ "problems": [line…], "needs": [{ "sequence", "server", "tools", "provided", "line",
/// "fix" }…], "deep_state": [{ "sequence", "line" }…] }` for the sequences `names` (each once; one that does not load is the sequence
/// check's to report).
pub fn check(project: &Path, names: &[String]) -> Value {
    let env = |k: &str| std::env::var(k).ok();
    let reading = hosted::read(project, &env);
    let mut needs = Vec::new();
    let mut deep_state = Vec::new();
    for name in names {
        let Ok(loaded) = checks::load(name, project) else {
            continue;
        };
        let machine = Machine::new(loaded.chart);
        if let Some(n) = crate::report::deep_state::unset_notice(&machine.chart, &env) {
            deep_state.push(json!({ "sequence": machine.chart.name, "line": n }));
        }
        for f in hosted::findings(&machine, &reading) {
            let provided = match &f.provided {
                Provided::Yes => "yes",
                Provided::Unapproved => "unapproved",
                Provided::No => "no",
                Provided::OneOf(_) => "one_of",
            };
            needs.push(json!({
                "sequence": machine.chart.name, "server": f.server, "tools": f.tools,
                "provided": provided, "line": f.line(), "fix": f.fix(),
            }));
        }
    }
    json!({ "problems": reading.problems, "needs": needs, "deep_state": deep_state })
}

/// Whether every server a sequence needs is there (or may be, once approved).
pub fn ok(report: &Value) -> bool {
    report["needs"]
        .as_array()
        .is_none_or(|n| n.iter().all(|n| n["provided"] != "no"))
}
