//! Seeking and replay. The state after the first `k` records is the nearest checkpoint plus at
//! most `CHECKPOINT_EVERY` records folded on top (or the cursor's fold plus the records after it,
//! when that is shorter), so any point of a long session is a short fold away.
//!
//! `seed tui --replay` loads every record up front ([`Model::start_replay`]): one fold makes
//! the checkpoints and the marks (denials, state changes, what-if differences); the controls
//! then only move the cursor. Playback is a schedule, [`next_delay`], that the shell's timer
//! follows: the model never reads a clock.

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{Decision, Phase, StepReport};
use crate::store::record::Record;

use super::keys::Action;
use super::model::{Mode, Model, parse_ts};

/// Playback speed bounds, as powers of two (0.5× to 64×).
pub const SLOWEST: i8 = -1;
pub const FASTEST: i8 = 6;
/// The longest pause between two records during playback, in session time: idle stretches of
/// a real session would otherwise stall the replay.
pub const GAP_CAP_MS: i64 = 2_000;
/// The pause when either record has no time.
pub const GAP_UNKNOWN_MS: i64 = 200;

/// A loaded replay: the records and where the interesting moments are.
#[derive(Debug, Clone)]
pub struct Replay {
    pub records: Arc<[Record]>,
    /// Unix ms of each record (`None`: no or bad time).
    times: Vec<Option<i64>>,
    pub playing: bool,
    /// Playback speed as a power of two (−1 = 0.5×, 6 = 64×).
    pub speed: i8,
    /// The sequence named with `--sequence` (what-if), for the header.
    pub what_if: Option<String>,
    /// Cursor positions just after a denial, ascending. Under what-if, the denials of the
    /// what-if sequence; otherwise the ones the hook recorded.
    pub denials: Vec<usize>,
    /// Per sequence: cursor positions just after its active configuration changed.
    pub changes: Vec<Vec<usize>>,
    /// Record indices of calls whose what-if verdict differs from the recorded one.
    pub diffs: Vec<usize>,
}

impl Replay {
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    pub fn speed_factor(&self) -> f64 {
        2f64.powi(self.speed as i32)
    }

    /// "0.5×", "1×", "64×".
    pub fn speed_label(&self) -> String {
        match self.speed {
            s if s < 0 => format!("{}×", self.speed_factor()),
            _ => format!("{}×", 1u32 << self.speed),
        }
    }

    /// The record at `index` is a call whose what-if verdict differs from the recorded one.
    pub fn differs(&self, index: usize) -> bool {
        self.diffs.binary_search(&index).is_ok()
    }
}

/// The first mark after `at` (`forward`) or the last before it.
pub fn neighbour(marks: &[usize], at: usize, forward: bool) -> Option<usize> {
    if forward {
        let i = marks.partition_point(|&p| p <= at);
        marks.get(i).copied()
    } else {
        let i = marks.partition_point(|&p| p < at);
        i.checked_sub(1).and_then(|i| marks.get(i)).copied()
    }
}

/// How long the shell waits before showing the next record (`None`: not playing, or at the
/// end): the gap between the two records' times, capped at [`GAP_CAP_MS`], divided by the speed.
pub fn next_delay(m: &Model) -> Option<Duration> {
    let rp = m.replay.as_ref()?;
    let Mode::Replay { cursor } = m.mode else {
        return None;
    };
    if !rp.playing || cursor >= rp.len() {
        return None;
    }
    let next = rp.times.get(cursor).copied().flatten();
    let gap = match cursor.checked_sub(1) {
        // The first record shows at once.
        None => 0,
        Some(prev) => match (rp.times.get(prev).copied().flatten(), next) {
            (Some(a), Some(b)) => (b - a).clamp(0, GAP_CAP_MS),
            _ => GAP_UNKNOWN_MS,
        },
    };
    let micros = gap as f64 * 1000.0 / rp.speed_factor();
    Some(Duration::from_micros(micros.round() as u64))
}

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

    /// Replay `records`: fold them all once (checkpoints, rows, marks), then show the start.
    /// The sequences are the model's; one that does not follow the log is the what-if.
    pub fn start_replay(&mut self, records: Vec<Record>) {
        let what_if = self.seqs.iter().position(|s| !s.follows_log);
        let mut rp = Replay {
            records: Arc::from(Vec::new()),
            times: Vec::with_capacity(records.len()),
            playing: false,
            speed: 0,
            what_if: what_if
                .and_then(|i| self.seqs.get(i))
                .map(|s| s.name.clone()),
            denials: Vec::new(),
            changes: vec![Vec::new(); self.seqs.len()],
            diffs: Vec::new(),
        };
        for (i, r) in records.iter().enumerate() {
            let ts = parse_ts(&r.ts);
            rp.times.push(ts);
            if self.fold.applied.is_multiple_of(self.checkpoints.every) {
                // Records live in memory: a checkpoint's "offset" is its record index.
                self.marks.push(i as u64);
            }
            self.rows.push(i, ts, r);
            let recorded = r.verdict.as_ref();
            if what_if.is_none() && recorded.is_some_and(|v| v.blocks()) {
                rp.denials.push(i + 1);
            }
            let mut seen = |s: usize, rep: &StepReport| {
                if rep.changed
                    && let Some(c) = rp.changes.get_mut(s)
                {
                    c.push(i + 1);
                }
                let Some(v) = rep.verdict.as_ref().filter(|_| Some(s) == what_if) else {
                    return;
                };
                if v.blocks() {
                    rp.denials.push(i + 1);
                }
                // A call without a recorded verdict ran (a transcript, or an ungated call).
                let was = recorded.map_or(Decision::Allow, |v| v.decision);
                if r.phase == Some(Phase::Gate) && was != v.decision {
                    rp.diffs.push(i);
                }
            };
            self.fold.apply_observed(&self.seqs, r, ts, true, &mut seen);
            self.checkpoints.after_apply(&self.fold);
        }
        self.filter.scan(&self.rows);
        rp.records = Arc::from(records);
        self.replay = Some(rp);
        self.jump(0);
    }

    /// `seed tui --replay` opening: playing from the start (`seed demo`), or paused on the
    /// first event rather than on an empty screen.
    pub fn open_replay(&mut self, records: Vec<Record>, autoplay: bool) {
        self.start_replay(records);
        match autoplay {
            true => self.replay_key(Action::PlayPause),
            false => self.jump(1),
        }
    }

    /// Replay: show the state after the first `k` records (records in memory). Continues from
    /// the cursor when that is closer than the nearest checkpoint, so stepping is one record.
    pub fn jump(&mut self, k: usize) {
        let Some(records) = self.replay.as_ref().map(|r| Arc::clone(&r.records)) else {
            return;
        };
        let k = k.min(self.fold.applied).min(records.len());
        let Some(base) = self.checkpoints.at_or_before(k) else {
            return;
        };
        let mut f = match self.cursor_fold.take() {
            Some(c) if c.applied <= k && c.applied >= base.applied => c,
            _ => base.clone(),
        };
        for r in records.get(f.applied..k).unwrap_or_default() {
            let ts = parse_ts(&r.ts);
            f.apply(&self.seqs, r, ts);
        }
        self.cursor_fold = Some(f);
        self.mode = Mode::Replay { cursor: k };
        self.recompute();
    }

    /// The replay cursor (0 when not replaying).
    pub fn cursor(&self) -> usize {
        match self.mode {
            Mode::Replay { cursor } => cursor,
            Mode::Live => 0,
        }
    }

    /// Replay controls. Moving the cursor by hand pauses playback, so what it lands on stays put.
    pub fn replay_key(&mut self, action: Action) {
        let at = self.cursor();
        let selected = self.selected;
        let Some(rp) = self.replay.as_mut() else {
            return;
        };
        let len = rp.len();
        let target = match action {
            Action::PlayPause => {
                rp.playing = !rp.playing;
                if rp.playing && at >= len {
                    Some(0)
                } else {
                    None
                }
            }
            Action::Faster => {
                rp.speed = (rp.speed + 1).min(FASTEST);
                None
            }
            Action::Slower => {
                rp.speed = (rp.speed - 1).max(SLOWEST);
                None
            }
            Action::StepForward => Some((at + 1).min(len)),
            Action::StepBack => Some(at.saturating_sub(1)),
            Action::Start => Some(0),
            Action::End => Some(len),
            Action::NextDenial => neighbour(&rp.denials, at, true),
            Action::PrevDenial => neighbour(&rp.denials, at, false),
            Action::NextChange | Action::PrevChange => rp
                .changes
                .get(selected)
                .and_then(|c| neighbour(c, at, action == Action::NextChange)),
            _ => None,
        };
        let Some(k) = target else {
            return;
        };
        if action != Action::PlayPause {
            rp.playing = false;
        }
        self.scroll.timeline = 0;
        self.jump(k);
    }

    /// Playback shows the next record; at the end it stops.
    pub fn play_step(&mut self) {
        let at = self.cursor();
        let Some(rp) = self.replay.as_mut() else {
            return;
        };
        if !rp.playing {
            return;
        }
        if at + 1 >= rp.len() {
            rp.playing = false;
        }
        if at < rp.len() {
            self.jump(at + 1);
        }
    }
}
