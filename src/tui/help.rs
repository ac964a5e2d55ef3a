//! The `?` screen: every key from the one keymap table, so help never drifts from what works.
//! The keys that work now come first; those of the other mode (live or replay) after them,
//! under a heading that says so. It fits any size from a 40-column pane up and scrolls.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use super::common::{Chrome, line};
use super::keys::{self, Binding};
use super::model::Model;
use super::pane::{self, Pane};
use super::text;
use super::theme::{Role, Theme};

/// Widest the help box gets.
const MAX_WIDTH: u16 = 76;
/// The key column.
const KEY: usize = 10;

/// A box of `w`×`h` centred in `area` (clamped to it).
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// One key's rows at `width` columns: the key, and its words beside it (wrapped under them).
fn entry(b: &Binding, width: usize, style: &dyn Fn(Role) -> Style) -> Vec<Line<'static>> {
    let key = Span::styled(format!("{:<KEY$}", b.label), style(Role::HelpKey));
    let words = Span::styled(b.help, style(Role::Base));
    text::wrap(Line::from(vec![key, words]), width, KEY)
}

/// The help's rows at `width` columns, styled by `style` (`update` counts them unstyled to
/// clamp scrolling).
pub fn rows(m: &Model, style: &dyn Fn(Role) -> Style, width: usize) -> Vec<Line<'static>> {
    let replay = m.replay.is_some();
    let mut out: Vec<Line<'static>> = Vec::new();
    let (now, other) = if replay {
        ("keys (replay)", "following a live session only")
    } else {
        (
            "keys (live)",
            "in a replay only (seed tui --replay, seed demo)",
        )
    };
    out.push(line(now, style(Role::Title)));
    for b in keys::labelled().filter(|b| b.when.applies(replay)) {
        out.extend(entry(b, width, style));
    }
    out.push(Line::default());
    out.extend(text::wrap(line(other, style(Role::Title)), width, 0));
    for b in keys::labelled().filter(|b| !b.when.applies(replay)) {
        out.extend(entry(b, width, style));
    }
    out.push(Line::default());
    let close = "↑↓ scroll, other keys close";
    out.extend(text::wrap(line(close, style(Role::Muted)), width, 0));
    out
}

/// The help box's place in `area`.
pub fn place(m: &Model, style: &dyn Fn(Role) -> Style, area: Rect) -> (Rect, Vec<Line<'static>>) {
    let w = area.width.min(MAX_WIDTH);
    let lines = rows(m, style, w.saturating_sub(2) as usize);
    let h = (lines.len() as u16).saturating_add(2);
    (centered(area, w, h), lines)
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let (popup, lines) = place(m, &|r| theme.style(r), area);
    Clear.render(popup, buf);
    let height = popup.height.saturating_sub(2) as usize;
    let p = Pane::scrolled(
        line("help", theme.style(Role::Title)),
        true,
        lines,
        m.scroll.help,
        height,
    );
    pane::draw(p, popup, buf, theme, Chrome::Boxed);
}

/// The furthest the help scrolls on a terminal of `size`.
pub fn max_scroll(m: &Model, size: (u16, u16)) -> usize {
    let area = Rect::new(0, 0, size.0, size.1);
    let (popup, lines) = place(m, &|_| Style::default(), area);
    lines
        .len()
        .saturating_sub(popup.height.saturating_sub(2) as usize)
}
