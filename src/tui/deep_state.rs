//! Deep state: each reader of the sequence with its current value and when it changed (the most
//! recent change stands out), then the variables the session holds and the flags it has set
//! (what gates such as hope's ExitPlanMode check).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use serde_json::Value;

use super::common::{Chrome, frame, hms, line};
use super::fold::Deep;
use super::model::{Focus, Model};
use super::sanitize;
use super::theme::{Role, Theme};

const FLAGS: &str = "flags";

/// The flags set in the shown snapshot of the selected sequence, in name order.
pub fn set_flags(m: &Model) -> Vec<String> {
    m.snapshot()
        .map(|s| {
            s.flags
                .iter()
                .filter(|(_, on)| **on)
                .map(|(k, _)| sanitize::clean(k, 40))
                .collect()
        })
        .unwrap_or_default()
}

/// The variables that hold a value, by name.
fn vars(m: &Model) -> Vec<(String, Value)> {
    m.status()
        .map(|st| {
            st.vars
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// Content rows at `width` columns.
pub fn wanted_rows(m: &Model, width: u16) -> u16 {
    let (values, vars, flags) = (m.deep_values(), vars(m), set_flags(m));
    let key_w = key_width(&values, &vars, &flags).min((width as usize / 2).max(8));
    let flags = flag_lines(&flags, width, key_w).len();
    let head = head_rows(m, width);
    (head + values.len() + vars.len() + flags).max(1) as u16
}

/// The width of the name column: the longest reader, variable or the `flags` label.
fn key_width(
    values: &[(String, Option<Deep>)],
    vars: &[(String, Value)],
    flags: &[String],
) -> usize {
    values
        .iter()
        .map(|(n, _)| n)
        .chain(vars.iter().map(|(n, _)| n))
        .map(|n| n.chars().count())
        .chain(std::iter::once(if flags.is_empty() {
            0
        } else {
            FLAGS.len()
        }))
        .max()
        .unwrap_or(0)
        .min(24)
}

/// The set flags packed into lines of at most `width` columns after the name column.
fn flag_lines(flags: &[String], width: u16, key_w: usize) -> Vec<String> {
    let room = (width as usize).saturating_sub(key_w + 1).max(12);
    let mut out: Vec<String> = Vec::new();
    for f in flags {
        match out.last_mut() {
            Some(l) if l.chars().count() + 2 + f.chars().count() <= room => {
                l.push_str(", ");
                l.push_str(f);
            }
            _ => out.push(f.clone()),
        }
    }
    out
}

/// Rows the readers' values take: what a sequence that watches deep state keeps on screen.
pub fn reader_rows(m: &Model) -> u16 {
    m.seq().map_or(0, |s| {
        s.machine.chart.readers.len().min(u16::MAX as usize) as u16
    })
}

fn show(v: &Value) -> String {
    match v {
        Value::Null => "—".into(),
        Value::String(s) => format!("\"{}\"", sanitize::clean(s, 40)),
        other => sanitize::clean(&other.to_string(), 40),
    }
}

/// Rows [`head_lines`] takes.
fn head_rows(m: &Model, width: u16) -> usize {
    let items = m.derived.items.as_ref().map_or(0, |i| {
        i.items.len() + usize::from(i.left_out > 0) + usize::from(i.progress.is_some())
    });
    moved_lines(m, width).len() + items
}

/// `moved by files: dna.json changed 3 s ago`, on two lines when one is too narrow for it.
fn moved_lines(m: &Model, width: u16) -> Vec<String> {
    let Some(moved) = m.moved() else {
        return Vec::new();
    };
    let text = moved.line(m.now);
    let w = width as usize;
    match text.split_once(": ") {
        Some((head, rest)) if text.chars().count() > w => {
            vec![format!("{head}:"), sanitize::clean(&format!("  {rest}"), w)]
        }
        _ => vec![sanitize::clean(&text, w)],
    }
}

/// Lines above the readers: that the files moved the state since the last record, then each
/// item's lifecycle.
fn head_lines(m: &Model, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for l in moved_lines(m, width) {
        out.push(line(l, theme.style(Role::DeepChanged)));
    }
    let Some(items) = &m.derived.items else {
        return out;
    };
    // One row per item (seed 002: per organ) — its name, then where its lifecycle is.
    let name_w = items
        .items
        .iter()
        .map(|i| i.name.chars().count())
        .max()
        .unwrap_or(0)
        .min((width as usize / 2).max(8));
    for i in &items.items {
        out.push(Line::from(vec![
            Span::styled(
                format!("{:<name_w$} ", sanitize::clean(&i.name, name_w)),
                theme.style(Role::DeepKey),
            ),
            Span::styled(
                sanitize::clean(&i.states.join(", "), 40),
                theme.style(Role::DeepValue),
            ),
        ]));
    }
    if items.left_out > 0 {
        out.push(line(
            format!("… {} more {}s", items.left_out, items.what),
            theme.style(Role::Muted),
        ));
    }
    if let Some(p) = items.progress_line() {
        out.push(line(p, theme.style(Role::DeepValue)));
    }
    out
}

/// The region's lines at `width` columns: what the files moved first, then the readers.
pub fn lines(m: &Model, theme: &Theme, width: u16, rows: usize) -> Vec<Line<'static>> {
    let mut out = head_lines(m, theme, width);
    let rest = rows.saturating_sub(out.len());
    out.extend(value_lines(m, theme, width, rest));
    out
}

/// The readers, variables and flags; when `rows` cannot hold every reader, the most recently
/// changed come first (what a short region is for).
fn value_lines(m: &Model, theme: &Theme, width: u16, rows: usize) -> Vec<Line<'static>> {
    let mut values = m.deep_values();
    let vars = vars(m);
    let flags = set_flags(m);
    if values.is_empty() && vars.is_empty() && flags.is_empty() {
        return vec![line("no readers", theme.style(Role::Muted))];
    }
    // The names never take more than half the row: the values are what is watched.
    let name_w = key_width(&values, &vars, &flags).min((width as usize / 2).max(8));
    let latest = values
        .iter()
        .filter_map(|(_, d)| d.as_ref().map(|d| d.changed_at))
        .max();
    if values.len() + vars.len() + flags.len().min(1) > rows {
        values.sort_by_key(|(_, d)| std::cmp::Reverse(d.as_ref().map(|d| d.changed_at)));
    }
    let ascii = theme.symbols.bar_full.is_ascii();
    let key = |name: &str, role: Role| {
        Span::styled(
            format!("{:<name_w$} ", sanitize::clean(name, name_w)),
            theme.style(role),
        )
    };
    let value = |v: &Value| {
        let s = show(v);
        if ascii && s == "—" { "-".into() } else { s }
    };
    let mut out: Vec<Line<'static>> = values
        .into_iter()
        .map(|(name, d)| {
            let mut spans = vec![key(&name, Role::DeepKey)];
            match d {
                Some(d) => {
                    let fresh = latest.is_some_and(|l| l > 0 && d.changed_at == l);
                    let role = if fresh {
                        Role::DeepChanged
                    } else {
                        Role::DeepValue
                    };
                    let v = value(&d.value);
                    // When it changed, if the row has room for it after the value.
                    let room = (width as usize).saturating_sub(name_w + 1 + v.chars().count());
                    spans.push(Span::styled(v, theme.style(role)));
                    if let Some(t) = d.changed_ts.filter(|_| room >= 16) {
                        spans.push(Span::styled(
                            format!("  since {}", hms(t, &m.tz)),
                            theme.style(Role::TimelineTime),
                        ));
                    }
                }
                None => spans.push(Span::styled("not sampled", theme.style(Role::Muted))),
            }
            Line::from(spans)
        })
        .collect();
    for (name, v) in &vars {
        out.push(Line::from(vec![
            key(name, Role::Muted),
            Span::styled(value(v), theme.style(Role::DeepValue)),
        ]));
    }
    let pad = " ".repeat(name_w + 1);
    for (i, l) in flag_lines(&flags, width, name_w).into_iter().enumerate() {
        let head = match i {
            0 => key(FLAGS, Role::Muted),
            _ => Span::raw(pad.clone()),
        };
        out.push(Line::from(vec![
            head,
            Span::styled(l, theme.style(Role::DeepValue)),
        ]));
    }
    out
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer, chrome: Chrome) {
    let focused = m.focus == Focus::Deep;
    let block = frame(
        line("deep state", theme.style(Role::Title)),
        focused,
        theme,
        chrome,
    );
    let inner = block.inner(area);
    Paragraph::new(lines(m, theme, inner.width, inner.height as usize))
        .scroll((m.scroll.deep.min(u16::MAX as usize) as u16, 0))
        .block(block)
        .render(area, buf);
}
