//! The what-if replay: every session through the draft as the engine runs it, enforced, so
//! each call it would have refused is counted (the same replay as `seed replay --sequence`).

use std::sync::Arc;

use serde::Serialize;

use crate::dialects;
use crate::engine::Machine;
use crate::engine::ir::{Enforcement, OffPathPolicy};
use crate::replay::summary;
use crate::session::source;
use crate::tui::Seq;

use super::draft::Draft;

#[derive(Debug, Clone, Serialize)]
pub struct Refusal {
    /// Index of the call's record in its session.
    pub index: usize,
    pub call: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionReport {
    pub source: String,
    pub session: String,
    /// Calls the session made.
    pub calls: usize,
    /// Calls the draft, enforced, would have refused.
    pub refused: usize,
    /// The first of them.
    pub first_refused: Vec<Refusal>,
}

/// Shown per session: enough to see where the draft and the session part.
const SHOWN_REFUSALS: usize = 3;

/// The draft's machine, enforced: what-if counts the calls it would refuse.
pub fn machine(name: &str, draft: &Draft) -> Result<Machine, String> {
    let diagram = draft.diagram.clone();
    let file = draft.diagram_file.clone();
    let resolve = move |rel: &str| (rel == file).then(|| diagram.clone());
    let loaded = dialects::load_text(&format!("{name}.toml"), &draft.manifest, &resolve)
        .map_err(|e| format!("the draft does not load (a bug in seed learn): {e}"))?;
    let mut chart = loaded.chart;
    chart.settings.enforcement = Enforcement::Enforce;
    chart.settings.off_path = OffPathPolicy::Deny;
    Ok(Machine::new(chart))
}

pub fn replay(machine: &Arc<Machine>, loaded: &source::Loaded) -> SessionReport {
    let seq = Seq {
        name: machine.chart.name.clone(),
        machine: machine.clone(),
        follows_log: false,
    };
    let s = summary::summarize(loaded, Some(&seq), true);
    SessionReport {
        source: loaded.path.display().to_string(),
        session: loaded.session.clone(),
        calls: s.tool_calls,
        refused: s.denied.len(),
        first_refused: s
            .denied
            .iter()
            .take(SHOWN_REFUSALS)
            .map(|d| Refusal {
                index: d.index,
                call: d.tool.clone(),
                reason: d.reason.clone(),
            })
            .collect(),
    }
}
