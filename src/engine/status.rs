//! The one view every face shows (CLI `status`, the TUI, prompt injection, MCP): computed here
//! once, from the chart and the snapshot.
#![warn(clippy::too_many_lines)] // Past 80 lines (clippy.toml) a function is split or says why.

mod allowed;
mod guidance;
mod lists;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ir::{Enforcement, StateId, StateKind};
use super::machine::Machine;
use super::progress::Progress;
use super::recovery::{NextStep, Recovery};
use super::snapshot::Snapshot;
use super::verdict::current_label;

pub use allowed::Allowed;
pub use guidance::truncate_chars;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolRule {
    pub pattern: String,
    /// State label and its tier (region).
    pub by: String,
}

/// A call the sequence expected that failed, and what it failed with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailedCall {
    /// As the agent makes it (`mcp__starlog__check`).
    pub call: String,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    pub sequence: String,
    pub description: String,
    pub dialect: String,
    pub enforcement: Enforcement,
    /// Keys of the active atomic states.
    pub current: Vec<String>,
    /// `root ▸ compound ▸ leaf`, regions joined with `∥`.
    pub breadcrumb: String,
    /// Label of the current step.
    pub step: String,
    /// The step is named after the call that led to it (a railroad's): it is the last call
    /// made, not one to make (`wording::position`).
    #[serde(default)]
    pub step_is_call: bool,
    pub progress: Progress,
    /// Calls that are legal now: the expected ones first, then neutral tools and allow lists;
    /// any call at a step that lets everything through (`["*"]` in JSON).
    pub allowed: Allowed,
    pub denied: Vec<ToolRule>,
    pub neutral: Vec<String>,
    pub next: Option<NextStep>,
    pub recovery: Recovery,
    pub halted: bool,
    pub failed: Option<String>,
    /// The last step never settled: eventless transitions kept firing until the microstep
    /// cap (a fault of the sequence, not of the agent).
    pub livelock: bool,
    /// The newest call denied since the configuration last changed, spelled as the hook's
    /// refusal spells it (`mcp__hestai__odyssean_anchor(stage="bind")`: the input values the
    /// sequence tells its steps apart by); `recovery` shows the way to it.
    pub denied_call: Option<String>,
    /// The newest call the sequence expected that failed since the configuration last
    /// changed; recovery's first suggestion says it with its error.
    #[serde(default)]
    pub failed_call: Option<FailedCall>,
    pub events: u64,
    /// The sequence's variables that hold a value (the tier an init call chose, an answer…).
    #[serde(default)]
    pub vars: BTreeMap<String, Value>,
    /// Every flag and its value (seed 004's artifacts: `intent_brief`, `shape_done`…).
    #[serde(default)]
    pub flags: BTreeMap<String, bool>,
}

impl Machine {
    pub fn status(&self, snap: &Snapshot) -> Status {
        let chart = &self.chart;
        let reach = self.reach(snap);
        let progress = self.progress_with(snap, &reach);
        let mut recovery = self.recovery_with(snap, snap.denied.as_ref(), &reach);
        let failed_call = snap.failed_call.as_ref().map(|ev| FailedCall {
            call: super::verdict::called_as_judged(self, &ev.as_call()),
            error: ev.response.as_str().map(String::from),
        });
        if let Some(f) = &failed_call {
            let said = super::wording::failed_call_text(&f.call, f.error.as_deref());
            recovery.suggestions.insert(0, said);
        }
        let lists = self.tool_lists(snap, &recovery, progress.ended.is_some());
        Status {
            sequence: chart.name.clone(),
            description: chart.description.clone(),
            dialect: chart.dialect.as_str().into(),
            enforcement: chart.settings.enforcement,
            current: self
                .atomic_active(snap)
                .iter()
                .map(|s| chart.state(*s).key.clone())
                .collect(),
            breadcrumb: self.breadcrumb(snap, StateId::ROOT),
            step: current_label(self, snap),
            step_is_call: self.step_is_call(snap),
            next: recovery.next.first().cloned(),
            progress,
            allowed: lists.allowed,
            denied: lists.denied,
            neutral: lists.neutral,
            recovery,
            halted: snap.halted,
            failed: snap.failed.map(|f| chart.state(f).label.clone()),
            livelock: snap.livelock,
            denied_call: snap
                .denied
                .as_ref()
                .map(|ev| super::verdict::called_as_judged(self, ev)),
            failed_call,
            events: snap.steps,
            vars: snap
                .vars
                .iter()
                .filter(|(_, v)| !v.is_null() && v.as_str() != Some(""))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            flags: snap.flags.clone(),
        }
    }

    /// Every current step (outside monitor regions) was entered by the call it is named after.
    pub(crate) fn step_is_call(&self, snap: &Snapshot) -> bool {
        let steps: Vec<StateId> = self
            .atomic_active(snap)
            .into_iter()
            .filter(|s| !self.is_monitor(*s))
            .collect();
        !steps.is_empty() && steps.iter().all(|s| self.chart.state(*s).complete_on_entry)
    }

    /// The configuration as a path: `hope ▸ loop ▸ wave_execution`, regions in `{a ∥ b}`.
    pub fn breadcrumb(&self, snap: &Snapshot, from: StateId) -> String {
        let chart = &self.chart;
        let st = chart.state(from);
        let name = if from == StateId::ROOT {
            chart.name.clone()
        } else {
            st.label.clone()
        };
        match &st.kind {
            StateKind::Parallel => {
                // A monitor's region resting where it starts (a deep-state constraint that
                // does not apply) has nothing to say.
                let parts: Vec<String> = st
                    .children
                    .iter()
                    .filter(|c| snap.is_active(**c) && !self.at_rest(snap, **c))
                    .map(|c| self.breadcrumb(snap, *c))
                    .collect();
                match parts.as_slice() {
                    [] => name,
                    [one] if from != StateId::ROOT => format!("{name} ▸ {one}"),
                    _ => format!("{name} ▸ {{{}}}", parts.join(" ∥ ")),
                }
            }
            StateKind::Compound { .. } => match st.children.iter().find(|c| snap.is_active(**c)) {
                // A region named after its one active state (a constraint that applies): once.
                Some(c) if chart.state(*c).label == name && chart.state(*c).children.is_empty() => {
                    name
                }
                Some(c) => format!("{name} ▸ {}", self.breadcrumb(snap, *c)),
                None => name,
            },
            _ => name,
        }
    }

    /// `region` is a monitor's compound region resting in its initial atomic state.
    fn at_rest(&self, snap: &Snapshot, region: StateId) -> bool {
        match self.chart.state(region).kind {
            StateKind::Compound { initial } => {
                self.is_monitor(region)
                    && snap.is_active(initial)
                    && self.chart.state(initial).children.is_empty()
            }
            _ => false,
        }
    }
}
