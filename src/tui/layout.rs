//! Where each region goes, from a 40-column side pane to a full screen.
//!
//! Narrow (< 80 columns): one stack, essentials first; regions are framed by a titled rule and
//! the lowest-priority ones drop out when rows run short.
//! ```text
//! seed ▸ compound_intelligence · enforce · LIVE       header (2)
//! s-1 · 42 ev · hook 1.3ms · 2 denied · 1 hook failure
//! base      0–50  [##########] 100%                   progress (layers + overall)
//! overall [#####-----] 50% ▲50% ≥5 steps ↺
//! ─ railroad ▸ starlog.check ─────────────            statechart (outline or graph)
//! ├─ ✓ seed.who_am_i
//! ─ tools ─────────────────────────────────           tools
//! ─ recovery ──────────────────────────────           recovery
//! ─ timeline ──────────────────────────────           timeline (takes the rest)
//! ─ deep state ────────────────────────────           deep state
//! ```
//! Medium (80–139): boxes; progress across the top (one unframed line on a short screen),
//! recovery and tools beside the statechart and deep state, the timeline across the bottom.
//! ```text
//! header ─────────────────────────────────────────────────────────
//! ┌ progress ──────────────────────────────────────────────────────┐
//! └────────────────────────────────────────────────────────────────┘
//! ┌ recovery ──────────────────┐┌ statechart ───────────────────────┐
//! ├ tools ─────────────────────┤│                                   │
//! │                            │├ deep state ───────────────────────┤
//! ┌ timeline ──────────────────────────────────────────────────────┐
//! └────────────────────────────────────────────────────────────────┘
//! ```
//! Wide (≥ 140): three columns; the outline tree and the focused graph side by side in height.
//! ```text
//! header ───────────────────────────────────────────────────────────────────────────
//! ┌ progress ──────┐┌ statechart ─────────────┐┌ timeline ──────────────────────────┐
//! ├ tools ─────────┤│                         ││                                    │
//! ├ recovery ──────┤├ graph ─────────────────┤│                                    │
//! ├ deep state ────┤│                         ││                                    │
//! └────────────────┘└─────────────────────────┘└────────────────────────────────────┘
//! ```

use ratatui::layout::{Constraint, Layout, Rect};

use super::common::Chrome;
use super::model::{ChartView, Focus, Model};
use super::{deep_state, progress, recovery, statechart, tools};

pub const NARROW: u16 = 80;
pub const WIDE: u16 = 140;
/// Rows from which the footer is shown.
pub const FOOTER_FROM: u16 = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Regions {
    pub header: Rect,
    /// The keys that work now (absent on a screen too short to spare the row).
    pub footer: Option<Rect>,
    pub progress: Option<Rect>,
    /// The progress region has a frame (a short screen gets its overall line alone).
    pub progress_framed: bool,
    pub statechart: Option<Rect>,
    pub graph: Option<Rect>,
    pub tools: Option<Rect>,
    pub recovery: Option<Rect>,
    pub timeline: Option<Rect>,
    pub deep: Option<Rect>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Id {
    Progress,
    Statechart,
    Graph,
    Tools,
    Recovery,
    Timeline,
    Deep,
}

/// A region's claim on a column: rows it needs to be shown at all (`0`: only when there is
/// room for `good`), rows that make it comfortable, rows it could use; lower `prio` first.
#[derive(Debug, Clone, Copy)]
struct Want {
    id: Id,
    min: u16,
    good: u16,
    want: u16,
    prio: u8,
}

const fn want(id: Id, min: u16, good: u16, want: u16, prio: u8) -> Want {
    Want {
        id,
        min,
        // Comfortable is never more than the region could use.
        good: if good < want { good } else { want },
        want,
        prio,
    }
}

pub fn chrome(area: Rect) -> Chrome {
    if area.width < NARROW {
        Chrome::Rule
    } else {
        Chrome::Boxed
    }
}

pub fn compute(area: Rect, m: &Model) -> Regions {
    let header_rows = super::header::rows(m, area.width).min(area.height);
    let footer_rows = u16::from(area.height >= FOOTER_FROM);
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(header_rows),
        Constraint::Fill(1),
        Constraint::Length(footer_rows),
    ])
    .areas(area);
    let mut r = Regions {
        header,
        footer: (footer.height > 0).then_some(footer),
        ..Regions::default()
    };
    if m.zoom {
        zoomed(&mut r, body, m);
        return r;
    }
    let c = chrome(area);
    let f = c.rows();
    let inner_w = |w: u16| w.saturating_sub(if c == Chrome::Boxed { 2 } else { 0 });
    let prog = progress::wanted_rows(m);
    let chart = statechart::wanted_rows(m);
    if area.width < NARROW {
        let w = inner_w(area.width);
        let main = match m.chart_view {
            ChartView::Graph => Id::Graph,
            ChartView::Outline => Id::Statechart,
        };
        let e = Emphasis::of(m, w, f);
        // What to do next is placed first and never squeezed; the progress is one line.
        let (must, first) = (
            recovery::must_rows(m, w) + f,
            recovery::first_rows(m, w) + f,
        );
        let wants = [
            want(
                Id::Progress,
                1,
                1,
                if body.height >= 30 { prog } else { 1 },
                2,
            ),
            want(
                Id::Recovery,
                must,
                first,
                (recovery::wanted_rows(m, w) + f).min(first + 3),
                1,
            ),
            want(main, 2 + f, 3 + f, chart.min(8) + f, 3),
            want(
                Id::Tools,
                1 + f,
                1 + f,
                tools::wanted_rows(m, w) + f,
                if e.observe { 7 } else { 4 },
            ),
            want(
                Id::Timeline,
                2 + f,
                (body.height / 3).max(4) + f,
                u16::MAX,
                5,
            ),
            e.deep(6),
        ];
        place(&mut r, body, &wants, Id::Timeline);
    } else if area.width < WIDE {
        // The summary line gets its own row when the statechart and timeline keep theirs; on
        // a short screen the progress is one unframed line (the overall bar), so the regions
        // that say what to do and what happened keep their rows.
        let full = prog + f;
        let (prog_rows, framed) = match body.height {
            h if h >= full + 22 => (full, true),
            h if h >= full + 18 => (full - 1, true),
            _ => (1, false),
        };
        r.progress_framed = framed;
        let e = Emphasis::of(m, inner_w(area.width / 2), f);
        // A kept deep-state region is a third box beside the statechart: the timeline gives
        // it some of its rows.
        let timeline_rows = match e.readers {
            true => (body.height / 4).max(5),
            false => (body.height / 3).max(6),
        };
        let [top, band, bottom] = Layout::vertical([
            Constraint::Length(prog_rows),
            Constraint::Fill(1),
            Constraint::Length(timeline_rows),
        ])
        .areas(body);
        r.progress = (top.height > 0).then_some(top);
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(band);
        let lw = inner_w(left.width);
        let must = recovery::must_rows(m, lw) + f;
        let first = recovery::first_rows(m, lw) + f;
        let rec_want = recovery::wanted_rows(m, lw) + f;
        let tools_want = tools::wanted_rows(m, lw) + f;
        // The tools get a few rows before the explanations of recovery grow (observing,
        // nothing is refused: the tools give way).
        let recovery = want(Id::Recovery, must, first, rec_want, 2);
        let tools = want(
            Id::Tools,
            1 + f,
            3 + f,
            tools_want,
            if e.observe { 4 } else { 1 },
        );
        let main = match m.chart_view {
            ChartView::Outline => Id::Statechart,
            ChartView::Graph => Id::Graph,
        };
        // Left, what to do and with which tools; deep state goes under them when they leave
        // it room, else under the statechart, which keeps most of its column.
        let deep = e.deep(3);
        let deep_left = e.readers && rec_want + tools_want + deep.good <= left.height;
        if deep_left {
            place(&mut r, left, &[recovery, tools, deep], Id::Deep);
            place(
                &mut r,
                right,
                &[want(main, 3 + f, 3 + f, u16::MAX, 1)],
                main,
            );
        } else {
            place(&mut r, left, &[recovery, tools], Id::Recovery);
            let chart_good = match (e.readers, e.observe) {
                // Observing, the readers are what there is to see: they come first.
                (true, true) => 3 + f,
                _ => (right.height * 3 / 5).max(3 + f),
            };
            let wants = [want(main, 3 + f, chart_good, u16::MAX, 1), e.deep(2)];
            place(&mut r, right, &wants, main);
        }
        r.timeline = (bottom.height > 0).then_some(bottom);
    } else {
        let [left, mid, right] = Layout::horizontal([
            Constraint::Percentage(30),
            Constraint::Percentage(35),
            Constraint::Percentage(35),
        ])
        .areas(body);
        let lw = inner_w(left.width);
        let e = Emphasis::of(m, lw, f);
        r.progress_framed = true;
        place(&mut r, left, &side_wants(m, &e, lw, f, prog), Id::Recovery);
        let wants = [
            want(
                Id::Statechart,
                3 + f,
                (mid.height / 2).min(chart + f),
                chart + f,
                1,
            ),
            want(Id::Graph, 0, 5 + f, u16::MAX, 2),
        ];
        place(&mut r, mid, &wants, Id::Graph);
        r.timeline = Some(right);
    }
    r
}

/// `z`: the focused region takes the whole body (the header and footer stay).
fn zoomed(r: &mut Regions, body: Rect, m: &Model) {
    let slot = match (m.focus, m.chart_view) {
        (Focus::Statechart, ChartView::Outline) => &mut r.statechart,
        (Focus::Statechart, ChartView::Graph) => &mut r.graph,
        (Focus::Tools, _) => &mut r.tools,
        (Focus::Timeline, _) => &mut r.timeline,
        (Focus::Recovery, _) => &mut r.recovery,
        (Focus::Deep, _) => &mut r.deep,
    };
    *slot = Some(body);
}

/// The left column of the wide layout.
fn side_wants(m: &Model, e: &Emphasis, w: u16, f: u16, prog: u16) -> [Want; 4] {
    let must = recovery::must_rows(m, w) + f;
    let first = recovery::first_rows(m, w) + f;
    [
        want(Id::Progress, 1 + f, prog.saturating_sub(1) + f, prog + f, 1),
        want(
            Id::Recovery,
            must,
            first,
            recovery::wanted_rows(m, w) + f,
            0,
        ),
        want(
            Id::Tools,
            1 + f,
            2 + f,
            tools::wanted_rows(m, w) + f,
            if e.observe { 5 } else { 3 },
        ),
        e.deep(4),
    ]
}

/// What matters more or less for the shown sequence: a sequence that watches deep state
/// (readers) keeps its deep-state region at every size, taking its minimum before the other
/// regions grow; in observe mode nothing is blocked, so the tools region gives way first.
struct Emphasis {
    /// The sequence has readers.
    readers: bool,
    observe: bool,
    /// Rows the deep-state region could use (frame included).
    deep: u16,
    f: u16,
}

impl Emphasis {
    fn of(m: &Model, w: u16, f: u16) -> Emphasis {
        Emphasis {
            readers: deep_state::reader_rows(m) > 0,
            observe: m.seq().is_some_and(|s| {
                s.machine.chart.settings.enforcement == crate::engine::ir::Enforcement::Observe
            }),
            deep: deep_state::wanted_rows(m, w) + f,
            f,
        }
    }

    /// The deep-state region's claim at priority `prio`: when the sequence has readers it is
    /// kept (the newest value at least; a few in observe mode, where the readers are what
    /// there is to see), else it is shown whole only when there is room.
    fn deep(&self, prio: u8) -> Want {
        let least = match (self.readers, self.observe) {
            (false, _) => 0,
            (true, false) => self.deep.min(1 + self.f),
            (true, true) => self.deep.min(3 + self.f),
        };
        // Kept, it grows past its minimum only after the regions before it in priority.
        let good = if least > 0 { least } else { self.deep };
        want(Id::Deep, least, good, self.deep, prio)
    }
}

/// Stack the wanted regions in `col`, by priority: first every minimum that fits, then up to
/// the comfortable size (a region without a minimum only when all of it fits), then up to what
/// each could use; what is left goes to `flex`.
fn place(r: &mut Regions, col: Rect, wants: &[Want], flex: Id) {
    let mut order: Vec<usize> = (0..wants.len()).collect();
    order.sort_by_key(|&i| wants[i].prio);
    let mut rows = vec![0u16; wants.len()];
    let mut left = col.height;
    for &i in &order {
        if wants[i].min > 0 && wants[i].min <= left {
            rows[i] = wants[i].min;
            left -= wants[i].min;
        } else if wants[i].id == Id::Recovery && left > 1 {
            // What to do next is shown even when its rows do not all fit (it says how many
            // more there are).
            rows[i] = left;
            left = 0;
        }
    }
    for &i in &order {
        let w = wants[i];
        if rows[i] == 0 && w.min == 0 && w.good <= left {
            rows[i] = w.good;
            left -= w.good;
        } else if rows[i] > 0 {
            let extra = w.good.saturating_sub(rows[i]).min(left);
            rows[i] += extra;
            left -= extra;
        }
    }
    for &i in &order {
        if rows[i] > 0 && wants[i].id != flex {
            let extra = wants[i].want.saturating_sub(rows[i]).min(left);
            rows[i] += extra;
            left -= extra;
        }
    }
    let sink = wants
        .iter()
        .position(|w| w.id == flex)
        .filter(|&i| rows[i] > 0)
        .or_else(|| rows.iter().rposition(|&n| n > 0));
    if let Some(i) = sink {
        rows[i] += left;
    }
    let mut y = col.y;
    for (w, n) in wants.iter().zip(rows) {
        if n == 0 {
            continue;
        }
        let rect = Rect::new(col.x, y, col.width, n);
        y += n;
        let slot = match w.id {
            Id::Progress => &mut r.progress,
            Id::Statechart => &mut r.statechart,
            Id::Graph => &mut r.graph,
            Id::Tools => &mut r.tools,
            Id::Recovery => &mut r.recovery,
            Id::Timeline => &mut r.timeline,
            Id::Deep => &mut r.deep,
        };
        *slot = Some(rect);
    }
}
