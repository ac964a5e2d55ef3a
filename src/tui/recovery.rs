//! Recovery: what to do now first — the next call (or `done`, or what the sequence waits for)
//! — then the newest call denied since the sequence last moved (when, how often, by which state
//! of which tier), then the engine's suggestions, as `seed recovery` gives them. The first two
//! are never scrolled or squeezed away: the layout keeps their rows at every size. A denial
//! from before the last move is history (the timeline keeps it).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::engine::wording::state_in_tier;

use super::common::{Chrome, glyphs, hms, line, plain_if_ascii};
use super::fold::Denial;
use super::model::{Focus, Model};
use super::pane::{self, Pane};
use super::sanitize;
use super::text;
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

/// Columns from which the denial line gives its time.
const WITH_TIME: usize = 44;

/// A piece of text and what it is, styled only when drawn (the layout counts rows unstyled).
type Piece = (String, Role);

/// The first line: what to do now.
fn action(m: &Model) -> Vec<Piece> {
    let Some(st) = m.status() else {
        return vec![("no sequence".into(), Role::Muted)];
    };
    let p = &st.progress;
    if let Some(e) = p.ended.as_ref().filter(|_| !p.done) {
        return vec![(
            format!("ended in an error at \"{}\"", e.ending),
            Role::HealthErr,
        )];
    }
    if p.done || st.halted {
        return vec![(
            "done: the sequence has ended and gates no call any more".into(),
            Role::HealthOk,
        )];
    }
    match &st.next {
        Some(n) if n.blocked_by.is_none() => vec![
            ("next: call ".into(), Role::RecoveryTitle),
            (sanitize::clean(&n.tool, 200), Role::ToolsAllowed),
        ],
        Some(n) => vec![
            ("next: ".into(), Role::RecoveryTitle),
            (sanitize::clean(&n.tool, 200), Role::ToolsAllowed),
            (" — refused for now; see below".into(), Role::Muted),
        ],
        None => vec![(crate::report::remaining(p), Role::Muted)],
    }
}

/// The denial recovery is about, as one line after the theme's `mark` for a denied call.
fn denial(m: &Model, mark: &str, width: usize) -> Option<Vec<Piece>> {
    let (call, logged) = current_denial(m)?;
    let mut out = vec![(format!("{mark} denied "), Role::ToolsDenied)];
    // The time is worth a row only where there is room for it (the timeline has it too).
    if let Some(t) = logged.and_then(|d| d.ts).filter(|_| width >= WITH_TIME) {
        out.push((format!("{} ", hms(t, &m.tz)), Role::TimelineTime));
    }
    out.push((sanitize::clean(&call, 60), Role::ToolsDenied));
    if let Some(d) = logged.filter(|d| d.repeat > 1) {
        out.push((format!(" ×{}", d.repeat), Role::ToolsDenied));
    }
    if let Some(by) = logged.and_then(|d| d.by.as_ref()) {
        let who = state_in_tier(&by.state, &by.state, &by.tier);
        out.push((format!(" — by {}", sanitize::clean(&who, 60)), Role::Muted));
    }
    Some(out)
}

/// The suggestions, bar the one the first line already says (`Next: call X.`).
fn suggestions(m: &Model) -> Vec<Vec<Piece>> {
    let Some(st) = m.status() else {
        return Vec::new();
    };
    // Said already, unless it names other calls that would do too.
    let said = st.next.as_ref().map(|n| format!("Next: call {}.", n.tool));
    st.recovery
        .suggestions
        .iter()
        .filter(|s| said.as_deref() != Some(s.as_str()))
        .map(|s| vec![(sanitize::clean(s, 240), Role::RecoveryText)])
        .collect()
}

/// Rows at `width` columns: the action and the denial (each wrapped whole), then the
/// suggestions after `arrow`; `style` colours them, `fold` folds engine text to the theme's
/// glyphs. Also how many rows the first two take.
fn wrapped(
    m: &Model,
    width: usize,
    style: &dyn Fn(Role) -> Style,
    fold: &dyn Fn(&str) -> String,
    (arrow, mark): (&str, &str),
) -> Wrapped {
    let to_line = |pieces: Vec<Piece>, lead: Option<&str>| {
        let mut spans: Vec<Span<'static>> = Vec::new();
        if let Some(l) = lead {
            spans.push(Span::styled(format!("{l} "), style(Role::RecoveryTitle)));
        }
        for (t, r) in pieces {
            let mut st = style(r);
            // The call to make stands out: the tools region's colour, in bold.
            if r == Role::ToolsAllowed {
                st = st.add_modifier(Modifier::BOLD);
            }
            spans.push(Span::styled(fold(&t), st));
        }
        Line::from(spans)
    };
    let mut rows = text::wrap(to_line(action(m), None), width, 2);
    if let Some(d) = denial(m, mark, width) {
        rows.extend(text::wrap(to_line(d, None), width, 2));
    }
    let must = rows.len();
    // After a refusal or a failed call, the engine's first suggestion is the way forward from
    // it: it stays on screen with them.
    let mut first = rows.len();
    let st = m.status();
    let way_forward = st.is_some_and(|st| st.denied_call.is_some() || st.failed_call.is_some());
    for (i, s) in suggestions(m).into_iter().enumerate() {
        rows.extend(text::wrap(to_line(s, Some(arrow)), width, 2));
        if i == 0 && way_forward {
            first = rows.len();
        }
    }
    Wrapped { rows, must, first }
}

/// A region's rows, and how many of them say what to do (the action and the denial) and its
/// way forward (`first`, from the top).
struct Wrapped {
    rows: Vec<Line<'static>>,
    must: usize,
    first: usize,
}

fn plain(m: &Model, width: u16) -> Wrapped {
    let style = |_| Style::default();
    wrapped(m, width as usize, &style, &str::to_string, ("▸", "⊘"))
}

/// Rows that must be on screen at `width` columns: the action and the denial.
pub fn must_rows(m: &Model, width: u16) -> u16 {
    plain(m, width).must as u16
}

/// Rows that should be on screen at `width` columns: those, and the way forward.
pub fn first_rows(m: &Model, width: u16) -> u16 {
    plain(m, width).first as u16
}

/// Content rows at `width` columns.
pub fn wanted_rows(m: &Model, width: u16) -> u16 {
    plain(m, width).rows.len().max(1) as u16
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer, chrome: Chrome) {
    let focused = m.focus == Focus::Recovery;
    let inner = pane::inner(area, chrome);
    let g = glyphs(theme);
    let Wrapped { rows, first, .. } = wrapped(
        m,
        inner.width as usize,
        &|r| theme.style(r),
        &|s| plain_if_ascii(theme, s),
        (g.arrow, &theme.symbols.markers.denied),
    );
    // Scrolling moves the explanations under the rows that say what to do (all of them,
    // when those rows alone do not fit).
    let height = inner.height as usize;
    let pinned = if first <= height { first } else { 0 };
    let rest: Vec<Line<'static>> = rows[pinned..].to_vec();
    let title = line("recovery", theme.style(Role::RecoveryTitle));
    let p = Pane::scrolled(title, focused, rest, m.scroll.recovery, height - pinned);
    let mut shown: Vec<Line<'static>> = rows[..pinned].to_vec();
    shown.extend(p.rows);
    let p = Pane { rows: shown, ..p };
    pane::draw(p, area, buf, theme, chrome);
}
