//! One call whole (`Enter` on a timeline row): its input, the verdict and its reason, the
//! error and the response, from the records the row stands for. The text is made safe once,
//! when the records arrive (control characters written out, nothing run), and drawn in a box
//! that scrolls and says how much lies above and below.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};
use serde_json::Value;

use crate::store::record::Record;

use super::common::{Chrome, line};
use super::model::Model;
use super::pane::{self, Pane};
use super::sanitize;
use super::text;
use super::theme::{Role, Theme};

/// Lines of one field kept for the view; the rest is counted, not kept.
pub const MAX_LINES: usize = 400;
/// Cells a field's line is cut at before it is wrapped (a minified JSON blob).
pub const MAX_LINE_CHARS: usize = 2000;

/// What the detail view shows of one call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Detail {
    /// The call's name, as the timeline spells it.
    pub title: String,
    /// (heading, text) in order; the text may hold several lines.
    pub sections: Vec<(String, String)>,
    /// The verdict's reason, for `y` (copy).
    pub reason: Option<String>,
}

impl Detail {
    /// Waiting for the records to be read from the log.
    pub fn loading(title: &str) -> Detail {
        Detail {
            title: sanitize::clean(title, 120),
            sections: vec![("".into(), "reading the call from the log…".into())],
            reason: None,
        }
    }

    /// The call from its first record (`pre`, the gate) and the one that completed it.
    pub fn of(title: &str, pre: Option<&Record>, post: Option<&Record>) -> Detail {
        let mut d = Detail {
            title: sanitize::clean(title, 120),
            ..Detail::default()
        };
        let first = pre.or(post);
        if let Some(ev) = first.and_then(|r| r.event.as_ref()) {
            d.push("input", &pretty(&ev.input));
        }
        if let Some(v) = pre.and_then(|r| r.verdict.as_ref()) {
            d.push(
                "verdict",
                &format!("{} ({})", v.decision.as_str(), v.mode.as_str()),
            );
            if !v.reason.is_empty() {
                d.push("reason", &v.reason);
                d.reason = Some(sanitize::visible(&v.reason).into_owned());
            }
            if let Some(w) = &v.warning {
                d.push("warning", w);
            }
        }
        for r in [pre, post].into_iter().flatten() {
            if let Some(e) = &r.error {
                d.push(&format!("seed's error ({})", r.hook), e);
            }
        }
        if let Some(p) = post {
            d.push_response(p);
        }
        if d.sections.is_empty() {
            d.push("", "the log holds nothing more of this row");
        }
        d
    }

    fn push(&mut self, heading: &str, body: &str) {
        self.sections
            .push((heading.to_string(), sanitize::visible(body).into_owned()));
    }

    /// The response (or, for a call that failed, its error) as the log kept it.
    fn push_response(&mut self, p: &Record) {
        let failed = p.hook == "PostToolUseFailure";
        let heading = if failed { "error" } else { "response" };
        let event_response = p.event.as_ref().map(|e| &e.response);
        match (&p.response, event_response) {
            (Some(r), ev) => {
                let value = if r.value.is_null() {
                    ev.unwrap_or(&Value::Null)
                } else {
                    &r.value
                };
                let mut body = pretty(value);
                if r.truncated {
                    body.push_str(&format!(
                        "\n… the log kept part of it ({} bytes in all)",
                        r.size
                    ));
                }
                self.push(heading, &body);
            }
            (None, Some(v)) if !v.is_null() => self.push(heading, &pretty(v)),
            _ if failed => self.push(heading, "the call failed; the log kept no message"),
            _ => {}
        }
    }
}

/// A JSON value as it reads best: a string as its text, anything else indented.
fn pretty(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "(none)".into(),
        v => serde_json::to_string_pretty(v).unwrap_or_default(),
    }
}

/// The detail's rows at `width` columns: each heading, then its text indented and wrapped,
/// every line cut at [`MAX_LINE_CHARS`] and every field at [`MAX_LINES`] (with a mark).
pub fn rows(d: &Detail, style: &dyn Fn(Role) -> Style, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for (heading, body) in &d.sections {
        if !heading.is_empty() {
            out.push(line(heading.clone(), style(Role::Title)));
        }
        let lines: Vec<&str> = body.lines().collect();
        for l in lines.iter().take(MAX_LINES) {
            let shown = text::cut(&l.replace('\t', "    "), MAX_LINE_CHARS);
            let l = Line::from(Span::styled(format!("  {shown}"), style(Role::Base)));
            out.extend(text::wrap(l, width, 2));
        }
        if lines.len() > MAX_LINES {
            let more = format!("  … {} more lines", lines.len() - MAX_LINES);
            out.push(line(more, style(Role::Muted)));
        }
    }
    out
}

/// Where the box goes: every row but the header's first and the footer.
pub fn place(area: Rect) -> Rect {
    Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(2),
    )
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let Some(d) = &m.detail else { return };
    let popup = place(area);
    Clear.render(popup, buf);
    let inner = pane::inner(popup, Chrome::Boxed);
    let all = rows(d, &|r| theme.style(r), inner.width as usize);
    let title = Line::from(vec![
        Span::styled("call ", theme.style(Role::Title)),
        Span::styled(d.title.clone(), theme.style(Role::Accent)),
    ]);
    let p = Pane::scrolled(title, true, all, m.scroll.detail, inner.height as usize);
    pane::draw(p, popup, buf, theme, Chrome::Boxed);
}

/// The furthest the detail scrolls on a terminal of `size`.
pub fn max_scroll(m: &Model, size: (u16, u16)) -> usize {
    let Some(d) = &m.detail else { return 0 };
    let inner = pane::inner(place(Rect::new(0, 0, size.0, size.1)), Chrome::Boxed);
    rows(d, &|_| Style::default(), inner.width as usize)
        .len()
        .saturating_sub(inner.height as usize)
}
