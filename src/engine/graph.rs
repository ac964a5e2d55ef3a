//! The flattened graph of atomic states, for "steps remaining" and recovery paths.
//! Guards are ignored: this answers "what could lead there", the step decides what does.

use std::collections::VecDeque;

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
        let mut taken: Vec<&Trigger> = Vec::new();
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
            if taken.contains(&&t.trigger) {
                continue;
            }
            if t.guard.is_none() {
                taken.push(&t.trigger);
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

    /// 0-1 BFS from the active atomic states. Returns, per state, the agent actions needed to
    /// reach it and the edge it was reached by.
    pub(crate) fn distances(&self, snap: &Snapshot) -> (Vec<Option<u32>>, Vec<Option<Edge>>) {
        let n = self.chart.states.len();
        let mut dist: Vec<Option<u32>> = vec![None; n];
        let mut via: Vec<Option<Edge>> = vec![None; n];
        // Secondary key: how many steps of the path wait for the user (a prompt) or the host (a
        // lifecycle event). Equally short, a path the agent can walk itself wins: recovery names
        // calls to make. Both keys only grow along an edge and a state is re-pointed only on a
        // strict improvement, so `via` stays a tree.
        let mut waits: Vec<u32> = vec![0; n];
        let mut queue = VecDeque::new();
        for s in self.atomic_active(snap) {
            dist[s.index()] = Some(0);
            queue.push_back(s);
        }
        while let Some(u) = queue.pop_front() {
            let du = dist[u.index()].unwrap_or(0);
            let wu = waits[u.index()];
            for e in self.edges_from(u) {
                let key = (du + e.cost, wu + u32::from(self.waits(e.transition)));
                let to = e.to.index();
                let better = dist[to].is_none_or(|d| key < (d, waits[to]));
                if better {
                    dist[to] = Some(key.0);
                    waits[to] = key.1;
                    via[to] = Some(e);
                    if e.cost == 0 {
                        queue.push_front(e.to);
                    } else {
                        queue.push_back(e.to);
                    }
                }
            }
        }
        (dist, via)
    }

    /// The transition is taken on an event the agent does not make: a prompt or a hook event.
    fn waits(&self, ti: usize) -> bool {
        match &self.chart.transitions[ti].trigger {
            Trigger::Event(p) => p
                .alts
                .iter()
                .all(|a| a.kind.is_some_and(|k| !k.is_action())),
            _ => false,
        }
    }

    /// The edges leading from the active configuration to `target`, in order.
    pub(crate) fn path_to(
        &self,
        via: &[Option<Edge>],
        target: StateId,
        snap: &Snapshot,
    ) -> Vec<Edge> {
        let mut path = Vec::new();
        let mut cur = target;
        let mut guard = 0;
        while let Some(e) = via[cur.index()] {
            path.push(e);
            if snap.is_active(e.from) {
                break;
            }
            cur = e.from;
            guard += 1;
            if guard > self.chart.states.len() {
                break;
            }
        }
        path.reverse();
        path
    }
}
