//! The way to a call through guarded policies. A call such a policy refuses while its `when`
//! holds (seed 004: ExitPlanMode while the intent brief is missing, `!flag intent_brief`)
//! becomes legal only after a transition that makes the `when` false, so the way to it goes
//! through that transition first: the artifact the policy waits for, then the next one, then
//! the call. The graph search itself ignores flags; this walks it leg by leg, carrying the
//! flags and variables the legs' actions set.

use serde_json::Value;

use super::event::Event;
use super::graph::Edge;
use super::guard;
use super::ir::{Action, Guard, StateId, Trigger};
use super::machine::Machine;
use super::pattern::Pattern;
use super::snapshot::Snapshot;

/// Where a call is made from, and the transition it fires there.
pub(crate) struct CallSite {
    pub state: StateId,
    pub transition: usize,
}

impl Machine {
    /// The nearest atomic state (by `dist`) from which `ev` fires a transition: as it was made
    /// (`exact`), or the same tool with any input.
    pub(crate) fn call_site(
        &self,
        snap: &Snapshot,
        dist: &[Option<u32>],
        ev: &Event,
        exact: bool,
    ) -> Option<CallSite> {
        // A call some step names (an anchor call with another stage) is led to that step: a
        // bare wildcard that later lets anything through (seed 001's BOUND) is no way to it.
        let wildcard = |p: &Pattern| p.alts.iter().all(|a| a.glob.chars().all(|c| c == '*'));
        let aliases = &self.chart.aliases;
        let named = self.chart.transitions.iter().any(|t| {
            matches!(&t.trigger, Trigger::Event(p) if !wildcard(p) && p.names_tool(ev, aliases))
        });
        let mut best: Option<(u32, CallSite)> = None;
        for s in &self.chart.states {
            let Some(d) = dist[s.id.index()] else {
                continue;
            };
            // The sequence's own endings stop it: a call one of them allows (a workflow's
            // recovery skill) is no step to lead the agent to.
            if !s.is_atomic_like() || (s.is_final() && s.parent == Some(StateId::ROOT)) {
                continue;
            }
            for ti in self.transitions_for(s.id) {
                let t = &self.chart.transitions[ti];
                let Trigger::Event(p) = &t.trigger else {
                    continue;
                };
                if named && wildcard(p) {
                    continue;
                }
                let fits = if exact {
                    p.matches(ev, &self.chart.aliases)
                        && super::recovery::input_fits(&t.guard, &ev.input, snap)
                } else {
                    p.names_tool(ev, &self.chart.aliases)
                };
                if fits && best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                    let site = CallSite {
                        state: s.id,
                        transition: ti,
                    };
                    best = Some((d, site));
                }
            }
        }
        best.map(|(_, site)| site)
    }

    /// The edges to walk before making `ev` (from `site`, found on `dist`/`via`), through the
    /// transitions that lift each guarded policy refusing it on the way.
    pub(crate) fn way_to_call(
        &self,
        snap: &Snapshot,
        ev: &Event,
        site: CallSite,
        via: &[Option<Edge>],
        exact: bool,
    ) -> (Vec<Edge>, usize) {
        let plain = self.start_with_a_call(self.path_to(via, site.state, snap), snap);
        let guarded = self
            .chart
            .states
            .iter()
            .flat_map(|s| s.all_policies())
            .filter(|p| p.when.is_some())
            .count();
        if guarded == 0 {
            return (plain, site.transition);
        }
        let mut sim = snap.clone();
        let mut legs: Vec<Edge> = Vec::new();
        let (mut path, mut site) = (plain, site);
        // Each leg lifts one policy; a policy lifted twice would mean the legs undo each other.
        for _ in 0..guarded {
            let at_call = self.walked(&sim, &path, site.state);
            let Some(when) = self.refusing_when(&at_call, ev) else {
                break;
            };
            let Some((leg, end)) = self.lift(&sim, &when) else {
                break;
            };
            sim = self.walked(&sim, &leg, end);
            legs.extend(leg);
            let (dist, via) = self.distances(&sim);
            let Some(next) = self.call_site(&sim, &dist, ev, exact) else {
                break;
            };
            path = self.path_to(&via, next.state, &sim);
            site = next;
        }
        legs.extend(path);
        (legs, site.transition)
    }

    /// The `when` of the guarded policy that refuses `ev` in `snap`, if one does.
    fn refusing_when(&self, snap: &Snapshot, ev: &Event) -> Option<Guard> {
        let neutral = self.is_neutral(ev);
        let o = super::verdict::first_objecting(self, snap, ev, neutral)?;
        o.policy.when.clone()
    }

    /// `snap` after walking `edges` (their actions and the entry actions of the states they
    /// enter), resting in `end`.
    fn walked(&self, snap: &Snapshot, edges: &[Edge], end: StateId) -> Snapshot {
        let mut sim = snap.clone();
        for e in edges {
            let t = &self.chart.transitions[e.transition];
            guard::apply(&t.actions, &mut sim, &Value::Null, &Value::Null);
            for s in self.entry_set(&t.targets, self.domain(e.transition)) {
                let entry = &self.chart.state(s).on_entry;
                guard::apply(entry, &mut sim, &Value::Null, &Value::Null);
            }
        }
        let mut active: Vec<StateId> = std::iter::once(end)
            .chain(self.chart.ancestors(end))
            .collect();
        active.sort();
        sim.active = active;
        sim
    }

    /// The shortest way from `snap` through a transition after which `when` no longer holds:
    /// from where the session is, or after a call bound on the root that the agent can make
    /// now (a command that re-enters a stage from anywhere, seed 004's `/hope:intent`). As for
    /// every route, the root's other transitions (moves of other session types, side trips)
    /// are no steps of it. The edges and where they end.
    fn lift(&self, snap: &Snapshot, when: &Guard) -> Option<(Vec<Edge>, StateId)> {
        // Already false here: the refusal comes from the way to the call itself (it resets
        // what the policy waits for), which no leg before it can mend.
        if !guard::eval_ignoring_input(when, snap) {
            return None;
        }
        let mut best: Option<(u32, Vec<Edge>, StateId)> = None;
        let mut starts: Vec<(u32, Vec<Edge>)> = vec![(0, Vec::new())];
        for u in self.atomic_active(snap) {
            for e in self.root_edges_now(u, snap) {
                if self.waits(e.transition) {
                    continue;
                }
                if best.is_none() && self.lifts(snap, e.transition, when) {
                    best = Some((1, vec![e], e.to));
                }
                starts.push((1, vec![e]));
            }
        }
        // Only transitions that act (set a flag or a variable) can lift anything.
        let acting: Vec<bool> = (0..self.chart.transitions.len())
            .map(|ti| self.acts(ti) && self.chart.transitions[ti].source != StateId::ROOT)
            .collect();
        for (cost0, prefix) in starts {
            let from = match prefix.last() {
                Some(e) => self.walked(snap, &prefix, e.to),
                None => snap.clone(),
            };
            let (dist, via) = self.distances(&from);
            // Whether a transition lifts `when` does not depend on where it is taken from.
            let mut lifts: Vec<Option<bool>> = vec![None; acting.len()];
            for s in self.chart.states.iter().filter(|s| s.is_atomic_like()) {
                let Some(d) = dist[s.id.index()] else {
                    continue;
                };
                for ti in self.transitions_for(s.id) {
                    if !acting[ti] || !*lifts[ti].get_or_insert_with(|| self.lifts(&from, ti, when))
                    {
                        continue;
                    }
                    let Some(e) = self.edge_from(s.id, ti) else {
                        continue;
                    };
                    let total = cost0 + d + e.cost;
                    if best.as_ref().is_some_and(|(b, _, _)| *b <= total) {
                        continue;
                    }
                    let mut leg = prefix.clone();
                    leg.extend(self.path_to(&via, s.id, &from));
                    leg.push(e);
                    best = Some((total, leg, e.to));
                }
            }
        }
        best.map(|(_, leg, end)| (leg, end))
    }

    /// Transition `ti` sets something: its own actions or those of a state it enters.
    fn acts(&self, ti: usize) -> bool {
        let t = &self.chart.transitions[ti];
        let sets = |a: &Action| !matches!(a, Action::Note { .. } | Action::Checkpoint { .. });
        t.actions.iter().any(sets)
            || (!t.targets.is_empty()
                && self
                    .entry_set(&t.targets, self.domain(ti))
                    .iter()
                    .any(|s| self.chart.state(*s).on_entry.iter().any(sets)))
    }

    /// Transition `ti` taken from atomic state `u`, as an edge of the graph (an agent's call,
    /// an eventless move, or `u` finishing the composite whose `done` it waits for).
    fn edge_from(&self, u: StateId, ti: usize) -> Option<Edge> {
        let t = &self.chart.transitions[ti];
        if t.guard.as_ref().is_some_and(|g| g.is_never()) || !self.may_fire_at(ti, u) {
            return None;
        }
        let cost = match t.trigger {
            Trigger::Event(_) => 1,
            Trigger::Always => 0,
            Trigger::Done(x) if self.ends_composite(u, x) => 0,
            _ => return None,
        };
        let to = self
            .entry_set(&t.targets, self.domain(ti))
            .into_iter()
            .find(|s| self.chart.state(*s).is_atomic_like())
            .unwrap_or(u);
        Some(Edge {
            from: u,
            to,
            transition: ti,
            cost,
        })
    }

    /// Taking transition `ti` (its actions, and the entry actions of what it enters) makes
    /// `when` false.
    fn lifts(&self, snap: &Snapshot, ti: usize, when: &Guard) -> bool {
        let t = &self.chart.transitions[ti];
        let mut after = snap.clone();
        guard::apply(&t.actions, &mut after, &Value::Null, &Value::Null);
        for s in self.entry_set(&t.targets, self.domain(ti)) {
            let entry = &self.chart.state(s).on_entry;
            guard::apply(entry, &mut after, &Value::Null, &Value::Null);
            // `in(state)` reads the configuration: the states it enters are active after it.
            if let Err(i) = after.active.binary_search(&s) {
                after.active.insert(i, s);
            }
        }
        !guard::eval_ignoring_input(when, &after)
    }
}
