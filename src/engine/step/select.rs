//! Transition selection: per active atomic state, the deepest source with an enabled
//! transition wins, then document order; conflicting transitions are removed (a descendant's
//! preempts its ancestor's).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::engine::event::{Event, EventKind};
use crate::engine::guard;
use crate::engine::ir::{StateId, Trigger};
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;

impl Machine {
    /// The transitions a call about to be made would take (a gate): input guards read its
    /// input; its result is not known yet, so a guard on it may go either way.
    pub(crate) fn select(&self, snap: &Snapshot, event: Option<&Event>) -> Vec<usize> {
        let input = event.map(|e| &e.input).unwrap_or(&Value::Null);
        self.select_with(snap, event, input, None)
    }

    /// The optimal enabled transition set for an event that happened (`None`: eventless
    /// transitions); guards read the event's input and result.
    pub(super) fn select_after(&self, snap: &Snapshot, event: &Event) -> Vec<usize> {
        self.select_with(snap, Some(event), &event.input, Some(&event.response))
    }

    /// `select`, with the input (and result, when known) guards read: for eventless
    /// transitions, those of the event that caused the macrostep (SCXML's `_event` stays the
    /// last external event).
    pub(super) fn select_with(
        &self,
        snap: &Snapshot,
        event: Option<&Event>,
        input: &Value,
        result: Option<&Value>,
    ) -> Vec<usize> {
        let mut chosen: Vec<usize> = Vec::new();
        for &atomic in &self.atomic_active(snap) {
            let chain = std::iter::once(atomic).chain(self.chart.ancestors(atomic));
            'chain: for sid in chain {
                for &ti in &self.candidates[sid.index()] {
                    let t = &self.chart.transitions[ti];
                    let trigger_ok = match (&t.trigger, event) {
                        (Trigger::Always, None) => true,
                        (Trigger::Event(p), Some(e)) => {
                            p.matches_with(e, &self.chart.aliases, DEFAULT_KINDS)
                        }
                        (Trigger::Error(p), Some(e)) => p.matches_error(e, &self.chart.aliases),
                        (Trigger::Done(target), Some(e)) => {
                            e.kind == EventKind::Done && e.name == self.chart.state(*target).key
                        }
                        _ => false,
                    };
                    let guard_ok = |g: &crate::engine::ir::Guard| match result {
                        Some(r) => guard::eval_after(g, snap, input, r),
                        None => guard::eval(g, snap, input),
                    };
                    if trigger_ok && t.guard.as_ref().is_none_or(guard_ok) {
                        if !chosen.contains(&ti) {
                            chosen.push(ti);
                        }
                        break 'chain;
                    }
                }
            }
        }
        self.remove_conflicts(snap, chosen)
    }

    fn remove_conflicts(&self, snap: &Snapshot, chosen: Vec<usize>) -> Vec<usize> {
        let mut kept: Vec<(usize, BTreeSet<StateId>)> = Vec::new();
        'outer: for ti in chosen {
            let exit = self.exit_set(snap, ti);
            let src = self.chart.transitions[ti].source;
            let mut preempted = Vec::new();
            for (k, (kj, kexit)) in kept.iter().enumerate() {
                if exit.intersection(kexit).next().is_none() {
                    continue;
                }
                let ksrc = self.chart.transitions[*kj].source;
                if src != ksrc && self.chart.is_descendant_or_self(src, ksrc) {
                    preempted.push(k);
                } else {
                    continue 'outer;
                }
            }
            for k in preempted.into_iter().rev() {
                kept.remove(k);
            }
            kept.push((ti, exit));
        }
        kept.into_iter().map(|(t, _)| t).collect()
    }

    /// Active atomic-like states in document order.
    pub(crate) fn atomic_active(&self, snap: &Snapshot) -> Vec<StateId> {
        snap.active
            .iter()
            .copied()
            .filter(|id| self.chart.state(*id).is_atomic_like())
            .collect()
    }
}

/// Kinds matched by a trigger written without a kind.
const DEFAULT_KINDS: &[EventKind] = &[EventKind::Tool, EventKind::Skill, EventKind::Command];
