//! The per-event state of the dashboard: what the first k records of a session fold into.
//!
//! [`Fold::apply`] is the only way a record changes it, so the state at event k is
//! `fold(records[..k])`; [`Checkpoints`] keep a copy every N records so a replay can seek to
//! any k by cloning the nearest checkpoint and applying at most N records.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;

use crate::engine::step::StepReport;
use crate::engine::verdict::DeniedBy;
use crate::engine::{Event, Machine, Phase, Snapshot};
use crate::store::failures::Tally;
use crate::store::record::Record;

use super::lite::{Rec, VerdictView};
use super::model::parse_ts;
use super::rows::Rows;
use super::sanitize;

/// Denials kept for the recovery view.
pub const DENIALS_KEPT: usize = 8;
/// Records between checkpoints.
pub const CHECKPOINT_EVERY: usize = 512;

/// A sequence the dashboard steps.
#[derive(Debug, Clone)]
pub struct Seq {
    /// The name records use for it (the hook's snapshot name; usually the chart's name).
    pub name: String,
    pub machine: Arc<Machine>,
    /// `true`: step only the records that name this sequence (or name none), as the hook did;
    /// `false`: step every record (what-if: "what would this sequence have said?").
    pub follows_log: bool,
}

impl Seq {
    pub fn new(machine: Machine, follows_log: bool) -> Seq {
        let name = machine.chart.name.clone();
        Seq::named(name, machine, follows_log)
    }

    pub fn named(name: impl Into<String>, machine: Machine, follows_log: bool) -> Seq {
        Seq {
            name: name.into(),
            machine: Arc::new(machine),
            follows_log,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    fn steps(&self, r: &Record) -> bool {
        !self.follows_log || r.sequences.is_empty() || r.sequences.iter().any(|s| s == self.name())
    }
}

/// Hook health: what the hook cost and where seed itself failed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Health {
    /// Wall time of the most recent hook run, in ms.
    pub last_ms: Option<f64>,
    pub max_ms: f64,
    /// seed's own failures: lapses (let through unjudged, or over the time budget) and
    /// fail-closed refusals, counted apart (`store::failures`).
    pub failures: Tally,
    pub last_error: Option<String>,
    /// Calls and stops the hook blocked.
    pub denials: u64,
    /// Calls let through with a warning.
    pub advised: u64,
}

/// One deep-state reader's value and when it last changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Deep {
    pub value: Value,
    /// Unix ms (`None`: unknown).
    pub changed_ts: Option<i64>,
    /// Records folded when it changed.
    pub changed_at: usize,
}

/// A blocked call, for the recovery view.
#[derive(Debug, Clone, PartialEq)]
pub struct Denial {
    pub index: usize,
    pub ts: Option<i64>,
    /// The call, without its input (recovery needs the name only).
    pub event: Event,
    pub reason: String,
    pub by: Option<DeniedBy>,
    pub repeat: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Fold {
    /// Records applied.
    pub applied: usize,
    /// Per sequence (same order as the model's), `None` until its first step.
    pub snaps: Vec<Option<Snapshot>>,
    pub health: Health,
    pub deep: BTreeMap<String, Deep>,
    /// Newest last.
    pub denials: VecDeque<Denial>,
    pub last_ts: Option<i64>,
}

impl Fold {
    pub fn new(seqs: usize) -> Fold {
        Fold {
            applied: 0,
            snaps: vec![None; seqs],
            health: Health::default(),
            deep: BTreeMap::new(),
            denials: VecDeque::new(),
            last_ts: None,
        }
    }

    /// The snapshot of sequence `i`, started when no record has stepped it yet.
    pub fn snapshot(&self, seqs: &[Seq], i: usize) -> Option<Snapshot> {
        match self.snaps.get(i) {
            Some(Some(s)) => Some(s.clone()),
            _ => seqs.get(i).map(|s| s.machine.start(&Default::default())),
        }
    }

    /// Fold one record (`ts`: its time in unix ms, parsed once by the caller).
    pub fn apply(&mut self, seqs: &[Seq], r: &Record, ts: Option<i64>) {
        self.apply_with(seqs, r, ts, true);
    }

    /// Fold one record; with `step` false the engines are left alone (a backlog whose engine
    /// state comes from the hook's saved snapshot, see [`super::model::Model::apply_cache`]).
    pub fn apply_with(&mut self, seqs: &[Seq], r: &Record, ts: Option<i64>, step: bool) {
        self.apply_observed(seqs, r, ts, step, &mut |_, _| {});
    }

    /// [`Fold::apply_with`], handing each sequence's step report to `seen` (replay marks:
    /// state changes and replayed verdicts).
    pub fn apply_observed(
        &mut self,
        seqs: &[Seq],
        r: &Record,
        ts: Option<i64>,
        step: bool,
        seen: &mut dyn FnMut(usize, &StepReport),
    ) {
        if self.snaps.len() < seqs.len() {
            self.snaps.resize(seqs.len(), None);
        }
        // What-if: the verdict of the first sequence that does not follow the log stands in for
        // the recorded one, so the header and the recovery view show what it would have denied.
        let mut judged = None;
        if let Some((phase, ev, facts)) = r.step().filter(|_| step) {
            for (i, seq) in seqs.iter().enumerate() {
                if !seq.steps(r) {
                    continue;
                }
                let snap = self.snaps[i].get_or_insert_with(|| seq.machine.start(facts));
                // A sequence the log follows needs only the state change (the record holds
                // the reason given); a what-if's verdicts are shown, so they are worded.
                let report = if seq.follows_log {
                    seq.machine.replay_step(snap, phase, ev, facts)
                } else {
                    seq.machine.step(snap, phase, ev, facts)
                };
                seen(i, &report);
                if !seq.follows_log && judged.is_none() {
                    judged = Some(report.verdict);
                }
            }
        }
        match &judged {
            Some(v) => {
                let view = v.as_ref().map(VerdictView::of);
                self.apply_meta_judged(r, ts, view);
            }
            None => self.apply_meta(r, ts),
        }
    }

    /// Everything but the engines: hook health, deep-state values, denials.
    pub fn apply_meta<R: Rec + ?Sized>(&mut self, r: &R, ts: Option<i64>) {
        self.apply_meta_judged(r, ts, r.verdict());
    }

    /// [`Fold::apply_meta`] with `verdict` in place of the recorded one.
    fn apply_meta_judged<R: Rec + ?Sized>(
        &mut self,
        r: &R,
        ts: Option<i64>,
        verdict: Option<VerdictView<'_>>,
    ) {
        let index = self.applied;
        self.applied += 1;
        if ts.is_some() {
            self.last_ts = ts;
        }
        if let Some(ms) = r.ms().filter(|m| m.is_finite()) {
            self.health.last_ms = Some(ms);
            self.health.max_ms = self.health.max_ms.max(ms);
        }
        if let Some(e) = r.error() {
            if let Some(k) = r.failure() {
                self.health.failures.add(k);
            }
            self.health.last_error = Some(sanitize::clean(e, 200));
        }
        let deep = &mut self.deep;
        r.for_each_fact(&mut |k, v| {
            if deep.get(k).is_none_or(|d| &d.value != v) {
                let d = Deep {
                    value: v.clone(),
                    changed_ts: ts,
                    changed_at: index,
                };
                deep.insert(k.to_string(), d);
            }
        });
        let event = r.event();
        if let Some(v) = verdict {
            if v.blocks {
                self.health.denials += 1;
                let event = match event {
                    Some((kind, name)) => Event::new(kind, name),
                    None => Event::lifecycle(r.hook()),
                };
                self.denials.push_back(Denial {
                    index,
                    ts,
                    event,
                    reason: sanitize::clean(v.reason, 400),
                    by: v.denied_by.cloned(),
                    repeat: v.repeat,
                });
                while self.denials.len() > DENIALS_KEPT {
                    self.denials.pop_front();
                }
            } else if v.warning {
                self.health.advised += 1;
            }
        }
        // The call went through after all: its earlier denials are no longer the news.
        if r.phase() == Some(Phase::Advance)
            && let Some((_, name)) = event
        {
            self.denials.retain(|d| d.event.name != name);
        }
    }
}

/// A fold every [`CHECKPOINT_EVERY`] records: `list[i]` holds the state after `i * every`
/// records, `None` where it is not known yet (a backlog taken from the hook's snapshot; see
/// [`super::feed::build_checkpoints`]).
#[derive(Debug, Clone)]
pub struct Checkpoints {
    pub every: usize,
    pub list: Vec<Option<Fold>>,
}

impl Checkpoints {
    pub fn new(seqs: usize, every: usize) -> Checkpoints {
        Checkpoints {
            every: every.max(1),
            list: vec![Some(Fold::new(seqs))],
        }
    }

    /// Call after each applied record whose engines were stepped.
    pub fn after_apply(&mut self, fold: &Fold) {
        if !fold.applied.is_multiple_of(self.every) {
            return;
        }
        let i = fold.applied / self.every;
        if self.list.len() <= i {
            self.list.resize(i + 1, None);
        }
        self.list[i] = Some(fold.clone());
    }

    /// Fill in checkpoints computed elsewhere (never replacing one already known).
    pub fn merge(&mut self, found: Vec<Fold>) {
        for f in found {
            if !f.applied.is_multiple_of(self.every) {
                continue;
            }
            let i = f.applied / self.every;
            if self.list.len() <= i {
                self.list.resize(i + 1, None);
            }
            if self.list[i].is_none() {
                self.list[i] = Some(f);
            }
        }
    }

    /// The latest known checkpoint at or before record `k`.
    pub fn at_or_before(&self, k: usize) -> Option<&Fold> {
        let last = (k / self.every).min(self.list.len().saturating_sub(1));
        self.list
            .get(..=last)?
            .iter()
            .rev()
            .find_map(Option::as_ref)
    }

    /// Checkpoints not known yet, below record `upto`.
    pub fn missing(&self, upto: usize) -> usize {
        let n = upto / self.every + 1;
        (0..n)
            .filter(|&i| self.list.get(i).is_none_or(Option::is_none))
            .count()
    }
}

/// The start of a log that a saved snapshot covers, folded by the feed thread (rows, health,
/// deep state, denials: no engine) and handed to the model whole.
#[derive(Debug)]
pub struct Backlog {
    pub rows: Rows,
    pub fold: Fold,
    pub marks: Vec<u64>,
    every: usize,
}

impl Backlog {
    pub fn new() -> Backlog {
        Backlog {
            rows: Rows::default(),
            fold: Fold::new(0),
            marks: Vec::new(),
            every: CHECKPOINT_EVERY,
        }
    }

    pub fn len(&self) -> usize {
        self.fold.applied
    }

    pub fn is_empty(&self) -> bool {
        self.fold.applied == 0
    }

    /// Fold the record at byte `offset` of the log.
    pub fn push<R: Rec + ?Sized>(&mut self, offset: u64, r: &R) {
        let ts = parse_ts(r.ts());
        if self.fold.applied.is_multiple_of(self.every) {
            self.marks.push(offset);
        }
        self.rows.push(self.fold.applied, ts, r);
        self.fold.apply_meta(r, ts);
    }
}

impl Default for Backlog {
    fn default() -> Self {
        Backlog::new()
    }
}
