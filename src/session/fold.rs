//! The one fold: a session's records stepped through a sequence's machine, from the start,
//! to the snapshot the hook would hold after them. Records a newer seed wrote and records
//! that were not stepped are passed over ([`Record::step`]).

use crate::engine::{Facts, Machine, Snapshot};
use crate::store::record::Record;

/// Fold records through a machine from the start.
pub fn fold(machine: &Machine, records: &[Record]) -> Snapshot {
    machine.fold(records.iter().filter_map(Record::step))
}

/// A fold in progress: records are stepped as they are read, so none is kept. The same
/// snapshot as `Machine::fold` gives (it starts with the first stepped record's facts).
pub struct Folder<'m> {
    machine: &'m Machine,
    snap: Option<Snapshot>,
}

impl<'m> Folder<'m> {
    pub fn new(machine: &'m Machine) -> Folder<'m> {
        Folder {
            machine,
            snap: None,
        }
    }

    pub fn feed(&mut self, r: &Record) {
        if let Some((phase, ev, facts)) = r.step() {
            let m = self.machine;
            let snap = self.snap.get_or_insert_with(|| m.start(facts));
            m.replay_step(snap, phase, ev, facts);
        }
    }

    pub fn finish(self) -> Snapshot {
        self.snap
            .unwrap_or_else(|| self.machine.start(&Facts::default()))
    }
}
