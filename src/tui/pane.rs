//! A region on screen: its frame and title, the rows of text it shows and, on the frame, how
//! many rows lie above and below them (`▴ 2 above`, `▾ 7 more`). Every row is fitted to the
//! region's columns first ([`super::text::fit`]), so nothing is clipped without a mark.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

use super::common::{Chrome, frame};
use super::text::{self, fit};
use super::theme::{Role, Theme};

/// What a region draws.
pub struct Pane {
    pub title: Line<'static>,
    pub focused: bool,
    /// The rows shown, first to last (already wrapped where the region wraps).
    pub rows: Vec<Line<'static>>,
    /// Rows of the region's text above and below the ones shown.
    pub above: usize,
    pub below: usize,
    /// A row of `rows` to highlight across the region's width (a selection, the current step).
    pub highlight: Option<(usize, Role)>,
}

impl Pane {
    /// `all` rows scrolled `scroll` rows down in a region of `height` rows (the scroll is
    /// clamped so the last page is full).
    pub fn scrolled(
        title: Line<'static>,
        focused: bool,
        all: Vec<Line<'static>>,
        scroll: usize,
        height: usize,
    ) -> Pane {
        let total = all.len();
        let top = scroll.min(total.saturating_sub(height));
        let rows: Vec<Line<'static>> = all.into_iter().skip(top).take(height).collect();
        let below = total - top - rows.len();
        Pane {
            title,
            focused,
            rows,
            above: top,
            below,
            highlight: None,
        }
    }
}

/// The inner area of a region drawn with `chrome` in `area`.
pub fn inner(area: Rect, chrome: Chrome) -> Rect {
    let borders = match chrome {
        Chrome::Boxed => Borders::ALL,
        Chrome::Rule => Borders::TOP,
    };
    Block::new().borders(borders).inner(area)
}

/// `▾ 7 more` / `v 7 more`, `▴ 2 above` / `^ 2 above`.
fn marks(theme: &Theme, above: usize, below: usize) -> (String, String) {
    let ascii = theme.symbols.bar_full.is_ascii();
    let (up, down) = if ascii { ("^", "v") } else { ("▴", "▾") };
    let a = if above > 0 {
        format!(" {up} {above} above ")
    } else {
        String::new()
    };
    let b = if below > 0 {
        format!(" {down} {below} more ")
    } else {
        String::new()
    };
    (a, b)
}

pub fn draw(p: Pane, area: Rect, buf: &mut Buffer, theme: &Theme, chrome: Chrome) {
    if area.width < 3 || area.height == 0 {
        return;
    }
    // A box says both on its bottom border; a side pane's rule says them after the title,
    // which gives way to them.
    let (above, below) = marks(theme, p.above, p.below);
    let width = area.width as usize;
    let marks = format!("{above}{below}");
    let title_room = match chrome {
        Chrome::Boxed => width.saturating_sub(2),
        Chrome::Rule => width.saturating_sub(text::width(&marks) + usize::from(!marks.is_empty())),
    };
    let block: Block = frame(fit(p.title, title_room), p.focused, theme, chrome);
    let inner = block.inner(area);
    block.render(area, buf);
    let w = inner.width as usize;
    let rows: Vec<Line<'static>> = p.rows.into_iter().map(|l| fit(l, w)).collect();
    Paragraph::new(rows).render(inner, buf);
    if let Some((r, role)) = p.highlight
        && (r as u16) < inner.height
    {
        let row = Rect::new(inner.x, inner.y + r as u16, inner.width, 1);
        buf.set_style(row, theme.style(role));
    }
    let marks_w = text::width(&marks);
    if marks.is_empty() || width <= marks_w + 2 {
        return;
    }
    let muted = theme.style(Role::Muted);
    let (x, y) = match chrome {
        Chrome::Boxed if area.height > 1 => (area.right() - 1 - marks_w as u16, area.bottom() - 1),
        Chrome::Boxed => return,
        Chrome::Rule => (area.right() - marks_w as u16, area.y),
    };
    buf.set_string(x, y, &marks, muted);
}

/// A row of muted text (an empty region's message).
pub fn note(text: &str, theme: &Theme) -> Line<'static> {
    Line::from(Span::styled(text.to_string(), theme.style(Role::Muted)))
}
