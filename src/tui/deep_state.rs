//! Deep state: each reader of the sequence with its current value and when it changed; the most
//! recent change stands out.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use serde_json::Value;

use super::common::{Chrome, frame, hms, line};
use super::model::{Focus, Model};
use super::sanitize;
use super::theme::{Role, Theme};

pub fn wanted_rows(m: &Model) -> u16 {
    m.deep_values().len().max(1) as u16
}

fn show(v: &Value) -> String {
    match v {
        Value::Null => "—".into(),
        Value::String(s) => format!("\"{}\"", sanitize::clean(s, 40)),
        other => sanitize::clean(&other.to_string(), 40),
    }
}

pub fn lines(m: &Model, theme: &Theme) -> Vec<Line<'static>> {
    let values = m.deep_values();
    if values.is_empty() {
        return vec![line("no readers", theme.style(Role::Muted))];
    }
    let name_w = values
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0)
        .min(24);
    let latest = values
        .iter()
        .filter_map(|(_, d)| d.as_ref().map(|d| d.changed_at))
        .max();
    let ascii = theme.symbols.bar_full.is_ascii();
    values
        .into_iter()
        .map(|(name, d)| {
            let mut spans = vec![Span::styled(
                format!("{:<name_w$} ", sanitize::clean(&name, 24)),
                theme.style(Role::DeepKey),
            )];
            match d {
                Some(d) => {
                    let fresh = latest.is_some_and(|l| l > 0 && d.changed_at == l);
                    let role = if fresh {
                        Role::DeepChanged
                    } else {
                        Role::DeepValue
                    };
                    let mut v = show(&d.value);
                    if ascii && v == "—" {
                        v = "-".into();
                    }
                    spans.push(Span::styled(v, theme.style(role)));
                    if let Some(t) = d.changed_ts {
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
        .collect()
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer, chrome: Chrome) {
    let focused = m.focus == Focus::Deep;
    let block = frame(
        line("deep state", theme.style(Role::Title)),
        focused,
        theme,
        chrome,
    );
    Paragraph::new(lines(m, theme))
        .scroll((m.scroll.deep.min(u16::MAX as usize) as u16, 0))
        .block(block)
        .render(area, buf);
}
