//! One lifecycle per item (seed 002: per organ in `dna.json`): the chart run for one item with
//! the facts its files give for it, sharing the session's own progress — an event the session
//! took a transition on (the agent started the Genesis loop) moves every item the same way.

use std::collections::VecDeque;

use super::super::event::Event;
use super::super::ir::Trigger;
use super::super::machine::Machine;
use super::super::snapshot::{Facts, Snapshot};
use super::{MICROSTEP_CAP, Phase, StepReport};

impl Machine {
    /// The item's state: the chart started with `facts`, then every event-triggered
    /// transition whose targets `shared` (the session's snapshot) has visited is taken from
    /// where the item is, each followed by the eventless ones its facts enable. Pure: the same
    /// facts and session give the same state.
    pub fn instance(&self, shared: &Snapshot, facts: &Facts) -> Snapshot {
        let mut snap = self.start(facts);
        let event = Event::lifecycle("shared");
        for _ in 0..MICROSTEP_CAP {
            let taken = self.chart.transitions.iter().position(|t| {
                matches!(t.trigger, Trigger::Event(_))
                    && snap.active.contains(&t.source)
                    && !t.targets.is_empty()
                    && t.targets.iter().all(|s| shared.visited.contains(s))
                    && !t.targets.iter().all(|s| snap.active.contains(s))
            });
            let Some(t) = taken else {
                break;
            };
            let mut report = StepReport::new(Phase::Advance, &event);
            let mut internal = VecDeque::new();
            self.microstep(&mut snap, &[t], &event, &mut internal, &mut report);
            self.settle(&mut snap, &event, internal, &mut report);
        }
        snap.highest = self.overall(&snap);
        snap
    }
}
