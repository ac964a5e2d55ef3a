//! Progress as nested intervals (statecharts reference §5.4): per compound state, its children
//! get intervals from the longest weighted path on their graph with loops collapsed; explicit
//! bands (seed 000 `progress_layers`) pin intervals; a parallel state averages its regions.
//!
//! This file reads progress from a snapshot; `intervals` lays the chart out once.

mod intervals;

use serde::{Deserialize, Serialize};

use super::ir::{Fill, Outcome, StateId, StateKind};
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
    /// The sequence reached a success ending.
    pub done: bool,
    /// How the sequence ended, once it has (a success or an error ending).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<Ended>,
    /// The steps remaining are no calls of the agent's, only events to wait for: the first
    /// (`SessionEnd`, "the user's prompt").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_for: Option<String>,
}

/// The ending a sequence reached: an error ending is not "done" (its recovery says what to
/// do), and progress stays at the highest point reached before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ended {
    pub outcome: Outcome,
    /// The ending's label.
    pub ending: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<String>,
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
    /// At an error ending: the highest point reached before it (a failure is no progress).
    pub fn overall(&self, snap: &Snapshot) -> f64 {
        if self.failed_ending(snap).is_some() {
            return snap.highest.clamp(0.0, 100.0);
        }
        let here = self.value_of(snap, StateId::ROOT);
        let floor = self
            .chart
            .floors
            .iter()
            .filter(|f| super::guard::eval_ignoring_input(&f.when, snap))
            .map(|f| self.start_of(f.at))
            .fold(0.0, f64::max);
        (here.max(floor) * 100.0).clamp(0.0, 100.0)
    }

    /// Where state `id` starts in the whole, in [0, 1]: its interval's start, through each
    /// compound ancestor's (a parallel ancestor's regions all span it).
    fn start_of(&self, id: StateId) -> f64 {
        let chart = &self.chart;
        let mut v = 0.0;
        let mut cur = id;
        while let Some(p) = chart.state(cur).parent {
            if matches!(chart.state(p).kind, StateKind::Compound { .. }) {
                let (lo, hi) = self.intervals.span[cur.index()];
                v = lo + (hi - lo) * v;
            }
            cur = p;
        }
        v
    }

    /// The error ending the sequence is at, when it is at one that ends it.
    fn failed_ending(&self, snap: &Snapshot) -> Option<StateId> {
        let f = snap.failed?;
        let st = self.chart.state(f);
        let error = matches!(
            st.kind,
            StateKind::Final {
                outcome: Outcome::Error,
                ..
            }
        );
        (error && snap.is_active(f) && self.ends_sequence(f)).then_some(f)
    }

    /// Final state `f` finishes the sequence: it is a top-level ending, or one of a parallel
    /// root's regions (the others that can finish have, too).
    fn ends_sequence(&self, f: StateId) -> bool {
        let chart = &self.chart;
        match chart.state(f).parent {
            Some(StateId::ROOT) => true,
            Some(region) => {
                chart.state(region).parent == Some(StateId::ROOT)
                    && matches!(chart.root().kind, StateKind::Parallel)
            }
            None => false,
        }
    }

    /// The ending the sequence reached, once every part of it that can finish has (an error
    /// ending among them wins: the sequence failed).
    pub fn ended(&self, snap: &Snapshot) -> Option<Ended> {
        let chart = &self.chart;
        let at: Vec<StateId> = snap
            .active
            .iter()
            .copied()
            .filter(|s| chart.state(*s).is_final() && self.ends_sequence(*s))
            .collect();
        if at.is_empty() {
            return None;
        }
        if matches!(chart.root().kind, StateKind::Parallel) {
            let finished = |r: &StateId| at.iter().any(|f| chart.state(*f).parent == Some(*r));
            if !self.progress_regions(StateId::ROOT).iter().all(finished) {
                return None;
            }
        }
        let f = self.failed_ending(snap).unwrap_or(at[0]);
        let StateKind::Final {
            outcome,
            message,
            recovery,
        } = &chart.state(f).kind
        else {
            return None;
        };
        Some(Ended {
            outcome: *outcome,
            ending: chart.state(f).label.clone(),
            message: message.clone(),
            recovery: recovery.clone(),
        })
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
        // The events on the route "next" and recovery follow, so the count and the path agree.
        let route = self.route(snap, reach).map(|(_, path)| path);
        let steps_remaining = route.as_ref().map(|p| self.events_on(p).len() as u32);
        // Nothing left for the agent to do, only an event to wait for (seed 001's BOUND until
        // SessionEnd): what it waits for.
        let waiting_for = route.as_ref().and_then(|path| {
            let mut events = path.iter().filter(|e| e.cost > 0);
            let first = events.clone().next()?;
            events
                .all(|e| self.waits(e.transition))
                .then(|| self.waited_for(first.transition))
        });
        let ended = self.ended(snap);
        let done = ended
            .as_ref()
            .is_some_and(|e| e.outcome == Outcome::Success);
        let mut layers = layers;
        if ended.is_some() && !done {
            // The bar shows how far the sequence got, not the ending's place in the chart.
            for l in layers.iter_mut().filter(|l| l.lo <= 0.0 && l.hi >= 100.0) {
                l.value = overall;
            }
        }
        Progress {
            overall,
            highest: snap.highest.max(overall),
            layers,
            steps_remaining: match (&ended, done) {
                (_, true) => Some(0),
                (Some(_), false) => None,
                (None, _) => steps_remaining,
            },
            in_loop,
            done,
            waiting_for: if ended.is_some() { None } else { waiting_for },
            ended,
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
