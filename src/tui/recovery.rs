//! Recovery, as `seed recovery` gives it: the newest call denied since the sequence last moved
//! (when, how often, by which state of which tier), then the engine's suggestions for it and for
//! the current step. A denial from before the last move is history (the timeline keeps it).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::engine::wording::state_in_tier;

use super::common::{Chrome, frame, glyphs, hms, line, plain_if_ascii, scrolled_text};
use super::fold::Denial;
use super::model::{Focus, Model};
use super::sanitize;
use super::theme::{Role, Theme};

/// The denial recovery is about: the one the selected sequence's snapshot keeps (the newest
/// since its configuration last changed, the same the CLI shows), with what the log recorded
/// of it (time, repeats, which state refused it) when the log still holds it.
pub fn current_denial(m: &Model) -> Option<(String, Option<&Denial>)> {
    let st = m.status()?;
    let call = st.denied_call.clone()?;
    let denied = m.snapshot().and_then(|s| s.denied.as_ref());
    let logged = denied.and_then(|ev| {
        m.shown()
            .denials
            .iter()
            .rev()
            .find(|d| d.event.kind == ev.kind && d.event.name == ev.name)
    });
    Some((call, logged))
}

pub fn lines(m: &Model, theme: &Theme) -> Vec<Line<'static>> {
    let g = glyphs(theme);
    let fail = theme.symbols.markers.denied.clone();
    let text = |s: &str| plain_if_ascii(theme, s);
    let mut out = Vec::new();
    if let Some((call, logged)) = current_denial(m) {
        let mut head = vec![Span::styled(
            format!("{fail} "),
            theme.style(Role::ToolsDenied),
        )];
        if let Some(t) = logged.and_then(|d| d.ts) {
            head.push(Span::styled(
                format!("{} ", hms(t, &m.tz)),
                theme.style(Role::TimelineTime),
            ));
        }
        head.push(Span::styled(
            sanitize::clean(&call, 60),
            theme.style(Role::ToolsDenied),
        ));
        if let Some(d) = logged.filter(|d| d.repeat > 1) {
            head.push(Span::styled(
                format!(" x{}", d.repeat),
                theme.style(Role::ToolsDenied),
            ));
        }
        if let Some(by) = logged.and_then(|d| d.by.as_ref()) {
            let who = state_in_tier(&by.state, &by.state, &by.tier);
            head.push(Span::styled(
                text(&format!(" — {}", sanitize::clean(&who, 60))),
                theme.style(Role::Muted),
            ));
        }
        out.push(Line::from(head));
    }
    if let Some(st) = m.status() {
        for s in &st.recovery.suggestions {
            out.push(Line::from(vec![
                Span::styled(format!("{} ", g.arrow), theme.style(Role::RecoveryTitle)),
                Span::styled(
                    text(&sanitize::clean(s, 240)),
                    theme.style(Role::RecoveryText),
                ),
            ]));
        }
    }
    if out.is_empty() {
        out.push(line(
            "on track: nothing to recover from",
            theme.style(Role::Muted),
        ));
    }
    out
}

/// Content rows at `width` columns (wrapping estimated).
pub fn wanted_rows(m: &Model, width: u16) -> u16 {
    let w = (width as usize).max(10);
    let mut rows = usize::from(current_denial(m).is_some());
    if let Some(st) = m.status() {
        rows += st
            .recovery
            .suggestions
            .iter()
            .map(|s| (s.chars().count().min(240) + 2).div_ceil(w))
            .sum::<usize>();
    }
    rows.max(1) as u16
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer, chrome: Chrome) {
    let focused = m.focus == Focus::Recovery;
    let block = frame(
        line("recovery", theme.style(Role::RecoveryTitle)),
        focused,
        theme,
        chrome,
    );
    let text = Paragraph::new(lines(m, theme));
    scrolled_text(text, block, m.scroll.recovery, area, buf, theme, chrome);
}
