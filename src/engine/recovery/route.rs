//! The way ahead: the ending "next" heads for and the path there, the expected next call, the
//! shortest path to a denied call, and the nearest ending's recovery text.

use super::NextStep;
use super::search::Reach;
use crate::engine::event::EventKind;
use crate::engine::graph::Edge;
use crate::engine::ir::{Guard, Outcome, StateId, StateKind, Trigger};
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;

impl Machine {
    /// The first agent action on the shortest path to an ending.
    pub fn expected_next(&self, snap: &Snapshot) -> Option<NextStep> {
        let reach = self.reach(snap);
        self.expected_next_with(snap, &reach, &self.enabled_calls(snap))
    }

    /// The ending "next" heads for and the edges leading there: the nearest success ending,
    /// or, when none can be reached, the nearest error ending (an error ending is a way out,
    /// not a goal). Next step, steps remaining and recovery all follow this one route.
    pub(crate) fn route(&self, snap: &Snapshot, reach: &Reach) -> Option<(StateId, Vec<Edge>)> {
        let dist = &reach.dist;
        let goal = self
            .goals()
            .into_iter()
            .filter(|g| dist[g.index()].is_some() && !snap.is_active(*g))
            .min_by_key(|g| {
                let error = matches!(
                    self.chart.state(*g).kind,
                    StateKind::Final {
                        outcome: Outcome::Error,
                        ..
                    }
                );
                (error, dist[g.index()].unwrap_or(u32::MAX))
            })?;
        Some((
            goal,
            self.start_with_a_call(reach.path_to(self, goal, snap), snap),
        ))
    }

    /// The events along `path`, as the agent reads them: a call as it is made, an event the
    /// agent waits for by its name (`SessionEnd`, `prompt`).
    pub(crate) fn events_on(&self, path: &[Edge]) -> Vec<String> {
        path.iter()
            .filter(|e| e.cost > 0)
            .map(|e| match self.describe_transition(e.transition) {
                Some(n) => n.tool,
                None => self.waited_for(e.transition),
            })
            .collect()
    }

    /// The event a transition waits for, by name (`SessionEnd`, `prompt`).
    pub(crate) fn waited_for(&self, ti: usize) -> String {
        match &self.chart.transitions[ti].trigger {
            Trigger::Event(p) => {
                let a = &p.alts[0];
                match a.kind {
                    Some(EventKind::Prompt) => "the user's prompt".into(),
                    _ => a.glob.clone(),
                }
            }
            _ => String::new(),
        }
    }

    /// The events from the current configuration to the ending "next" heads for: the calls
    /// to make and the events to wait for. Its length is the progress' steps remaining.
    pub fn route_to_ending(&self, snap: &Snapshot) -> Vec<String> {
        self.route(snap, &self.reach(snap))
            .map(|(_, path)| self.events_on(&path))
            .unwrap_or_default()
    }

    /// `expected_next` with the path search and the enabled calls already computed (recovery
    /// needs them several times; each search walks the whole graph).
    pub(super) fn expected_next_with(
        &self,
        snap: &Snapshot,
        reach: &Reach,
        enabled: &[NextStep],
    ) -> Option<NextStep> {
        let (_, path) = self.route(snap, reach)?;
        path.iter().find(|e| e.cost > 0).and_then(|e| {
            // Prefer the enabled form of the same transition (its guard holds now).
            enabled
                .iter()
                .find(|s| s.transition == e.transition)
                .cloned()
                .or_else(|| self.describe_transition(e.transition))
                .map(|n| n.spelled_for(self, snap))
        })
    }

    pub(super) fn nearest_ending_hint(&self, dist: &[Option<u32>]) -> Option<String> {
        self.chart
            .states
            .iter()
            .filter_map(|s| match &s.kind {
                StateKind::Final {
                    recovery: Some(r), ..
                } => dist[s.id.index()].map(|d| (d, r.clone())),
                _ => None,
            })
            .min_by_key(|(d, _)| *d)
            .map(|(_, r)| r)
    }

    /// Transition `ti` is the step a side trip makes, as the hook sees it, drawn from `u`: a
    /// dialect draws it guarded by `in(the trip's end)`, which cannot hold while `u` is
    /// active, so at run time the trip takes the event; a path takes this one step for it.
    pub(crate) fn stands_in(&self, ti: usize, u: StateId) -> bool {
        let chart = &self.chart;
        let t = &chart.transitions[ti];
        match &t.guard {
            Some(Guard::In { state }) if t.source != StateId::ROOT => {
                // The two are never active together: neither contains the other, and the
                // nearest state containing both is no parallel state (whose regions are).
                let lca = chart
                    .ancestors(u)
                    .find(|a| chart.is_descendant_or_self(*state, *a));
                !chart.is_descendant_or_self(u, *state)
                    && !chart.is_descendant_or_self(*state, u)
                    && lca.is_some_and(|a| chart.state(a).kind != StateKind::Parallel)
            }
            _ => false,
        }
    }

    /// The configuration at a node resting in `u`: `u` and its ancestors, with the other
    /// regions of a parallel root (the deep-state monitors) as they are now.
    pub(crate) fn config_at(&self, u: StateId, snap: &Snapshot) -> Vec<StateId> {
        let chart = &self.chart;
        let top = |s: StateId| {
            std::iter::once(s)
                .chain(chart.ancestors(s))
                .find(|a| chart.state(*a).parent == Some(StateId::ROOT))
        };
        let mut active: Vec<StateId> = std::iter::once(u).chain(chart.ancestors(u)).collect();
        if matches!(chart.root().kind, StateKind::Parallel) {
            let own = top(u);
            active.extend(
                snap.active
                    .iter()
                    .copied()
                    .filter(|a| *a != StateId::ROOT && top(*a) != own),
            );
        }
        active.sort();
        active.dedup();
        active
    }
}
