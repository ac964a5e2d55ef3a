//! One microstep: exit the exit set (descendants first), run the transitions' actions, enter
//! the entry set with its `on_entry` actions, and raise `done.state` for finished regions.

use std::collections::{BTreeSet, VecDeque};

use serde_json::Value;

use super::{Microstep, StepReport};
use crate::engine::breaker;
use crate::engine::event::{Event, EventKind};
use crate::engine::guard;
use crate::engine::ir::{Outcome, StateId, StateKind, Trigger};
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;

impl Machine {
    pub(super) fn microstep(
        &self,
        snap: &mut Snapshot,
        transitions: &[usize],
        event: &Event,
        internal: &mut VecDeque<Event>,
        report: &mut StepReport,
    ) {
        let chart = &self.chart;
        let mut exit: BTreeSet<StateId> = BTreeSet::new();
        let mut entry: BTreeSet<StateId> = BTreeSet::new();
        for &ti in transitions {
            exit.extend(self.exit_set(snap, ti));
        }
        // Exit in reverse document order (descendants first).
        let exited: Vec<StateId> = exit.iter().rev().copied().collect();
        snap.active.retain(|s| !exit.contains(s));
        if exited.iter().any(|s| chart.state(*s).is_final()) {
            self.left_an_ending(snap);
        }
        // A stuck choice or a failed ending that is left is no longer where the sequence is.
        if snap.failed.is_some_and(|f| exit.contains(&f)) {
            snap.failed = None;
        }
        for &ti in transitions {
            let t = &chart.transitions[ti];
            let notes = guard::apply(&t.actions, snap, &event.input, &event.response);
            report.notes.extend(notes);
            if !t.targets.is_empty() {
                entry.extend(self.entry_set(&t.targets, self.domain(ti)));
            }
        }
        let entry: BTreeSet<StateId> = entry.into_iter().filter(|s| !snap.is_active(*s)).collect();
        let input = event.input.clone();
        self.enter(snap, &entry, &input, internal, report);
        if !exited.is_empty() || !entry.is_empty() {
            report.changed = true;
            // A state change resets the deadlock breaker: the agent made progress. The Stop
            // blocks are counted per prompt, not per move: a looping step would renew them.
            breaker::on_progress(snap);
            // Recovery now starts from the new configuration, not from an old denial or
            // failure.
            snap.denied = None;
            snap.failed_call = None;
        }
        report.microsteps.push(Microstep {
            event: if transitions
                .iter()
                .any(|&t| chart.transitions[t].trigger == Trigger::Always)
            {
                String::new()
            } else {
                event.key()
            },
            transitions: transitions.to_vec(),
            exited: exited.iter().map(|s| chart.state(*s).key.clone()).collect(),
            entered: entry.iter().map(|s| chart.state(*s).key.clone()).collect(),
        });
    }

    pub(super) fn enter(
        &self,
        snap: &mut Snapshot,
        entry: &BTreeSet<StateId>,
        input: &Value,
        internal: &mut VecDeque<Event>,
        report: &mut StepReport,
    ) {
        let chart = &self.chart;
        for &s in entry {
            let pos = snap.active.binary_search(&s).unwrap_or_else(|p| p);
            if snap.active.get(pos) != Some(&s) {
                snap.active.insert(pos, s);
            }
            snap.visited.insert(s);
            let st = chart.state(s);
            report
                .notes
                .extend(guard::apply(&st.on_entry, snap, input, &Value::Null));
            if let StateKind::Final { outcome, .. } = &st.kind {
                if *outcome == Outcome::Error {
                    snap.failed = Some(s);
                }
                match st.parent {
                    Some(StateId::ROOT) | None => snap.halted = true,
                    Some(p) => {
                        internal.push_back(Event::new(EventKind::Done, chart.state(p).key.clone()));
                        if let Some(gp) = chart.state(p).parent
                            && matches!(chart.state(gp).kind, StateKind::Parallel)
                            && self.all_regions_final(snap, gp)
                        {
                            if gp == StateId::ROOT {
                                snap.halted = true;
                            } else {
                                internal.push_back(Event::new(
                                    EventKind::Done,
                                    chart.state(gp).key.clone(),
                                ));
                            }
                        }
                    }
                }
            }
        }
    }

    /// A transition out of an ending (a workflow started again from it) undoes what reaching
    /// it did: the sequence is no longer over, nor failed, unless an ending is still active.
    fn left_an_ending(&self, snap: &mut Snapshot) {
        if snap.failed.is_some_and(|f| !snap.is_active(f)) {
            snap.failed = None;
        }
        let root = StateId::ROOT;
        snap.halted = snap.active.iter().any(|s| {
            let st = self.chart.state(*s);
            st.is_final() && st.parent == Some(root)
        }) || (matches!(self.chart.state(root).kind, StateKind::Parallel)
            && self.all_regions_final(snap, root));
    }

    fn all_regions_final(&self, snap: &Snapshot, parallel: StateId) -> bool {
        self.chart.state(parallel).children.iter().all(|&region| {
            self.chart
                .state(region)
                .children
                .iter()
                .any(|&c| self.chart.state(c).is_final() && snap.is_active(c))
        })
    }
}
