//! Tools: what the agent may call now (the expected next call first), what is denied now and by
//! which state of which tier, the neutral tools, and what happens to anything else.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use crate::engine::Status;
use crate::engine::event::canonical_tool_name;
use crate::engine::ir::OffPathPolicy;

use super::common::{Chrome, frame, line, plain_if_ascii};
use super::model::{Focus, Model};
use super::sanitize;
use super::theme::{Role, Theme};

const LABEL: usize = 8;

/// Allowed calls that are not neutral, in the dotted form the chart uses (`starlog.orient`,
/// not `mcp__starlog__orient`), each once.
fn allowed_only(st: &Status) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for a in &st.allowed {
        let c = canonical_tool_name(a);
        if !st.neutral.contains(&c) && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

fn list_len<S: AsRef<str>>(items: &[S]) -> usize {
    items
        .iter()
        .map(|s| s.as_ref().chars().count() + 2)
        .sum::<usize>()
        + LABEL
}

/// Content rows at `width` columns (wrapping estimated).
pub fn wanted_rows(m: &Model, width: u16) -> u16 {
    let Some(st) = m.status() else { return 1 };
    let w = (width as usize).max(10);
    let neutral: Vec<&str> = st.neutral.iter().map(String::as_str).collect();
    let rows = list_len(&allowed_only(st)).div_ceil(w)
        + st.denied.len().max(1)
        + list_len(&neutral).div_ceil(w)
        + 1;
    rows as u16
}

pub fn lines(m: &Model, theme: &Theme) -> Vec<Line<'static>> {
    let Some(st) = m.status() else {
        return vec![line("no sequence", theme.style(Role::Muted))];
    };
    let label = |s: &str| Span::styled(format!("{s:<LABEL$}"), theme.style(Role::Muted));
    let comma = || Span::styled(", ", theme.style(Role::Muted));
    let mut out = Vec::new();

    let allowed = allowed_only(st);
    let next = st.next.as_ref().map(|n| canonical_tool_name(&n.tool));
    let mut spans = vec![label("allowed")];
    if st.allowed == ["*"] {
        spans.push(Span::styled("any tool", theme.style(Role::ToolsAllowed)));
    } else if allowed.is_empty() {
        spans.push(Span::styled("neutral tools only", theme.style(Role::Muted)));
    }
    for (i, a) in allowed.iter().filter(|a| *a != "*").enumerate() {
        if i > 0 {
            spans.push(comma());
        }
        let mut style = theme.style(Role::ToolsAllowed);
        if next.as_ref() == Some(a) {
            style = style.add_modifier(ratatui::style::Modifier::BOLD);
        }
        spans.push(Span::styled(sanitize::clean(a, 60), style));
    }
    out.push(Line::from(spans));

    if st.denied.is_empty() {
        out.push(Line::from(vec![
            label("denied"),
            Span::styled("nothing by name", theme.style(Role::Muted)),
        ]));
    }
    for d in &st.denied {
        out.push(Line::from(vec![
            label("denied"),
            Span::styled(
                sanitize::clean(&d.pattern, 60),
                theme.style(Role::ToolsDenied),
            ),
            Span::styled(
                plain_if_ascii(theme, &format!(" — {}", sanitize::clean(&d.by, 80))),
                theme.style(Role::Muted),
            ),
        ]));
    }

    let mut spans = vec![label("neutral")];
    for (i, n) in st.neutral.iter().enumerate() {
        if i > 0 {
            spans.push(comma());
        }
        spans.push(Span::styled(
            sanitize::clean(n, 60),
            theme.style(Role::ToolsNeutral),
        ));
    }
    out.push(Line::from(spans));

    let off = m.seq().map(|s| s.machine.chart.settings.off_path);
    let (text, role) = match off {
        Some(OffPathPolicy::Deny) => ("denied (off-path)", Role::ToolsDenied),
        Some(OffPathPolicy::Warn) => ("allowed with a warning", Role::TimelineAdvised),
        _ => ("observed only", Role::Muted),
    };
    out.push(Line::from(vec![
        label("other"),
        Span::styled(text, theme.style(role)),
    ]));
    out
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer, chrome: Chrome) {
    let focused = m.focus == Focus::Tools;
    let block = frame(
        line("tools", theme.style(Role::Title)),
        focused,
        theme,
        chrome,
    );
    Paragraph::new(lines(m, theme))
        .wrap(Wrap { trim: false })
        .scroll((m.scroll.tools.min(u16::MAX as usize) as u16, 0))
        .block(block)
        .render(area, buf);
}
