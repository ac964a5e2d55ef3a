//! Timeline rows: one per tool call (PreToolUse + PostToolUse grouped by `tool_use_id`), prompt
//! or lifecycle event. Kept compact (a 1M-record session must stay under 100 MB): 32 bytes a
//! row, names interned, input summaries in a chunked text arena, times relative to the session,
//! storage in fixed chunks (no doubling overshoot). A row records the index of the record that
//! completed it, so the timeline at event k is a filter of the rows, not a copy.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::engine::EventKind;

use super::classify::{Class, Interner, call_name, classify, gate_of, non_empty};
use super::lite::Rec;
use super::sanitize;

/// Characters of tool input kept per row.
pub const DETAIL_CHARS: usize = 72;
/// Marks "no such record" in `u32` index fields.
pub const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    Call,
    Prompt,
    Lifecycle,
    Stop,
    /// seed itself failed on this hook (the record carries the error, no event).
    Lapse,
}

/// What the gate answered (PreToolUse, or a Stop decision).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    Unknown,
    Allow,
    /// Allowed with a warning, or handed to the user.
    Advise,
    Deny,
}

/// The colour a row shows at a given point of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pending,
    Allowed,
    Advised,
    Denied,
    Failed,
    /// Separators (prompts, lifecycle events).
    Neutral,
}

/// Rows per storage chunk; text bytes per text chunk.
const CHUNK: usize = 1 << 14;
const TEXT_CHUNK: usize = 1 << 20;
/// Marks an unknown time in `u32` fields.
const NO_TIME: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// Index of the row's first record.
    pub index: u32,
    /// Index of the record that completed the call (`NONE`: not yet).
    pub post: u32,
    /// Milliseconds after the session's time base (`NO_TIME`: unknown).
    t: u32,
    /// Milliseconds from the first record to the completing one (`NO_TIME`: unknown).
    dur: u32,
    pub name: u32,
    /// Offset of the input summary in the text arena.
    detail: u32,
    detail_len: u16,
    /// Subagent lane (symbol 0: the main agent).
    pub lane: u16,
    pub kind: RowKind,
    pub gate: Gate,
    pub failed: bool,
    /// seed itself failed on this call (a fail-open lapse).
    pub lapse: bool,
}

impl Row {
    /// The row's colour once the first `k` records are known.
    pub fn outcome(&self, k: usize) -> Outcome {
        if self.kind != RowKind::Call && self.kind != RowKind::Stop {
            return Outcome::Neutral;
        }
        let done = self.post != NONE && (self.post as usize) < k;
        match (self.gate, done) {
            (Gate::Deny, _) => Outcome::Denied,
            (_, true) if self.failed => Outcome::Failed,
            (Gate::Advise, _) => Outcome::Advised,
            (_, true) => Outcome::Allowed,
            (Gate::Allow, false) if self.kind == RowKind::Stop => Outcome::Allowed,
            _ => Outcome::Pending,
        }
    }

    /// Call duration in milliseconds, once completed within the first `k` records.
    pub fn duration_ms(&self, k: usize) -> Option<i64> {
        let done = self.post != NONE && (self.post as usize) < k;
        (done && self.dur != NO_TIME && self.post != self.index).then_some(self.dur as i64)
    }
}

#[derive(Debug, Clone)]
pub struct Rows {
    chunks: Vec<Vec<Row>>,
    len: usize,
    syms: Interner,
    lanes: Interner,
    text: Vec<String>,
    /// Unix ms that row times count from (set by the first timed record).
    base: Option<i64>,
    /// Calls waiting for their PostToolUse: `tool_use_id` (or `#name` without one) → row.
    open: HashMap<Box<str>, u32>,
}

impl Default for Rows {
    fn default() -> Self {
        let mut syms = Interner::default();
        syms.intern("", 1);
        let mut lanes = Interner::default();
        lanes.intern("", 1);
        Rows {
            chunks: Vec::new(),
            len: 0,
            syms,
            lanes,
            text: Vec::new(),
            base: None,
            open: HashMap::new(),
        }
    }
}

impl Rows {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, i: usize) -> Option<&Row> {
        self.chunks.get(i / CHUNK)?.get(i % CHUNK)
    }

    fn get_mut(&mut self, i: usize) -> Option<&mut Row> {
        self.chunks.get_mut(i / CHUNK)?.get_mut(i % CHUNK)
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Row> + '_ {
        self.chunks.iter().flatten()
    }

    fn push_row(&mut self, row: Row) -> u32 {
        if self.chunks.last().is_none_or(|c| c.len() == CHUNK) {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        if let Some(c) = self.chunks.last_mut() {
            c.push(row);
        }
        self.len += 1;
        (self.len - 1) as u32
    }

    pub fn name(&self, row: &Row) -> &str {
        self.syms.names.get(row.name as usize).map_or("", |s| s)
    }

    pub fn lane(&self, row: &Row) -> &str {
        self.lanes.names.get(row.lane as usize).map_or("", |s| s)
    }

    pub fn detail(&self, row: &Row) -> &str {
        let (at, len) = (row.detail as usize, row.detail_len as usize);
        self.text
            .get(at / TEXT_CHUNK)
            .and_then(|c| c.get(at % TEXT_CHUNK..at % TEXT_CHUNK + len))
            .unwrap_or("")
    }

    /// Unix ms of the row's first record.
    pub fn ts(&self, row: &Row) -> Option<i64> {
        (row.t != NO_TIME).then(|| self.base.unwrap_or(0) + row.t as i64)
    }

    /// Rows that exist once the first `k` records are known (rows are in record order).
    pub fn visible(&self, k: usize) -> usize {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.get(mid).is_some_and(|r| (r.index as usize) < k) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Bytes held, for the memory budget.
    pub fn heap_bytes(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| c.capacity() * std::mem::size_of::<Row>())
            .sum::<usize>()
            + self.text.iter().map(String::capacity).sum::<usize>()
    }

    fn store_text(&mut self, s: &str) -> (u32, u16) {
        let s = &s[..s.len().min(u16::MAX as usize)];
        if self
            .text
            .last()
            .is_none_or(|c| c.len() + s.len() > TEXT_CHUNK)
        {
            self.text.push(String::with_capacity(TEXT_CHUNK));
        }
        let chunk = self.text.len() - 1;
        let Some(c) = self.text.last_mut() else {
            return (0, 0);
        };
        let at = chunk * TEXT_CHUNK + c.len();
        if at + s.len() > u32::MAX as usize {
            return (0, 0);
        }
        c.push_str(s);
        (at as u32, s.len() as u16)
    }

    /// Time relative to the base, fixed by the first timed record (a day early, so records a
    /// little out of order still fit).
    fn rel(&mut self, ts: Option<i64>) -> u32 {
        let Some(ts) = ts else { return NO_TIME };
        let base = *self.base.get_or_insert(ts - 86_400_000);
        (ts - base).clamp(0, NO_TIME as i64 - 1) as u32
    }

    /// Add record number `index` (with its time in unix ms).
    pub fn push<R: Rec + ?Sized>(&mut self, index: usize, ts: Option<i64>, r: &R) {
        let index = index.min(NONE as usize - 1) as u32;
        let agent = r.agent().unwrap_or("");
        let lane = self.lanes.intern(agent, 40).min(u16::MAX as u32) as u16;
        let t = self.rel(ts);
        let lapse = r.error().is_some();
        let ev = r.event();
        let call_name = ev.map_or(Cow::Borrowed(""), |(kind, name)| call_name(kind, name));
        let id = r.tool_use_id().filter(|id| !id.is_empty());
        let key = |name: &str| -> Box<str> {
            match id {
                Some(id) => id.into(),
                None => format!("#{agent}#{name}").into(),
            }
        };
        match classify(r) {
            Class::Pre => {
                let name = self.syms.intern(&call_name, 48);
                let (detail, detail_len) = self.store_text(&r.summary());
                let gate = gate_of(r);
                let row = self.push_row(Row {
                    index,
                    post: NONE,
                    t,
                    dur: NO_TIME,
                    name,
                    lane,
                    detail,
                    detail_len,
                    kind: RowKind::Call,
                    gate,
                    failed: false,
                    lapse,
                });
                // A denied call never runs: nothing will complete it.
                if gate != Gate::Deny {
                    self.open.insert(key(&call_name), row);
                }
            }
            Class::Post { failed } => {
                if let Some(i) = self.open.remove(&key(&call_name))
                    && let Some(row) = self.get_mut(i as usize)
                {
                    row.post = index;
                    if row.t != NO_TIME && t != NO_TIME {
                        row.dur = t.saturating_sub(row.t);
                    }
                    row.failed = failed;
                    row.lapse |= lapse;
                    return;
                }
                // No PreToolUse seen (the gate hook is not installed): the call is its own row.
                let name = self.syms.intern(&call_name, 48);
                let (detail, detail_len) = self.store_text(&r.summary());
                self.push_row(Row {
                    index,
                    post: index,
                    t,
                    dur: NO_TIME,
                    name,
                    lane,
                    detail,
                    detail_len,
                    kind: RowKind::Call,
                    gate: Gate::Unknown,
                    failed,
                    lapse,
                });
            }
            class => {
                let (kind, name, detail) = match class {
                    Class::Prompt => {
                        let text = ev
                            .map(|(kind, name)| match kind {
                                EventKind::Command => format!("/{name}"),
                                _ => name.to_string(),
                            })
                            .unwrap_or_default();
                        (RowKind::Prompt, "prompt".to_string(), text)
                    }
                    // A stop the hook decided shows its verdict; one it only recorded is an event.
                    Class::Stop if r.verdict().is_some() => {
                        (RowKind::Stop, non_empty(r.hook(), "Stop"), String::new())
                    }
                    Class::Stop => (
                        RowKind::Lifecycle,
                        non_empty(r.hook(), "Stop"),
                        String::new(),
                    ),
                    Class::Lapse => (
                        RowKind::Lapse,
                        non_empty(r.hook(), "hook"),
                        r.error().unwrap_or_default().to_string(),
                    ),
                    // A prompt row that is no prompt is Claude Code's notice (an older log
                    // recorded it as a prompt).
                    _ if r.hook() == "UserPromptSubmit" => (
                        RowKind::Lifecycle,
                        crate::engine::event::SYSTEM_NOTIFICATION.to_string(),
                        String::new(),
                    ),
                    _ => {
                        let name = ev
                            .filter(|(kind, _)| *kind == EventKind::Lifecycle)
                            .map(|(_, name)| name.to_string())
                            .unwrap_or_else(|| non_empty(r.hook(), "event"));
                        (RowKind::Lifecycle, name, String::new())
                    }
                };
                let name = self.syms.intern(&name, 40);
                let (detail, detail_len) = self.store_text(&sanitize::clean(&detail, DETAIL_CHARS));
                self.push_row(Row {
                    index,
                    post: NONE,
                    t,
                    dur: NO_TIME,
                    name,
                    lane,
                    detail,
                    detail_len,
                    kind,
                    gate: if kind == RowKind::Stop {
                        gate_of(r)
                    } else {
                        Gate::Unknown
                    },
                    failed: false,
                    lapse,
                });
            }
        }
    }

    /// Whether a row's name, lane or detail contains `needle` (ASCII case-insensitive;
    /// `needle` already lower-case).
    pub fn matches(&self, row: &Row, needle: &str) -> bool {
        needle.is_empty()
            || contains_ci(self.name(row), needle)
            || contains_ci(self.detail(row), needle)
            || contains_ci(self.lane(row), needle)
    }
}

fn contains_ci(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    n.len() <= h.len()
        && h.windows(n.len())
            .any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b))
}
