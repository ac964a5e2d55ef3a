//! Picking a timeline row (arrows, a click) and finding what is under the mouse. Rows are
//! picked in the list the timeline shows (the filter's matches, or every row up to the
//! cursor), never copied: positions map to row indices on demand.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use super::common::Chrome;
use super::layout::{self, Regions};
use super::model::{Focus, Model};
use super::pane;

/// Rows the timeline lists now (after the filter, up to the cursor).
pub fn count(m: &Model) -> usize {
    let vis = m.rows.visible(m.at());
    match m.filter.active() {
        true => m.filter.matches.partition_point(|&i| (i as usize) < vis),
        false => vis,
    }
}

/// The row index at position `p` of the list.
pub fn nth(m: &Model, p: usize) -> Option<usize> {
    match m.filter.active() {
        true => m.filter.matches.get(p).map(|&i| i as usize),
        false => (p < count(m)).then_some(p),
    }
}

/// The position of row `row` in the list, if listed.
pub fn position(m: &Model, row: usize) -> Option<usize> {
    let n = count(m);
    let p = match m.filter.active() {
        true => m.filter.matches[..n].binary_search(&(row as u32)).ok()?,
        false => row,
    };
    (p < n).then_some(p)
}

/// Where the regions are on the terminal now.
pub fn regions(m: &Model) -> (Regions, Chrome) {
    let area = Rect::new(0, 0, m.size.0, m.size.1);
    (layout::compute(area, m), layout::chrome(area))
}

/// Rows of timeline the terminal shows now.
pub fn timeline_rows(m: &Model) -> usize {
    let (r, chrome) = regions(m);
    r.timeline
        .map_or(1, |a| pane::inner(a, chrome).height.max(1) as usize)
}

/// Move the pick `by` rows (negative: older). Nothing picked: moving up picks the newest row.
pub fn move_by(m: &mut Model, by: i64) {
    let n = count(m);
    if n == 0 {
        return;
    }
    let from = match m.picked.and_then(|r| position(m, r)) {
        Some(p) => p as i64,
        None if by < 0 => n as i64,
        None => return,
    };
    pick_at(m, (from + by).clamp(0, n as i64 - 1) as usize);
}

/// Pick the row at list position `p` and scroll so it is on screen.
pub fn pick_at(m: &mut Model, p: usize) {
    let n = count(m);
    let Some(row) = nth(m, p) else { return };
    m.picked = Some(row);
    let h = timeline_rows(m);
    let end = n - m.scroll.timeline.min(n.saturating_sub(h.min(n)));
    if p >= end {
        m.scroll.timeline = n - 1 - p;
    } else if p + h < end {
        m.scroll.timeline = n - p - h;
    }
}

/// Follow the newest row again.
pub fn unpick(m: &mut Model) {
    m.picked = None;
    m.scroll.timeline = 0;
}

/// What a mouse event does: the region under it, and for the timeline the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pointed {
    Nothing,
    Focus(Focus),
    /// A timeline row, by list position.
    Row(usize),
}

/// The region (and timeline row) at a cell.
pub fn at(m: &Model, x: u16, y: u16) -> Pointed {
    let (r, chrome) = regions(m);
    let cell = Position::new(x, y);
    let hit = |a: Option<Rect>| a.is_some_and(|a| a.contains(cell));
    if hit(r.timeline)
        && let Some(a) = r.timeline
    {
        let inner = pane::inner(a, chrome);
        if !inner.contains(cell) {
            return Pointed::Focus(Focus::Timeline);
        }
        let shown = super::timeline::window(m, inner.height as usize);
        let k = (y - inner.y) as usize;
        return match shown.get(k).and_then(|&row| position(m, row)) {
            Some(p) => Pointed::Row(p),
            None => Pointed::Focus(Focus::Timeline),
        };
    }
    let regions = [
        (r.statechart, Focus::Statechart),
        (r.graph, Focus::Statechart),
        (r.tools, Focus::Tools),
        (r.recovery, Focus::Recovery),
        (r.deep, Focus::Deep),
    ];
    regions
        .iter()
        .find(|(a, _)| hit(*a))
        .map_or(Pointed::Nothing, |(_, f)| Pointed::Focus(*f))
}

/// A click focuses the region under it (and picks a timeline row); the wheel scrolls the
/// region under the pointer. Returns the rows to scroll the focused region by, if any.
pub fn mouse(m: &mut Model, e: MouseEvent) -> Option<i64> {
    let by = match e.kind {
        MouseEventKind::Down(MouseButton::Left) => 0,
        MouseEventKind::ScrollUp => -3,
        MouseEventKind::ScrollDown => 3,
        _ => return None,
    };
    match at(m, e.column, e.row) {
        Pointed::Nothing => return None,
        Pointed::Focus(f) => m.focus = f,
        Pointed::Row(p) => {
            m.focus = Focus::Timeline;
            if by == 0 {
                pick_at(m, p);
            }
        }
    }
    (by != 0).then_some(by)
}
