//! The flattened graph of atomic states, for "steps remaining" and recovery paths.
//! Guards are ignored: this answers "what could lead there", the step decides what does.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::FxSet;
use super::ir::{StateId, StateKind, Transition, Trigger};
use super::machine::Machine;
use super::snapshot::Snapshot;

/// One edge of the atomic graph: taking transition `transition` from `from` leads to `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub from: StateId,
    pub to: StateId,
    pub transition: usize,
    /// 1 when the agent has to do something (an event trigger), 0 for eventless/done edges.
    pub cost: u32,
}

impl Machine {
    /// Transitions that can fire while `atomic` is active, in selection order.
    pub(crate) fn transitions_for(&self, atomic: StateId) -> Vec<usize> {
        let chain = std::iter::once(atomic).chain(self.chart.ancestors(atomic));
        let mut out = Vec::new();
        for sid in chain {
            out.extend(self.candidates[sid.index()].iter().copied());
        }
        out
    }

    /// `atomic` finishes `composite`: it is its final child, or, when `composite` is parallel,
    /// the final state of one of its regions (the done event also waits for the others).
    pub(crate) fn ends_composite(&self, atomic: StateId, composite: StateId) -> bool {
        let chart = &self.chart;
        let st = chart.state(atomic);
        st.is_final()
            && (st.parent == Some(composite)
                || (chart.state(composite).kind == StateKind::Parallel
                    && st.parent.and_then(|r| chart.state(r).parent) == Some(composite)))
    }

    pub(crate) fn edges_from(&self, atomic: StateId) -> Vec<Edge> {
        let chart = &self.chart;
        let mut out = Vec::new();
        let mut taken: FxSet<&Trigger> = FxSet::default();
        for ti in self.transitions_for(atomic) {
            let t: &Transition = &chart.transitions[ti];
            // A transition on the root fires from any state: a global re-entry (a command
            // such as seed 004's `/hope:intent`), not a step of the path, so paths to an
            // ending and "steps remaining" do not go through it.
            if (t.source == StateId::ROOT && atomic != StateId::ROOT)
                || t.guard.as_ref().is_some_and(|g| g.is_never())
            {
                continue;
            }
            // The first unguarded candidate for a trigger wins (deeper source, then document
            // order): the same trigger later in the list never fires from this state.
            if taken.contains(&t.trigger) {
                continue;
            }
            if t.guard.is_none() {
                taken.insert(&t.trigger);
            }
            let cost = match &t.trigger {
                Trigger::Event(_) => 1,
                Trigger::Always => 0,
                Trigger::Done(x) => {
                    if self.ends_composite(atomic, *x) {
                        0
                    } else {
                        continue;
                    }
                }
                // Failures are not a way forward.
                Trigger::Error(_) => continue,
            };
            if t.targets.is_empty() {
                continue;
            }
            for leaf in self.entry_set(&t.targets, self.domain(ti)) {
                if chart.state(leaf).is_atomic_like() {
                    out.push(Edge {
                        from: atomic,
                        to: leaf,
                        transition: ti,
                        cost,
                    });
                }
            }
        }
        out
    }

    /// The root's transitions that fire now from active state `u` (a command or skill bound
    /// on the root, guarded to the current state).
    pub(crate) fn root_edges_now(&self, u: StateId, snap: &Snapshot) -> Vec<Edge> {
        let chart = &self.chart;
        let mut out = Vec::new();
        for &ti in &self.candidates[StateId::ROOT.index()] {
            let t = &chart.transitions[ti];
            if t.targets.is_empty()
                || !matches!(t.trigger, Trigger::Event(_))
                || !t
                    .guard
                    .as_ref()
                    .is_none_or(|g| !g.is_never() && super::guard::eval_ignoring_input(g, snap))
            {
                continue;
            }
            for leaf in self.entry_set(&t.targets, self.domain(ti)) {
                if chart.state(leaf).is_atomic_like() {
                    out.push(Edge {
                        from: u,
                        to: leaf,
                        transition: ti,
                        cost: 1,
                    });
                }
            }
        }
        out
    }

    /// `path` starting with a call the agent may make now. A path that first waits for an
    /// event (the user's prompt) while a call bound on the root leads where that wait leads,
    /// before the path's first call (seed 004's `hope:intent` from `user_need`), starts with
    /// that call instead: otherwise the first call it names is one that is not legal yet.
    /// Only the wait is replaced, never a step of the path: a root binding that jumps further
    /// (another session type's move) is no shortcut. Root bindings are not edges of the
    /// search itself: most are side trips or restarts, not ways forward.
    pub(crate) fn start_with_a_call(&self, path: Vec<Edge>, snap: &Snapshot) -> Vec<Edge> {
        let Some(first) = path.iter().find(|e| e.cost > 0) else {
            return path;
        };
        if !self.waits(first.transition) {
            return path;
        }
        let now: Vec<Edge> = self
            .atomic_active(snap)
            .into_iter()
            .flat_map(|u| self.root_edges_now(u, snap))
            .filter(|e| !self.waits(e.transition))
            .collect();
        let waited = path
            .iter()
            .take_while(|e| e.cost == 0 || self.waits(e.transition))
            .count();
        for k in (0..waited).rev() {
            if let Some(call) = now.iter().find(|r| r.to == path[k].to) {
                let mut out = vec![*call];
                out.extend_from_slice(&path[k + 1..]);
                return out;
            }
        }
        path
    }

    /// Final states that finish the whole sequence.
    pub(crate) fn goals(&self) -> Vec<StateId> {
        let chart = &self.chart;
        let root_parallel = matches!(chart.root().kind, StateKind::Parallel);
        let goals: Vec<StateId> = chart
            .states
            .iter()
            .filter(|s| s.is_final())
            .filter(|s| match s.parent {
                Some(StateId::ROOT) => true,
                Some(p) => root_parallel && chart.state(p).parent == Some(StateId::ROOT),
                None => false,
            })
            .map(|s| s.id)
            .collect();
        if goals.is_empty() {
            chart
                .states
                .iter()
                .filter(|s| s.is_final())
                .map(|s| s.id)
                .collect()
        } else {
            goals
        }
    }

    /// Shortest paths from the active atomic states (Dijkstra on agent actions). Returns, per
    /// state, the agent actions needed to reach it and the edge it was reached by.
    ///
    /// Leaving a parallel state waits for every region: the `done` edge out of it (a join) is
    /// relaxed only once each region has reached an ending, and costs the sum of what each
    /// region still needs, not the cheapest region's share. Otherwise the region that finished
    /// first would look like the way out, and "next" would name the step after the join while
    /// the other region still blocks it.
    pub(crate) fn distances(&self, snap: &Snapshot) -> (Vec<Option<u32>>, Vec<Option<Edge>>) {
        let n = self.chart.states.len();
        let mut dist: Vec<Option<u32>> = vec![None; n];
        let mut via: Vec<Option<Edge>> = vec![None; n];
        // Secondary key: how many steps of the path wait for the user (a prompt) or the host (a
        // lifecycle event). Equally short, a path the agent can walk itself wins: recovery names
        // calls to make. A state is re-pointed only on a strict improvement, so `via` stays a
        // tree.
        let mut waits: Vec<u32> = vec![0; n];
        let mut settled = vec![false; n];
        let mut heap: BinaryHeap<Reverse<(u32, u32, StateId)>> = BinaryHeap::new();
        for s in self.atomic_active(snap) {
            dist[s.index()] = Some(0);
            heap.push(Reverse((0, 0, s)));
        }
        while let Some(Reverse((du, wu, u))) = heap.pop() {
            if settled[u.index()] || dist[u.index()] != Some(du) || waits[u.index()] != wu {
                continue;
            }
            settled[u.index()] = true;
            for e in self.edges_from(u) {
                let key = match self.joined_parallel(&e) {
                    Some(x) => match self.join_key(x, snap, &dist, &waits, &settled) {
                        Some(k) => k,
                        // Another region has not reached an ending yet: when it does, its
                        // ending relaxes this join.
                        None => continue,
                    },
                    None => (du + e.cost, wu + u32::from(self.waits(e.transition))),
                };
                let to = e.to.index();
                if settled[to] {
                    continue;
                }
                let better = dist[to].is_none_or(|d| key < (d, waits[to]));
                if better {
                    dist[to] = Some(key.0);
                    waits[to] = key.1;
                    via[to] = Some(e);
                    heap.push(Reverse((key.0, key.1, e.to)));
                }
            }
        }
        (dist, via)
    }

    /// The parallel state whose `done` edge `e` is, when `e` leaves it from a region's ending.
    pub(crate) fn joined_parallel(&self, e: &Edge) -> Option<StateId> {
        let chart = &self.chart;
        let Trigger::Done(x) = chart.transitions[e.transition].trigger else {
            return None;
        };
        (chart.state(x).kind == StateKind::Parallel && chart.state(e.from).parent != Some(x))
            .then_some(x)
    }

    /// The nearest ending of each region of parallel `x`, when every region has a settled one.
    pub(crate) fn region_endings(
        &self,
        x: StateId,
        dist: &[Option<u32>],
        settled: &[bool],
    ) -> Option<Vec<StateId>> {
        let chart = &self.chart;
        chart
            .state(x)
            .children
            .iter()
            .map(|&region| {
                chart
                    .state(region)
                    .children
                    .iter()
                    .copied()
                    .filter(|&c| chart.state(c).is_final() && settled[c.index()])
                    .min_by_key(|c| dist[c.index()])
            })
            .collect()
    }

    /// (actions, waits) to leave parallel `x` by its `done` edge: where `x` was entered, plus
    /// what each region needs from there to its ending.
    pub(crate) fn join_key(
        &self,
        x: StateId,
        snap: &Snapshot,
        dist: &[Option<u32>],
        waits: &[u32],
        settled: &[bool],
    ) -> Option<(u32, u32)> {
        let endings = self.region_endings(x, dist, settled)?;
        // The regions of an active parallel start where they are now (cost 0); one entered
        // later starts at the cheapest of its states (all its regions are entered at once).
        let (base_d, base_w) = if snap.is_active(x) {
            (0, 0)
        } else {
            self.chart
                .states
                .iter()
                .filter(|s| s.id != x && self.chart.is_descendant_or_self(s.id, x))
                .filter_map(|s| dist[s.id.index()].map(|d| (d, waits[s.id.index()])))
                .min()?
        };
        let mut key = (base_d, base_w);
        for f in endings {
            let d = dist[f.index()]?;
            key.0 += d.saturating_sub(base_d);
            key.1 += waits[f.index()].saturating_sub(base_w);
        }
        Some(key)
    }

    /// The transition is taken on an event the agent does not make: a prompt or a hook event.
    pub(crate) fn waits(&self, ti: usize) -> bool {
        match &self.chart.transitions[ti].trigger {
            Trigger::Event(p) => p
                .alts
                .iter()
                .all(|a| a.kind.is_some_and(|k| !k.is_action())),
            _ => false,
        }
    }

    /// The edges leading from the active configuration to `target`, in order. A join brings
    /// in the steps of every region it waits for, each region's in document order.
    pub(crate) fn path_to(
        &self,
        via: &[Option<Edge>],
        target: StateId,
        snap: &Snapshot,
    ) -> Vec<Edge> {
        self.path_back(via, target, snap, None, 0)
    }

    /// `path_to`, stopping at the edge that entered `inside` (a region's own steps).
    fn path_back(
        &self,
        via: &[Option<Edge>],
        target: StateId,
        snap: &Snapshot,
        inside: Option<StateId>,
        depth: usize,
    ) -> Vec<Edge> {
        let chart = &self.chart;
        let mut rev: Vec<Edge> = Vec::new();
        let mut cur = target;
        for _ in 0..=chart.states.len() {
            let Some(e) = via[cur.index()] else { break };
            if inside.is_some_and(|x| !chart.is_descendant_or_self(e.from, x)) {
                break;
            }
            rev.push(e);
            if let Some(x) = self.joined_parallel(&e)
                && depth < chart.states.len()
            {
                let known: Vec<bool> = via
                    .iter()
                    .enumerate()
                    .map(|(i, v)| v.is_some() || snap.is_active(StateId(i as u32)))
                    .collect();
                let dist: Vec<Option<u32>> = known.iter().map(|&k| k.then_some(0)).collect();
                let endings = self.region_endings(x, &dist, &known).unwrap_or_default();
                // Every region's steps, in document order (`rev` is reversed at the end).
                let segs: Vec<Vec<Edge>> = endings
                    .iter()
                    .map(|&f| self.path_back(via, f, snap, Some(x), depth + 1))
                    .collect();
                for seg in segs.iter().rev() {
                    rev.extend(seg.iter().rev().copied());
                }
                // Then on before the parallel state, from where its regions were entered.
                let region = chart.state(e.from).parent;
                let start = endings
                    .iter()
                    .zip(&segs)
                    .find(|(f, _)| chart.state(**f).parent == region)
                    .map(|(f, seg)| seg.first().map_or(*f, |first| first.from))
                    .unwrap_or(e.from);
                if snap.is_active(start) {
                    break;
                }
                cur = start;
                continue;
            }
            if snap.is_active(e.from) {
                break;
            }
            cur = e.from;
        }
        rev.reverse();
        rev
    }
}
