//! The footer: the keys that work now, from the one keymap table (`? help` first, then what
//! only this mode has, then the rest, as many as fit), or a word on what the last key did
//! (`theme light`) until the next key.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::keys::{self, When};
use super::model::Model;
use super::text;
use super::theme::{Role, Theme};

/// The footer's entries now, in the order they are offered: `? help`, then the keys only this
/// mode has, then the others.
pub fn entries(m: &Model) -> Vec<&'static str> {
    let replay = m.replay.is_some();
    let now: Vec<&keys::Binding> = keys::labelled()
        .filter(|b| !b.footer.is_empty() && b.when.applies(replay))
        .collect();
    let mut out: Vec<&'static str> = Vec::new();
    let help = now.iter().filter(|b| b.action == keys::Action::Help);
    let own = now.iter().filter(|b| b.when != When::Always);
    let rest = now
        .iter()
        .filter(|b| b.when == When::Always && b.action != keys::Action::Help);
    for b in help.chain(own).chain(rest) {
        out.push(b.footer);
    }
    out
}

/// The footer line at `width` columns: whole entries only, two spaces apart.
pub fn line(m: &Model, theme: &Theme, width: usize) -> Line<'static> {
    if let Some(f) = &m.flash {
        let l = Line::from(Span::styled(format!(" {f}"), theme.style(Role::Accent)));
        return text::fit(l, width);
    }
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    for e in entries(m) {
        let w = text::width(e) + 2;
        if used + w > width + 2 {
            break;
        }
        let (key, word) = e.split_once(' ').unwrap_or((e, ""));
        if used > 1 {
            spans.push(Span::raw("  "));
        }
        spans.push(Span::styled(key.to_string(), theme.style(Role::HelpKey)));
        spans.push(Span::styled(format!(" {word}"), theme.style(Role::Muted)));
        used += w;
    }
    Line::from(spans)
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let l = line(m, theme, area.width as usize);
    Paragraph::new(l)
        .style(theme.style(Role::Header))
        .render(area, buf);
}
