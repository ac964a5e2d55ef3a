//! Progress as nested intervals (statecharts reference §5.4): per compound state, its children
//! get intervals from the longest weighted path on their graph with loops collapsed; explicit
//! bands (seed 000 `progress_layers`) pin intervals; a parallel state averages its regions.
//!
//! This file reads progress from a snapshot; `intervals` lays the chart out once.

mod intervals;

use serde::{Deserialize, Serialize};

use super::ir::{Fill, StateId, StateKind};
use super::machine::Machine;
use super::recovery::search::Reach;
use super::snapshot::Snapshot;

pub use intervals::Intervals;
pub(super) use intervals::child_of;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layer {
    pub name: String,
    /// Range of the overall bar this layer covers, in percent.
    pub lo: f64,
    pub hi: f64,
    /// How much of this layer is done, in percent.
    pub value: f64,
    /// The active step is in this layer.
    pub current: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Percent, 0–100.
    pub overall: f64,
    pub highest: f64,
    pub layers: Vec<Layer>,
    /// Agent actions on the shortest path to an ending (`None`: no ending reachable).
    pub steps_remaining: Option<u32>,
    pub in_loop: bool,
    pub done: bool,
}

/// `done / total` of the last sampled facts, in [0, 1]; 0 while either is missing, not a
/// number, or the total is not positive.
fn fill_ratio(snap: &Snapshot, fill: &Fill) -> f64 {
    let num = |name: &str| snap.facts.get(name).and_then(serde_json::Value::as_f64);
    match (num(&fill.done), num(&fill.total)) {
        (Some(d), Some(t)) if t > 0.0 && d.is_finite() && t.is_finite() => (d / t).clamp(0.0, 1.0),
        _ => 0.0,
    }
}

impl Machine {
    /// The interval `id` owns inside its parent, in [0, 1] (bands: absolute).
    pub fn interval(&self, id: StateId) -> (f64, f64) {
        self.intervals.span[id.index()]
    }

    /// Progress of `id` in [0, 1] within its own interval.
    fn value_of(&self, snap: &Snapshot, id: StateId) -> f64 {
        let chart = &self.chart;
        let s = chart.state(id);
        match &s.kind {
            StateKind::Final { .. } => 1.0,
            StateKind::Atomic | StateKind::Choice => {
                if s.complete_on_entry {
                    1.0
                } else if let Some(f) = &s.fill {
                    fill_ratio(snap, f)
                } else {
                    0.0
                }
            }
            StateKind::Compound { .. } => {
                let Some(child) = s.children.iter().copied().find(|c| snap.is_active(*c)) else {
                    return 0.0;
                };
                let (lo, hi) = self.intervals.span[child.index()];
                lo + (hi - lo) * self.value_of(snap, child)
            }
            StateKind::Parallel => {
                let regions = self.progress_regions(id);
                let total: f64 = regions
                    .iter()
                    .map(|r| self.intervals.weight[r.index()].max(1.0))
                    .sum();
                if total <= 0.0 {
                    return 0.0;
                }
                regions
                    .iter()
                    .map(|r| self.intervals.weight[r.index()].max(1.0) * self.value_of(snap, *r))
                    .sum::<f64>()
                    / total
            }
        }
    }

    /// Regions of a parallel state that count for progress: those that can finish. Regions
    /// without any final state are monitors (seed 000's context region) and are left out.
    fn progress_regions(&self, parallel: StateId) -> Vec<StateId> {
        let chart = &self.chart;
        let kids = &chart.state(parallel).children;
        let with_final: Vec<StateId> = kids
            .iter()
            .copied()
            .filter(|r| {
                chart
                    .states
                    .iter()
                    .any(|s| s.is_final() && chart.is_descendant_or_self(s.id, *r))
            })
            .collect();
        if with_final.is_empty() {
            kids.clone()
        } else {
            with_final
        }
    }

    /// Overall progress in percent, without the rest of [`Progress`] (cheap: no path search).
    pub fn overall(&self, snap: &Snapshot) -> f64 {
        (self.value_of(snap, StateId::ROOT) * 100.0).clamp(0.0, 100.0)
    }

    pub fn progress(&self, snap: &Snapshot) -> Progress {
        self.progress_with(snap, &self.reach(snap))
    }

    /// `progress` with the path search already made (a status makes one for all it shows).
    pub(crate) fn progress_with(&self, snap: &Snapshot, reach: &Reach) -> Progress {
        let overall = self.overall(snap);
        let chart = &self.chart;
        let in_loop = snap
            .active
            .iter()
            .any(|s| self.intervals.in_loop[s.index()] && !self.is_monitor(*s));
        let layers = if chart.bands.is_empty() {
            self.nested_layers(snap)
        } else {
            // Exactly one current layer: the one holding the active step; before the first
            // step or at an unlisted state, the one the overall value falls in.
            let current = chart
                .bands
                .iter()
                .position(|b| b.states.iter().any(|s| snap.is_active(*s)))
                .or_else(|| {
                    chart
                        .bands
                        .iter()
                        .position(|b| overall >= b.lo && overall < b.hi)
                })
                .or_else(|| {
                    chart
                        .bands
                        .iter()
                        .rposition(|b| overall >= b.lo && overall <= b.hi)
                });
            chart
                .bands
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let width = (b.hi - b.lo).max(1e-9);
                    Layer {
                        name: b.name.clone(),
                        lo: b.lo,
                        hi: b.hi,
                        value: (((overall - b.lo) / width) * 100.0).clamp(0.0, 100.0),
                        current: current == Some(i),
                    }
                })
                .collect()
        };
        let goals = self.goals();
        // The events on the route "next" and recovery follow, so the count and the path agree.
        let steps_remaining = self
            .route(snap, reach)
            .map(|(_, path)| self.events_on(&path).len() as u32);
        let done = snap.halted || goals.iter().any(|g| snap.is_active(*g));
        Progress {
            overall,
            highest: snap.highest.max(overall),
            layers,
            steps_remaining: if done { Some(0) } else { steps_remaining },
            in_loop,
            done,
        }
    }

    /// Without bands: one layer per active compound state on the main path.
    fn nested_layers(&self, snap: &Snapshot) -> Vec<Layer> {
        let chart = &self.chart;
        let mut layers = Vec::new();
        let mut cur = StateId::ROOT;
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        loop {
            let s = chart.state(cur);
            let name = if cur == StateId::ROOT {
                chart.name.clone()
            } else {
                s.label.clone()
            };
            match &s.kind {
                StateKind::Compound { .. } | StateKind::Parallel => {
                    layers.push(Layer {
                        name,
                        lo: lo * 100.0,
                        hi: hi * 100.0,
                        value: self.value_of(snap, cur) * 100.0,
                        current: true,
                    });
                }
                _ => break,
            }
            let next = match &s.kind {
                StateKind::Parallel => self
                    .progress_regions(cur)
                    .into_iter()
                    .find(|r| snap.is_active(*r)),
                _ => s.children.iter().copied().find(|c| snap.is_active(*c)),
            };
            let Some(next) = next else { break };
            if matches!(s.kind, StateKind::Compound { .. }) {
                let (a, b) = self.intervals.span[next.index()];
                let w = hi - lo;
                (lo, hi) = (lo + w * a, lo + w * b);
            }
            cur = next;
        }
        layers
    }
}
