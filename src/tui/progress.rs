//! Layered progress: one bar per layer with its range and value (seed 000: base 0–50, context
//! 50–75, execution 75–100), the overall bar with the highest point reached, steps remaining,
//! and a loop mark while the current step is inside a loop.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::common::{Chrome, bar, frame, glyphs, line};
use super::model::Model;
use super::theme::{Role, Theme};

/// Content rows: the layers, the overall bar and the summary line.
pub fn wanted_rows(m: &Model) -> u16 {
    m.status().map_or(1, |s| s.progress.layers.len() as u16 + 2)
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer, chrome: Option<Chrome>) {
    let inner = match chrome {
        Some(c) => {
            let block = frame(line("progress", theme.style(Role::Title)), false, theme, c);
            let inner = block.inner(area);
            block.render(area, buf);
            inner
        }
        None => area,
    };
    let Some(st) = m.status() else {
        Paragraph::new(line("no sequence", theme.style(Role::Muted))).render(inner, buf);
        return;
    };
    let g = glyphs(theme);
    let ascii = theme.symbols.bar_full.is_ascii();
    let dash = if ascii { "-" } else { "–" };
    let p = &st.progress;
    let name_w = p
        .layers
        .iter()
        .map(|l| l.name.chars().count())
        .chain([7])
        .max()
        .unwrap_or(7)
        .min(12);
    let rows = inner.height as usize;
    // Enough rows: layers, overall, a summary line. One short: the summary goes compact onto
    // the overall line. Fewer: the overall line first, then the layers that fit.
    let full = rows >= p.layers.len() + 2;
    let ge = if ascii { ">=" } else { "≥" };
    // Compact: the highest reached only when progress fell back from it (as the bar marks it),
    // and the loop mark only beside a count of steps (a loop may add to it; nothing is left to
    // count once no call is left or the sequence is done).
    let left = crate::report::remaining_short(p);
    let counted = left.starts_with('≥');
    // Said in words where there is room (a side pane has the statechart's ↺ for it).
    let loop_mark = p.in_loop && counted && inner.width >= 60;
    let high = if p.highest > p.overall + 0.5 {
        format!(" highest {:.0}%", p.highest)
    } else {
        String::new()
    };
    let compact = format!(
        "{high} {}{}",
        left.replace('≥', ge),
        if loop_mark { ", in a loop" } else { "" }
    );
    // Short of rows, the compact summary goes into the overall label's blank range column when
    // it fits there, else after the bar.
    let label_w = name_w + 8;
    let in_label = !full && 7 + compact.chars().count() <= label_w;
    let tail = if full || in_label {
        2
    } else {
        compact.chars().count().max(2)
    };
    // name, range "100–100 ", brackets, value " 100%", the current mark or the compact summary.
    let bar_w = (inner.width as usize)
        .saturating_sub(name_w + 1 + 8 + 2 + 5 + tail)
        .max(4);
    let open = Span::styled("[", theme.style(Role::Muted));
    let close = Span::styled("]", theme.style(Role::Muted));

    let layer_lines: Vec<Line> = p
        .layers
        .iter()
        .map(|l| {
            let name_role = if l.current { Role::Accent } else { Role::Base };
            let mut spans = vec![
                Span::styled(
                    format!("{:<name_w$.name_w$} ", l.name),
                    theme.style(name_role),
                ),
                Span::styled(
                    format!("{:>3.0}{dash}{:<3.0} ", l.lo, l.hi),
                    theme.style(Role::Muted),
                ),
                open.clone(),
            ];
            spans.extend(bar(l.value / 100.0, bar_w, theme, Role::ProgressLayer));
            spans.push(close.clone());
            spans.push(Span::styled(
                format!("{:>4.0}%", l.value),
                theme.style(Role::Base),
            ));
            if l.current {
                let mark = if ascii { " <" } else { " ◂" };
                spans.push(Span::styled(mark, theme.style(Role::Accent)));
            }
            Line::from(spans)
        })
        .collect();

    let mut overall = vec![Span::styled("overall", theme.style(Role::ProgressOverall))];
    let summary = |spans: &mut Vec<Span<'static>>, compact: &str| {
        let loop_at = compact.rfind(',').filter(|_| loop_mark);
        let (head, mark) = match loop_at {
            Some(i) => (compact[..i].to_string(), compact[i..].to_string()),
            None => (compact.to_string(), String::new()),
        };
        spans.push(Span::styled(head, theme.style(Role::ProgressHighest)));
        spans.push(Span::styled(mark, theme.style(Role::ProgressLoop)));
    };
    let mut label_used = 7;
    if in_label {
        summary(&mut overall, &compact);
        label_used += compact.chars().count();
    }
    overall.push(Span::raw(" ".repeat(label_w + 1 - label_used)));
    overall.push(open);
    overall.extend(bar(p.overall / 100.0, bar_w, theme, Role::ProgressOverall));
    overall.push(close);
    overall.push(Span::styled(
        format!("{:>4.0}%", p.overall),
        theme.style(Role::ProgressOverall),
    ));

    // Worded as the CLI words it.
    let remaining = crate::report::remaining(p).replace('≥', ge);
    let mut info = vec![
        Span::styled(
            format!("{} highest {:.0}%", g.high, p.highest),
            theme.style(Role::ProgressHighest),
        ),
        Span::styled(format!(" {} {remaining}", g.dot), theme.style(Role::Muted)),
    ];
    if p.in_loop {
        info.push(Span::styled(
            format!(" {} {} in a loop", g.dot, theme.symbols.markers.loop_),
            theme.style(Role::ProgressLoop),
        ));
    }

    let mut lines: Vec<Line> = Vec::new();
    let overall_row;
    if full {
        lines.extend(layer_lines);
        overall_row = lines.len();
        lines.push(Line::from(overall));
        lines.push(Line::from(info));
    } else {
        if !in_label {
            summary(&mut overall, &compact);
        }
        if rows == p.layers.len() + 1 {
            lines.extend(layer_lines);
            overall_row = lines.len();
            lines.push(Line::from(overall));
        } else {
            overall_row = 0;
            lines.push(Line::from(overall));
            lines.extend(layer_lines.into_iter().take(rows.saturating_sub(1)));
        }
    }
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|l| super::text::fit(l, inner.width as usize))
        .collect();
    Paragraph::new(lines).render(inner, buf);

    // Mark the highest point reached on the overall bar when progress fell back from it.
    if p.highest > p.overall + 0.5 && (overall_row as u16) < inner.height {
        let x0 = inner.x as usize + name_w + 9 + 1;
        let pos = ((p.highest / 100.0) * bar_w as f64).ceil() as usize;
        let x = x0 + pos.clamp(1, bar_w) - 1;
        if x < (inner.x + inner.width) as usize {
            let cell = &mut buf[(x as u16, inner.y + overall_row as u16)];
            cell.set_symbol(if ascii { "|" } else { "┃" });
            cell.set_style(theme.style(Role::ProgressHighest));
        }
    }
}
