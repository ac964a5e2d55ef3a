//! The way ahead: the ending "next" heads for and the path there, the expected next call, the
//! shortest path to a denied call, and the nearest ending's recovery text.

use super::NextStep;
use crate::engine::event::{Event, EventKind};
use crate::engine::graph::Edge;
use crate::engine::ir::{Outcome, StateId, StateKind, Trigger};
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;

impl Machine {
    /// The first agent action on the shortest path to an ending.
    pub fn expected_next(&self, snap: &Snapshot) -> Option<NextStep> {
        let (dist, via) = self.distances(snap);
        self.expected_next_with(snap, &dist, &via, &self.enabled_calls(snap))
    }

    /// The ending "next" heads for and the edges leading there: the nearest success ending,
    /// or, when none can be reached, the nearest error ending (an error ending is a way out,
    /// not a goal). Next step, steps remaining and recovery all follow this one route.
    pub(crate) fn route(
        &self,
        snap: &Snapshot,
        dist: &[Option<u32>],
        via: &[Option<Edge>],
    ) -> Option<(StateId, Vec<Edge>)> {
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
            self.start_with_a_call(self.path_to(via, goal, snap), snap),
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
    fn waited_for(&self, ti: usize) -> String {
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
        let (dist, via) = self.distances(snap);
        self.route(snap, &dist, &via)
            .map(|(_, path)| self.events_on(&path))
            .unwrap_or_default()
    }

    /// `expected_next` with the path search and the enabled calls already computed (recovery
    /// needs them several times; each search walks the whole graph).
    pub(super) fn expected_next_with(
        &self,
        snap: &Snapshot,
        dist: &[Option<u32>],
        via: &[Option<Edge>],
        enabled: &[NextStep],
    ) -> Option<NextStep> {
        let (_, path) = self.route(snap, dist, via)?;
        path.iter().find(|e| e.cost > 0).and_then(|e| {
            // Prefer the enabled form of the same transition (its guard holds now).
            enabled
                .iter()
                .find(|s| s.transition == e.transition)
                .cloned()
                .or_else(|| self.describe_transition(e.transition))
                .map(|n| n.spelled_for(snap))
        })
    }

    /// Shortest legal path to a state from which `ev` fires a transition.
    pub(super) fn path_to_call(
        &self,
        snap: &Snapshot,
        ev: &Event,
        dist: &[Option<u32>],
        via: &[Option<Edge>],
        exact: bool,
    ) -> Option<Vec<NextStep>> {
        let site = self.call_site(snap, dist, ev, exact)?;
        let (edges, ti) = self.way_to_call(snap, ev, site, via, exact);
        let mut steps: Vec<NextStep> = edges
            .iter()
            .filter(|e| e.cost > 0)
            .filter_map(|e| self.describe_transition(e.transition))
            .collect();
        steps.extend(self.describe_transition(ti));
        Some(steps)
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
}
