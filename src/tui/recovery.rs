//! Recovery: the most recent denial first (what was blocked, by which state, why, and the legal
//! path to it), older denials below it, then the engine's suggestions for the current step.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::common::{Chrome, frame, glyphs, hms, line, plain_if_ascii};
use super::model::{Focus, Model};
use super::sanitize;
use super::theme::{Role, Theme};

pub fn lines(m: &Model, theme: &Theme) -> Vec<Line<'static>> {
    let g = glyphs(theme);
    let fail = theme.symbols.markers.failed.clone();
    let text = |s: &str| plain_if_ascii(theme, s);
    let fold = m.shown();
    let mut out = Vec::new();
    for (i, d) in fold.denials.iter().rev().enumerate() {
        let time = d.ts.map(|t| hms(t, &m.tz)).unwrap_or_default();
        let tool = sanitize::clean(&d.event.name, 48);
        let mut head = vec![
            Span::styled(format!("{fail} "), theme.style(Role::ToolsDenied)),
            Span::styled(format!("{time} "), theme.style(Role::TimelineTime)),
            Span::styled(tool, theme.style(Role::ToolsDenied)),
        ];
        if d.repeat > 1 {
            head.push(Span::styled(
                format!(" x{}", d.repeat),
                theme.style(Role::ToolsDenied),
            ));
        }
        if i > 0 {
            out.push(Line::from(head));
            continue;
        }
        if let Some(by) = &d.by {
            head.push(Span::styled(
                text(&format!(
                    " — {} ({})",
                    sanitize::clean(&by.state, 40),
                    sanitize::clean(&by.tier, 30)
                )),
                theme.style(Role::Muted),
            ));
        }
        out.push(Line::from(head));
        if !d.reason.is_empty() {
            out.push(line(
                format!("  {}", text(&sanitize::clean(&d.reason, 240))),
                theme.style(Role::RecoveryText),
            ));
        }
        if let Some(path) = m
            .derived
            .denial
            .as_ref()
            .and_then(|r| r.path_to_denied.as_ref())
            && path.len() > 1
        {
            let calls: Vec<String> = path.iter().map(|s| sanitize::clean(&s.tool, 40)).collect();
            out.push(line(
                text(&format!("  {} legal after: {}", g.arrow, calls.join(" → "))),
                theme.style(Role::Accent),
            ));
        }
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
    let fold = m.shown();
    let mut rows = fold.denials.len();
    if let Some(d) = fold.denials.back() {
        rows += (d.reason.chars().count() + 2).div_ceil(w) + 1;
    }
    if let Some(st) = m.status() {
        rows += st
            .recovery
            .suggestions
            .iter()
            .map(|s| (s.chars().count() + 2).div_ceil(w))
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
    Paragraph::new(lines(m, theme))
        .wrap(Wrap { trim: false })
        .scroll((m.scroll.recovery.min(u16::MAX as usize) as u16, 0))
        .block(block)
        .render(area, buf);
}
