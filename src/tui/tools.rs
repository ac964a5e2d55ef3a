//! Tools: what the agent may call now (the expected next call first, in bold), what is denied
//! now and by which state of which tier, the neutral tools, and what happens to anything else.
//! Calls are spelled as the agent makes them (`Skill(skill="hope:consult")`,
//! `mcp__starlog__orient`), never as the patterns that match them.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::engine::ir::{Enforcement, OffPathPolicy};
use crate::engine::tool_name::canonical_tool_name;

use super::common::{Chrome, cut, frame, line, plain_if_ascii, scrolled_text};
use super::model::{Focus, Model};
use super::sanitize;
use super::theme::{Role, Theme};

const LABEL: usize = 8;

/// What is allowed once the sequence has ended.
const ENDED: &str = "every call (sequence ended)";

/// What a list entry is compared by: the call with its server's plugin spelling dropped.
fn key(call: &str) -> String {
    canonical_tool_name(call)
}

/// The neutral calls now, as `seed status` lists them: spelled as this session spells its
/// servers, and none a policy refuses now (a deep-state constraint narrows them too).
fn neutral_calls(m: &Model) -> Vec<String> {
    let Some(st) = m.status() else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for n in &st.neutral {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}

/// Allowed calls that are not neutral, each once, the expected next call first.
fn allowed_only(m: &Model) -> Vec<String> {
    let Some(st) = m.status() else {
        return Vec::new();
    };
    let neutral: Vec<String> = neutral_calls(m).iter().map(|n| key(n)).collect();
    let mut out: Vec<String> = Vec::new();
    for a in st.allowed.calls() {
        if !neutral.contains(&key(a)) && !out.contains(a) {
            out.push(a.clone());
        }
    }
    out
}

/// The sequence has ended (done, or in an error): the hook lets every call through.
fn ended(m: &Model) -> bool {
    m.status()
        .is_some_and(|st| st.progress.done || st.progress.ended.is_some())
}

fn observing(m: &Model) -> bool {
    m.seq()
        .is_some_and(|s| s.machine.chart.settings.enforcement == Enforcement::Observe)
}

/// Rows a labelled list takes at `width` columns: entries (each cut to `item_max`, with its
/// `, `) packed after the label, a new row where the next would not fit.
fn packed_rows<S: AsRef<str>>(items: &[S], width: usize, item_max: usize) -> usize {
    let (mut rows, mut col) = (1, LABEL);
    for s in items {
        let n = s.as_ref().chars().count().min(item_max) + 2;
        if col + n > width + 1 && col > LABEL {
            rows += 1;
            col = 0;
        }
        col += n;
    }
    rows
}

/// Longest an entry may be at `width` columns: it fits on the line after its label.
fn item_max(width: u16) -> usize {
    (width as usize).saturating_sub(LABEL + 1).clamp(12, 80)
}

/// Content rows at `width` columns (wrapping estimated).
pub fn wanted_rows(m: &Model, width: u16) -> u16 {
    let Some(st) = m.status() else { return 1 };
    if ended(m) {
        return (LABEL + ENDED.len()).div_ceil((width as usize).max(10)) as u16;
    }
    let w = (width as usize).max(10);
    let max = item_max(width);
    let observe = observing(m);
    let allowed = if observe || st.allowed.is_any() {
        1
    } else {
        packed_rows(&allowed_only(m), w, max)
    };
    let denied: usize = st
        .denied
        .iter()
        .map(|d| {
            let n = d.pattern.chars().count().min(max) + 3 + d.by.chars().count();
            (LABEL + n).div_ceil(w)
        })
        .sum();
    let denied = if observe { denied } else { denied.max(1) };
    let neutral = neutral_calls(m);
    let neutral = if neutral.is_empty() {
        0
    } else {
        packed_rows(&neutral, w, max)
    };
    let other = usize::from(!observe);
    (allowed + denied + neutral + other).max(1) as u16
}

pub fn lines(m: &Model, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let Some(st) = m.status() else {
        return vec![line("no sequence", theme.style(Role::Muted))];
    };
    let max = item_max(width);
    let label = |s: &str| Span::styled(format!("{s:<LABEL$}"), theme.style(Role::Muted));
    let comma = || Span::styled(", ", theme.style(Role::Muted));
    let shown = |s: &str| cut(&sanitize::clean(s, 200), max);
    let observe = observing(m);
    let mut out = Vec::new();
    if ended(m) {
        // As the hook acts and `seed status` says: an ended sequence judges nothing.
        out.push(Line::from(vec![
            label("allowed"),
            Span::styled(ENDED, theme.style(Role::ToolsAllowed)),
        ]));
        return out;
    }

    let mut spans = vec![label("allowed")];
    let allowed = allowed_only(m);
    if observe {
        // Observe mode judges nothing: every call goes through and is recorded.
        spans.push(Span::styled(
            "every call (observe mode)",
            theme.style(Role::ToolsAllowed),
        ));
    } else if st.allowed.is_any() {
        spans.push(Span::styled("any tool", theme.style(Role::ToolsAllowed)));
    } else if allowed.is_empty() {
        spans.push(Span::styled("neutral tools only", theme.style(Role::Muted)));
    }
    let next = st.next.as_ref().map(|n| key(&n.tool));
    for (i, a) in allowed.iter().enumerate().filter(|_| !observe) {
        if i > 0 {
            spans.push(comma());
        }
        let mut style = theme.style(Role::ToolsAllowed);
        if next.as_deref() == Some(key(a).as_str()) {
            style = style.add_modifier(Modifier::BOLD);
        }
        spans.push(Span::styled(shown(a), style));
    }
    out.push(Line::from(spans));

    if st.denied.is_empty() && !observe {
        out.push(Line::from(vec![
            label("denied"),
            Span::styled("nothing by name", theme.style(Role::Muted)),
        ]));
    }
    for d in &st.denied {
        // In observe mode a deny rule is reported, not enforced.
        let (name, role) = match observe {
            true => ("watched", Role::TimelineAdvised),
            false => ("denied", Role::ToolsDenied),
        };
        out.push(Line::from(vec![
            label(name),
            Span::styled(shown(&d.pattern), theme.style(role)),
            Span::styled(
                plain_if_ascii(theme, &format!(" — {}", sanitize::clean(&d.by, 80))),
                theme.style(Role::Muted),
            ),
        ]));
    }

    let neutral = neutral_calls(m);
    if !neutral.is_empty() {
        let mut spans = vec![label("neutral")];
        for (i, n) in neutral.iter().enumerate() {
            if i > 0 {
                spans.push(comma());
            }
            spans.push(Span::styled(shown(n), theme.style(Role::ToolsNeutral)));
        }
        out.push(Line::from(spans));
    }

    if !observe {
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
    }
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
    let text = Paragraph::new(lines(m, theme, block.inner(area).width));
    scrolled_text(text, block, m.scroll.tools, area, buf, theme, chrome);
}
