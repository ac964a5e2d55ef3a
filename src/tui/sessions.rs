//! The session picker (`s`): top-level sessions, most recent first, each with its subagents
//! indented under it; the followed one marked.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

use super::common::{Chrome, frame, glyphs, hms, line};
use super::help::centered;
use super::model::{Model, Overlay};
use super::sanitize;
use super::theme::{Role, Theme};
use super::update::session_order;

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let Overlay::Sessions { selected } = m.overlay else {
        return;
    };
    let g = glyphs(theme);
    let order = session_order(&m.sessions);
    let h = (order.len() as u16 + 2).clamp(4, area.height.saturating_sub(2).max(4));
    let popup = centered(area, 72, h);
    Clear.render(popup, buf);
    let block = frame(
        line(
            "sessions (Enter switches, Esc closes)",
            theme.style(Role::Title),
        ),
        true,
        theme,
        Chrome::Boxed,
    );
    let inner = block.inner(popup);
    block.render(popup, buf);
    if order.is_empty() {
        Paragraph::new(line("no sessions found", theme.style(Role::Muted))).render(inner, buf);
        return;
    }
    let rows = inner.height as usize;
    let top = selected.saturating_sub(rows.saturating_sub(1));
    let lines: Vec<Line> = order
        .iter()
        .enumerate()
        .skip(top)
        .take(rows)
        .map(|(i, &(depth, idx))| {
            let s = &m.sessions[idx];
            let mark = if s.id == m.session.id {
                theme.symbols.markers.active.as_str()
            } else {
                " "
            };
            let indent = if depth > 0 { g.last } else { "" };
            let when = s.modified.map(|t| hms(t, &m.tz)).unwrap_or_default();
            let base = if i == selected {
                theme.style(Role::Selection)
            } else {
                theme.style(Role::Base)
            };
            Line::from(vec![
                Span::styled(format!("{mark} {indent}"), base),
                Span::styled(sanitize::clean(&s.id, 40), base),
                Span::styled(
                    format!("  {when}  {}", sanitize::clean(&s.label, 40)),
                    base.patch(theme.style(Role::Muted)),
                ),
            ])
            .style(base)
        })
        .collect();
    Paragraph::new(lines).render(inner, buf);
}
