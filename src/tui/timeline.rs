//! Timeline: one row per tool call (PreToolUse and PostToolUse grouped), coloured by outcome
//! (allowed, denied, advised, failed), with its duration and subagent lane; prompts and
//! lifecycle events are separators. Newest at the bottom, following the log unless scrolled.
//! In a what-if replay, calls whose verdict would differ carry a mark after their time.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::common::{Chrome, cut, duration, glyphs, hms};
use super::model::{Focus, Model};
use super::pane::{self, Pane};
use super::rows::{Outcome, Row, RowKind, Rows};
use super::theme::{Role, Theme};

/// Row indices (into `rows`) shown, oldest first: the last `height` of the visible ones after
/// the filter, `scroll` rows up from the newest.
pub fn window(m: &Model, height: usize) -> Vec<usize> {
    let vis = m.rows.visible(m.at());
    if m.filter.active() {
        let n = m.filter.matches.partition_point(|&i| (i as usize) < vis);
        let end = n.saturating_sub(m.scroll.timeline.min(n.saturating_sub(height.min(n))));
        let start = end.saturating_sub(height);
        m.filter.matches[start..end]
            .iter()
            .map(|&i| i as usize)
            .collect()
    } else {
        let end = vis.saturating_sub(m.scroll.timeline.min(vis.saturating_sub(height.min(vis))));
        (end.saturating_sub(height)..end).collect()
    }
}

fn outcome_style(o: Outcome, theme: &Theme) -> (String, Role) {
    let mk = &theme.symbols.markers;
    let g = glyphs(theme);
    match o {
        Outcome::Allowed => (mk.done.clone(), Role::TimelineAllowed),
        Outcome::Denied => (mk.denied.clone(), Role::TimelineDenied),
        Outcome::Advised => (g.advised.to_string(), Role::TimelineAdvised),
        Outcome::Failed => (mk.failed.clone(), Role::TimelineFailed),
        Outcome::Pending => (g.pending.to_string(), Role::Muted),
        Outcome::Neutral => (" ".into(), Role::TimelineSeparator),
    }
}

pub fn row_line(
    rows: &Rows,
    r: &Row,
    k: usize,
    width: usize,
    m: &Model,
    theme: &Theme,
) -> Line<'static> {
    let g = glyphs(theme);
    let time = match rows.ts(r) {
        Some(t) => hms(t, &m.tz),
        None => "        ".to_string(),
    };
    let mut spans = vec![Span::styled(time, theme.style(Role::TimelineTime))];
    // What-if: the column after the time marks calls whose verdict would differ.
    match m.replay.as_ref() {
        Some(rp) if r.kind != RowKind::Lifecycle && rp.differs(r.index as usize) => {
            let mark = if theme.symbols.bar_full.is_ascii() {
                "*"
            } else {
                "◆"
            };
            spans.push(Span::styled(mark, theme.style(Role::WhatifDiff)));
        }
        _ => spans.push(Span::raw(" ")),
    }
    let mut used = 9;
    let lane = rows.lane(r);
    if !lane.is_empty() {
        let short = lane
            .trim_start_matches("agent-")
            .trim_start_matches("agent_");
        let tag = format!("{}{} ", short.chars().take(6).collect::<String>(), g.lane);
        used += tag.chars().count();
        spans.push(Span::styled(tag, theme.style(Role::TimelineLane)));
    }
    let name = rows.name(r);
    let detail = rows.detail(r);
    match r.kind {
        RowKind::Prompt | RowKind::Lifecycle => {
            let text = if r.kind == RowKind::Prompt {
                format!("{} {} {}", g.rule, g.arrow, detail)
            } else {
                format!("{} {} {}", g.rule, name, detail.trim())
            };
            let text = cut(text.trim_end(), width.saturating_sub(used + 1));
            let fill = width.saturating_sub(used + text.chars().count() + 1);
            spans.push(Span::styled(
                format!("{text} {}", g.rule.repeat(fill)),
                theme.style(Role::TimelineSeparator),
            ));
        }
        RowKind::Lapse => {
            let (sym, _) = outcome_style(Outcome::Failed, theme);
            let text = cut(
                &format!("{sym} {name}: {detail}"),
                width.saturating_sub(used),
            );
            spans.push(Span::styled(text, theme.style(Role::HealthErr)));
        }
        RowKind::Call | RowKind::Stop => {
            let o = r.outcome(k);
            let (sym, role) = outcome_style(o, theme);
            let dur = r.duration_ms(k).map(duration).unwrap_or_default();
            let dur_w = if dur.is_empty() {
                0
            } else {
                dur.chars().count() + 1
            };
            spans.push(Span::styled(format!("{sym} "), theme.style(role)));
            used += sym.chars().count() + 1;
            let name = cut(name, width.saturating_sub(used + dur_w).clamp(4, 40));
            used += name.chars().count();
            spans.push(Span::styled(name, theme.style(role)));
            if r.lapse {
                spans.push(Span::styled(" (lapse)", theme.style(Role::HealthErr)));
                used += 8;
            }
            let room = width.saturating_sub(used + dur_w + 1);
            let detail = if room >= 4 {
                cut(detail, room)
            } else {
                String::new()
            };
            if !detail.is_empty() {
                used += detail.chars().count() + 1;
                spans.push(Span::styled(format!(" {detail}"), theme.style(Role::Muted)));
            }
            if !dur.is_empty() {
                let pad = width.saturating_sub(used + dur.chars().count());
                spans.push(Span::raw(" ".repeat(pad)));
                spans.push(Span::styled(dur, theme.style(Role::TimelineTime)));
            }
        }
    }
    Line::from(spans)
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer, chrome: Chrome) {
    let focused = m.focus == Focus::Timeline;
    let g = glyphs(theme);
    let mut title = vec![Span::styled("timeline", theme.style(Role::Title))];
    if m.filter.active() || m.filter.editing {
        let caret = if m.filter.editing { g.cursor } else { "" };
        title.push(Span::styled(
            // A subagent's id (the lane followed) is the payload's: shown escaped, never raw.
            format!(" /{}{caret} ", super::sanitize::escape(&m.filter.text, 30)),
            theme.style(Role::Accent),
        ));
        let n = m.filter.matches.len();
        let said = match n {
            0 => "no row matches".to_string(),
            1 => "1 row matches".to_string(),
            n => format!("{n} rows match"),
        };
        title.push(Span::styled(said, theme.style(Role::Muted)));
    }
    let inner = pane::inner(area, chrome);
    let k = m.at();
    let rows = window(m, inner.height as usize);
    let title = Line::from(title);
    if rows.is_empty() {
        let text = if m.filter.active() {
            "no row matches the filter"
        } else if m.replay.is_some() {
            "the replay's start: Space plays, → steps"
        } else {
            "waiting for hook events"
        };
        let p = Pane::scrolled(title, focused, vec![pane::note(text, theme)], 0, 1);
        pane::draw(p, area, buf, theme, chrome);
        return;
    }
    // How many rows lie before and after the window (scrolled up, newer ones are below).
    let total = match m.filter.active() {
        true => m
            .filter
            .matches
            .partition_point(|&i| (i as usize) < m.rows.visible(k)),
        false => m.rows.visible(k),
    };
    let first = rows.first().copied().unwrap_or(0);
    let above = match m.filter.active() {
        true => m.filter.matches.partition_point(|&i| (i as usize) < first),
        false => first,
    };
    let mut lines: Vec<Line<'static>> = rows
        .iter()
        .filter_map(|&i| m.rows.get(i))
        .map(|r| row_line(&m.rows, r, k, inner.width as usize, m, theme))
        .collect();
    // The picked row is marked in the column after the time, and highlighted.
    let picked = m.picked.and_then(|p| rows.iter().position(|&i| i == p));
    if let Some(span) = picked
        .and_then(|i| lines.get_mut(i))
        .and_then(|l| l.spans.get_mut(1))
    {
        *span = Span::styled(g.arrow, theme.style(Role::Selection));
    }
    let p = Pane {
        title,
        focused,
        above,
        below: total.saturating_sub(above + lines.len()),
        rows: lines,
        highlight: picked.map(|i| (i, Role::Selection)),
    };
    pane::draw(p, area, buf, theme, chrome);
}
