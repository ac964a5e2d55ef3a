//! Seeking: the state after the first `k` records is the nearest checkpoint plus at most
//! `CHECKPOINT_EVERY` records folded on top, so any point of a long session is a short fold away.
//! Replay controls (issue 5) build on these.

use std::ops::Range;

use crate::store::record::Record;

use super::model::{Mode, Model, parse_ts};

impl Model {
    /// Where a replay reads from to reach record `k`: the record index of the nearest known
    /// checkpoint at or before `k` and its byte offset in the log.
    pub fn seek_start(&self, k: usize) -> Option<(usize, u64)> {
        let base = self.checkpoints.at_or_before(k)?.applied;
        let mark = self.marks.get(base / self.checkpoints.every).copied();
        Some((base, mark.unwrap_or(0)))
    }

    /// Show the state after the first `k` records: the nearest checkpoint plus at most
    /// `CHECKPOINT_EVERY` records, which `load` reads (a range of record indices, in order).
    pub fn seek(&mut self, k: usize, load: impl FnOnce(Range<usize>) -> Vec<Record>) {
        let k = k.min(self.fold.applied);
        let Some(base) = self.checkpoints.at_or_before(k) else {
            return;
        };
        let mut f = base.clone();
        for r in load(f.applied..k) {
            let ts = parse_ts(&r.ts);
            f.apply(&self.seqs, &r, ts);
        }
        self.cursor_fold = Some(f);
        self.mode = Mode::Replay { cursor: k };
        self.recompute();
    }

    /// Back to following the log.
    pub fn go_live(&mut self) {
        self.mode = Mode::Live;
        self.cursor_fold = None;
        self.recompute();
    }
}
