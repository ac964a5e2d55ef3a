//! The dashboard's one plain model: no terminal, file or clock handles. Records come in through
//! [`Model::apply_records`]; everything a view shows is here or derived here, once per batch.

use std::collections::BTreeMap;

use jiff::tz::TimeZone;

use crate::engine::{Facts, Snapshot, Status};
use crate::session::now::{self, Items, Moved};
use crate::store::record::Record;

use super::filter::Filter;
use super::fold::{Backlog, CHECKPOINT_EVERY, Checkpoints, Deep, Fold, Seq};
use super::graph::Graphs;
use super::replay::Replay;
use super::rows::Rows;

/// One record as it arrived, with its byte offset in the log (kept for replay re-reads).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub offset: u64,
    pub record: Record,
}

/// A session in the picker.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SessionEntry {
    pub id: String,
    /// The session a subagent belongs to.
    pub parent: Option<String>,
    /// Project directory or another short description.
    pub label: String,
    /// Last activity, unix ms.
    pub modified: Option<i64>,
    /// A subagent of `parent` (its events are in the parent's log).
    pub agent: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Live,
    /// Showing the state after the first `cursor` records.
    Replay {
        cursor: usize,
    },
}

/// Regions that take keyboard focus, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Statechart,
    Tools,
    Timeline,
    Recovery,
    Deep,
}

impl Focus {
    pub const ALL: [Focus; 5] = [
        Focus::Statechart,
        Focus::Tools,
        Focus::Timeline,
        Focus::Recovery,
        Focus::Deep,
    ];

    fn index(self) -> usize {
        Focus::ALL.iter().position(|f| *f == self).unwrap_or(0)
    }

    pub fn next(self) -> Focus {
        Focus::ALL[(self.index() + 1) % Focus::ALL.len()]
    }

    pub fn prev(self) -> Focus {
        Focus::ALL[(self.index() + Focus::ALL.len() - 1) % Focus::ALL.len()]
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    Sessions {
        selected: usize,
    },
    /// One call whole (`Enter` on a timeline row): its text is in [`Model::detail`].
    Detail,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartView {
    Outline,
    Graph,
}

/// Per-region scroll offsets (timeline: rows up from the newest, 0 = follow).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scroll {
    pub statechart: usize,
    pub tools: usize,
    pub timeline: usize,
    pub recovery: usize,
    pub deep: usize,
    /// The `?` screen.
    pub help: usize,
    /// A call's detail (`Enter` on a timeline row).
    pub detail: usize,
}

/// What the views show, computed from a fold once per batch (never per frame).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Derived {
    /// Records folded into what is shown.
    pub at: usize,
    /// Per sequence.
    pub snaps: Vec<Snapshot>,
    pub status: Vec<Status>,
    /// The focused graph of the selected sequence.
    pub graph: Option<Graphs>,
    /// Per sequence, live: the state the readers' files moved it to since the last record.
    pub moved: Vec<Option<Moved>>,
    /// Live, every item's lifecycle of the selected sequence (seed 002's organs).
    pub items: Option<Items>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SessionInfo {
    pub id: String,
    /// Where the log lives, for the header (never parsed by views).
    pub source: String,
    /// The directory the session ran in, when known.
    pub project: Option<String>,
    /// When its first hook ran, unix ms, when known.
    pub started: Option<i64>,
}

#[derive(Debug)]
pub struct Model {
    pub session: SessionInfo,
    pub sessions: Vec<SessionEntry>,
    pub seqs: Vec<Seq>,
    /// The sequence the progress, statechart, tools and recovery regions show.
    pub selected: usize,
    /// The fold of every record received.
    pub fold: Fold,
    /// The fold at the replay cursor (`Mode::Replay` only).
    pub cursor_fold: Option<Fold>,
    pub checkpoints: Checkpoints,
    pub rows: Rows,
    /// Byte offset in the log of every `checkpoints.every`-th record (0, N, 2N…): where a
    /// replay starts reading after a checkpoint. One per checkpoint, not one per record.
    pub marks: Vec<u64>,
    /// Reading a backlog whose engine state arrives with `Msg::Cache`.
    pub loading: bool,
    pub derived: Derived,
    /// Deep-state values read directly from the files (live mode), by reader name.
    pub live_facts: BTreeMap<String, Deep>,
    /// Each item's facts read from its files (live, a chart with `[each]`), and how many were
    /// left out.
    pub live_items: Option<(Vec<crate::store::reader_each::Item>, usize)>,
    pub malformed: u64,
    /// seed's failures of this session that only `errors.jsonl` holds (live).
    pub outside: super::outside::Outside,
    pub mode: Mode,
    pub focus: Focus,
    pub overlay: Overlay,
    pub filter: Filter,
    pub scroll: Scroll,
    pub chart_view: ChartView,
    /// The focused region fills the screen (`z`).
    pub zoom: bool,
    /// The terminal reports the mouse (`m` turns it off, so the terminal selects text).
    pub mouse: bool,
    /// The timeline row picked with the arrows or a click (an index into `rows`); `None`
    /// follows the newest.
    pub picked: Option<usize>,
    /// The call `Enter` opened, as the detail view shows it.
    pub detail: Option<super::detail::Detail>,
    pub theme: String,
    pub themes: Vec<String>,
    /// Unix ms, injected by `Msg::Tick`; views never read the clock.
    pub now: Option<i64>,
    pub tz: TimeZone,
    /// Terminal size (columns, rows).
    pub size: (u16, u16),
    /// One line for the user (a theme that failed to load, a log that was rotated…).
    pub notice: Option<String>,
    /// What the last key did, when it shows nowhere else (`theme light`): in the footer until
    /// the next key.
    pub flash: Option<String>,
    /// Switch to a newer session of the project when one starts (no `--session` given).
    pub follow_latest: bool,
    /// `seed tui --replay`: the records and the playback state (`None` when following a log).
    pub replay: Option<Replay>,
    pub quit: bool,
}

/// Unix ms of an RFC 3339 time.
pub fn parse_ts(ts: &str) -> Option<i64> {
    if ts.is_empty() {
        return None;
    }
    ts.parse::<jiff::Timestamp>()
        .ok()
        .map(|t| t.as_millisecond())
}

impl Model {
    pub fn new(session: SessionInfo, seqs: Vec<Seq>, theme: &str) -> Model {
        let n = seqs.len();
        let mut m = Model {
            session,
            sessions: Vec::new(),
            seqs,
            selected: 0,
            fold: Fold::new(n),
            cursor_fold: None,
            checkpoints: Checkpoints::new(n, CHECKPOINT_EVERY),
            rows: Rows::default(),
            marks: Vec::new(),
            loading: false,
            derived: Derived::default(),
            live_facts: BTreeMap::new(),
            live_items: None,
            malformed: 0,
            outside: Default::default(),
            mode: Mode::Live,
            focus: Focus::Timeline,
            overlay: Overlay::None,
            filter: Filter::default(),
            scroll: Scroll::default(),
            chart_view: ChartView::Outline,
            zoom: false,
            mouse: true,
            picked: None,
            detail: None,
            theme: theme.to_string(),
            themes: vec![theme.to_string()],
            now: None,
            tz: TimeZone::UTC,
            size: (80, 24),
            notice: None,
            flash: None,
            follow_latest: false,
            replay: None,
            quit: false,
        };
        m.recompute();
        m
    }

    /// Records the shown state covers.
    pub fn at(&self) -> usize {
        match self.mode {
            Mode::Live => self.fold.applied,
            Mode::Replay { cursor } => cursor.min(self.fold.applied),
        }
    }

    /// The fold the views show: live, or at the replay cursor.
    pub fn shown(&self) -> &Fold {
        match (&self.mode, &self.cursor_fold) {
            (Mode::Replay { .. }, Some(f)) => f,
            _ => &self.fold,
        }
    }

    pub fn status(&self) -> Option<&Status> {
        self.derived.status.get(self.selected)
    }

    pub fn seq(&self) -> Option<&Seq> {
        self.seqs.get(self.selected)
    }

    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.derived.snaps.get(self.selected)
    }

    /// Follow one more sequence. Records already folded did not step it (they name the
    /// sequences they stepped), so it starts from its initial state.
    pub fn add_sequence(&mut self, seq: Seq) {
        if self.seqs.iter().any(|s| s.name() == seq.name()) {
            return;
        }
        self.seqs.push(seq);
        self.recompute();
    }

    /// Fold a batch, then derive what the views show once.
    pub fn apply_records(&mut self, batch: Vec<Entry>) {
        self.fold_batch(batch, true);
        if self.mode == Mode::Live {
            self.recompute();
        }
    }

    /// Take a backlog folded off the UI thread (records, not the engines: their state after it
    /// comes from the hook's saved snapshots, [`Model::apply_cache`]). Nothing is derived until
    /// then. A backlog is the start of the log, so it only lands on an empty model.
    pub fn apply_backlog(&mut self, b: Backlog) {
        if self.fold.applied > 0 {
            self.notice = Some("a backlog arrived after records; ignored".into());
            return;
        }
        let n = self.seqs.len();
        self.rows = b.rows;
        self.fold = b.fold;
        self.fold.snaps.resize(n, None);
        self.marks = b.marks;
        self.filter.reset(&self.rows);
        self.loading = true;
    }

    /// The engines' state after the records folded so far, from snapshots the hook saved (the
    /// log is the truth; a snapshot covering exactly this prefix is its cached fold).
    pub fn apply_cache(&mut self, snaps: Vec<(String, crate::engine::Snapshot)>) {
        if self.fold.snaps.len() < self.seqs.len() {
            self.fold.snaps.resize(self.seqs.len(), None);
        }
        for (name, snap) in snaps {
            if let Some(i) = self.seqs.iter().position(|s| s.name == name) {
                self.fold.snaps[i] = Some(snap);
            }
        }
        if self.fold.applied.is_multiple_of(self.checkpoints.every) {
            self.checkpoints.after_apply(&self.fold);
        }
        self.loading = false;
        self.recompute();
    }

    fn fold_batch(&mut self, batch: Vec<Entry>, step: bool) {
        for e in batch {
            let ts = parse_ts(&e.record.ts);
            if self.fold.applied.is_multiple_of(self.checkpoints.every) {
                self.marks.push(e.offset);
            }
            self.rows.push(self.fold.applied, ts, &e.record);
            self.fold.apply_with(&self.seqs, &e.record, ts, step);
            if step {
                self.checkpoints.after_apply(&self.fold);
            }
        }
        self.filter.scan(&self.rows);
    }

    /// The log was truncated or replaced: start over with what it holds now.
    pub fn reset_log(&mut self) {
        let n = self.seqs.len();
        self.fold = Fold::new(n);
        self.cursor_fold = None;
        self.checkpoints = Checkpoints::new(n, self.checkpoints.every);
        self.rows = Rows::default();
        self.marks.clear();
        self.loading = false;
        self.filter.reset(&self.rows);
        self.mode = Mode::Live;
        self.scroll = Scroll::default();
        self.recompute();
    }

    /// Derive status, snapshots and the focused graph from the shown fold.
    pub fn recompute(&mut self) {
        self.selected = self.selected.min(self.seqs.len().saturating_sub(1));
        let fold = self.shown();
        let mut snaps: Vec<Snapshot> = (0..self.seqs.len())
            .filter_map(|i| fold.snapshot(&self.seqs, i))
            .collect();
        let moved = self.settle_live(&mut snaps);
        let status = self
            .seqs
            .iter()
            .zip(&snaps)
            .map(|(s, snap)| s.machine.status(snap))
            .collect();
        let at = fold.applied;
        let graph = match (self.seqs.get(self.selected), snaps.get(self.selected)) {
            (Some(seq), Some(snap)) => {
                Graphs::update(self.derived.graph.take(), &seq.machine, snap)
            }
            _ => None,
        };
        let items = self
            .live_items
            .as_ref()
            .filter(|_| self.mode == Mode::Live)
            .and_then(|(sampled, left_out)| {
                let (seq, snap) = (self.seqs.get(self.selected)?, snaps.get(self.selected)?);
                now::items_of(&seq.machine, snap, sampled, *left_out)
            });
        self.derived = Derived {
            at,
            snaps,
            status,
            graph,
            moved,
            items,
        };
    }

    /// Live, the files' values step what the records left (what the hook would decide now):
    /// per sequence, what they moved.
    fn settle_live(&self, snaps: &mut [Snapshot]) -> Vec<Option<Moved>> {
        if self.mode != Mode::Live || self.live_facts.is_empty() {
            return Vec::new();
        }
        self.seqs
            .iter()
            .zip(snaps.iter_mut())
            .map(|(seq, snap)| {
                let chart = &seq.machine.chart;
                let fresh: Facts = chart
                    .readers
                    .iter()
                    .filter_map(|r| {
                        Some((r.name.clone(), self.live_facts.get(&r.name)?.value.clone()))
                    })
                    .collect();
                let changed = now::settle(&seq.machine, snap, &fresh)?;
                Some(Moved::of(chart, &changed, |r| {
                    (
                        None,
                        self.live_facts.get(&r.name).and_then(|d| d.changed_ts),
                    )
                }))
            })
            .collect()
    }

    /// What the files moved the selected sequence to, live.
    pub fn moved(&self) -> Option<&Moved> {
        self.derived.moved.get(self.selected)?.as_ref()
    }

    /// Deep-state readers of the selected sequence with their values: live file reads when
    /// following, else the facts the hook sampled.
    pub fn deep_values(&self) -> Vec<(String, Option<Deep>)> {
        let fold = self.shown();
        let mut names: Vec<String> = self
            .seq()
            .map(|s| {
                s.machine
                    .chart
                    .readers
                    .iter()
                    .map(|r| r.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        for k in fold.deep.keys().chain(self.live_facts.keys()) {
            if !names.contains(k) {
                names.push(k.clone());
            }
        }
        names
            .into_iter()
            .map(|n| {
                let live = (self.mode == Mode::Live)
                    .then(|| self.live_facts.get(&n))
                    .flatten();
                let v = live.or_else(|| fold.deep.get(&n)).cloned();
                (n, v)
            })
            .collect()
    }
}
