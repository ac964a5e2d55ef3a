//! The `?` screen: every key from the one keymap table, so help never drifts from what works.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use super::common::{Chrome, frame, line};
use super::keys::{Action, Binding, KEYMAP, REPLAY_KEYMAP};
use super::model::Model;
use super::theme::{Role, Theme};

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

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let entry = |b: &Binding| {
        Line::from(vec![
            Span::styled(format!("{:<10}", b.label), theme.style(Role::HelpKey)),
            Span::styled(b.help, theme.style(Role::Base)),
        ])
    };
    let mut lines: Vec<Line> = Vec::new();
    if m.replay.is_some() {
        // Replay keys first: they take precedence over the same keys below.
        lines.push(line("replay", theme.style(Role::Title)));
        lines.extend(
            REPLAY_KEYMAP
                .iter()
                .filter(|b| !b.label.is_empty())
                .map(entry),
        );
        lines.push(Line::default());
    }
    let shadowed = |b: &Binding| {
        m.replay.is_some()
            && matches!(
                b.action,
                Action::ToggleGraph | Action::NextSequence | Action::Top | Action::Bottom
            )
    };
    lines.extend(
        KEYMAP
            .iter()
            .filter(|b| !b.label.is_empty() && !shadowed(b))
            .map(entry),
    );
    lines.push(Line::default());
    lines.push(line(
        format!("theme {} · focus {:?} · any key closes", m.theme, m.focus),
        theme.style(Role::Muted),
    ));
    let h = lines.len() as u16 + 2;
    let popup = centered(area, 64, h);
    Clear.render(popup, buf);
    let block = frame(
        line("keys", theme.style(Role::Title)),
        true,
        theme,
        Chrome::Boxed,
    );
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(block)
        .render(popup, buf);
}
