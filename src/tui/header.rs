//! Header: session (its id, the project it ran in and its age), sequence, enforcement mode,
//! live/replay, event count and hook health (last hook latency, lapses apart from fail-closed
//! refusals, failures only `errors.jsonl` holds, denials); in a replay, playback state,
//! what-if and the scrubber; a notice line when there is one (a session of another project
//! than this directory's says so there).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::common::{glyphs, plain_if_ascii};
use super::model::{Mode, Model};
use super::sanitize;
use super::scrubber;
use super::theme::{Role, Theme};

/// Hook latency above this shows as a warning (the hook's budget is 2–4 ms).
const SLOW_MS: f64 = 4.0;

/// Below this width the header is a side pane's: the session gets a line of its own.
const NARROW: u16 = 60;

pub fn rows(m: &Model, width: u16) -> u16 {
    2 + u16::from(split(m, width)) + u16::from(m.notice.is_some()) + u16::from(m.replay.is_some())
}

/// Whether the session (id, project, age) gets a line of its own: when it and the counts do
/// not fit on one, so neither is cut (the counts are what the user acts on).
fn split(m: &Model, width: u16) -> bool {
    let narrow = width < NARROW;
    let sep = if narrow { 1 } else { 3 };
    let len = |parts: &[String]| {
        parts.iter().map(|p| p.chars().count()).sum::<usize>() + sep * parts.len().saturating_sub(1)
    };
    let session = session_parts(m, narrow);
    let counts: Vec<String> = count_parts(m, narrow).into_iter().map(|(t, _)| t).collect();
    session.len() > 1 && 1 + len(&session) + sep + len(&counts) > width as usize
}

/// The session's id, then where and since when.
fn session_parts(m: &Model, narrow: bool) -> Vec<String> {
    // A side pane keeps the id's first characters.
    let mut parts = vec![sanitize::clean(&m.session.id, if narrow { 9 } else { 24 })];
    parts.extend(whereabouts(m, narrow));
    parts
}

/// Events, hook latency, lapses and denials (narrow: denials first, so a cut line keeps what
/// the user acts on), bad lines; each with the role that colours it.
fn count_parts(m: &Model, narrow: bool) -> Vec<(String, Option<Role>)> {
    let h = &m.shown().health;
    let n = m.at();
    let mut out = vec![(format!("{n} event{}", if n == 1 { "" } else { "s" }), None)];
    if let Some(age) = last_event_age(m) {
        out.push((format!("last {age}"), None));
    }
    out.push(match h.last_ms {
        Some(ms) => (
            format!("hook {ms:.1} ms"),
            Some(if ms > SLOW_MS {
                Role::HealthWarn
            } else {
                Role::HealthOk
            }),
        ),
        None => ("hook –".to_string(), None),
    });
    let lapses = failure_parts(m);
    let denied = (
        format!("{} denied", h.denials),
        Some(if h.denials > 0 {
            Role::ToolsDenied
        } else {
            Role::HealthOk
        }),
    );
    if narrow {
        out.insert(1, denied);
        for (i, l) in lapses.into_iter().enumerate() {
            out.insert(2 + i, l);
        }
    } else {
        out.extend(lapses);
        out.push(denied);
    }
    if m.malformed > 0 {
        out.push((format!("{} bad lines", m.malformed), Some(Role::HealthWarn)));
    }
    out
}

/// seed's own failures, said only when there are any: lapses (`hook failure`: a call let
/// through unjudged, a hook over its time budget) apart from fail-closed refusals (which did
/// their job), counting those only `errors.jsonl` holds; then failures with no session since
/// this one started.
fn failure_parts(m: &Model) -> Vec<(String, Option<Role>)> {
    let t = m.shown().health.failures.merged(m.outside.session);
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let mut out = Vec::new();
    if t.lapses > 0 {
        out.push((
            format!("{} hook failure{}", t.lapses, plural(t.lapses)),
            Some(Role::HealthErr),
        ));
    }
    if t.failed_closed > 0 {
        out.push((
            format!("{} fail-closed", t.failed_closed),
            Some(Role::HealthWarn),
        ));
    }
    let u = m.outside.unattributed;
    let n = u.lapses + u.failed_closed;
    if n > 0 {
        out.push((format!("{n} unattributed"), Some(Role::HealthErr)));
    }
    out
}

/// Longest project path the header shows; a longer one keeps its end (`…/projects/app`).
const PROJECT_CHARS: usize = 32;

/// Where and since when: the session's project and its age (`started 2 h ago` live; the time
/// it started in a replay, or before the clock is known). A side pane gets the project's last
/// directory and a shorter date.
fn whereabouts(m: &Model, narrow: bool) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = &m.session.project {
        let p = sanitize::clean(p, 4096);
        let shown = match narrow {
            true => p
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or(&p)
                .to_string(),
            false => p,
        };
        let max = if narrow { 14 } else { PROJECT_CHARS };
        let n = shown.chars().count();
        out.push(if n > max {
            let keep: String = shown.chars().skip(n + 1 - max).collect();
            format!("…{keep}")
        } else {
            shown
        });
    }
    if let Some(started) = m.session.started {
        let format = if narrow {
            "%m-%d %H:%M"
        } else {
            "%Y-%m-%d %H:%M"
        };
        out.push(match (m.mode, m.now) {
            (Mode::Live, Some(now)) => format!(
                "started {}",
                crate::report::session::ago((now - started) / 1000)
            ),
            _ => jiff::Timestamp::from_millisecond(started)
                .map(|t| t.to_zoned(m.tz.clone()).strftime(format).to_string())
                .unwrap_or_default(),
        });
    }
    out
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let g = glyphs(theme);
    let head = theme.style(Role::Header);
    // A side pane gets the same facts in fewer columns.
    let narrow = area.width < NARROW;
    let sep = || {
        Span::styled(
            if narrow {
                " ".to_string()
            } else {
                format!(" {} ", g.dot)
            },
            head,
        )
    };
    let status = m.status();
    let sequence = m.seq().map_or("no sequence", |s| s.name());
    let mut top = if narrow {
        vec![Span::styled(format!(" {sequence}"), head)]
    } else {
        vec![
            Span::styled(" seed ", head),
            Span::styled(format!("{} ", g.arrow), head),
            Span::styled(sequence.to_string(), head),
        ]
    };
    if m.seqs.len() > 1 {
        top.push(Span::styled(
            format!(" ({}/{})", m.selected + 1, m.seqs.len()),
            head,
        ));
    }
    if let Some(st) = status {
        top.push(sep());
        top.push(Span::styled(st.enforcement.as_str(), head));
    }
    top.push(sep());
    match m.mode {
        Mode::Live => top.push(Span::styled(
            "LIVE",
            head.patch(theme.style(Role::HealthOk)),
        )),
        Mode::Replay { cursor } => top.push(Span::styled(
            format!("REPLAY {cursor}/{}", m.fold.applied),
            head.patch(theme.style(Role::Accent)),
        )),
    }
    if let Some(rp) = &m.replay {
        let ascii = theme.symbols.bar_full.is_ascii();
        let state = match (rp.playing, ascii) {
            (true, false) => "▶",
            (true, true) => ">",
            // Two bars, as a pause button; the bundled PNG font has no U+23F8.
            (false, false) => "‖",
            (false, true) => "||",
        };
        top.push(Span::styled(
            format!(" {state} {}", rp.speed_label()),
            head.patch(theme.style(Role::Accent)),
        ));
        if let Some(w) = &rp.what_if {
            top.push(sep());
            top.push(Span::styled(
                format!("what-if: {}", sanitize::clean(w, 40)),
                head.patch(theme.style(Role::WhatifDiff)),
            ));
        }
    }
    if let Some(st) = status
        && (st.halted || st.failed.is_some())
    {
        top.push(sep());
        let (text, role) = match &st.failed {
            Some(f) => (format!("failed: {}", f), Role::HealthErr),
            None => ("done".to_string(), Role::HealthOk),
        };
        top.push(Span::styled(text, head.patch(theme.style(role))));
    }

    let session: Vec<Span> = session_parts(m, narrow)
        .into_iter()
        .enumerate()
        .flat_map(|(i, part)| {
            let text = plain_if_ascii(theme, &part);
            match i {
                0 => vec![Span::styled(format!(" {text}"), head)],
                _ => vec![sep(), Span::styled(text, head)],
            }
        })
        .collect();
    let counts: Vec<Span> = count_parts(m, narrow)
        .into_iter()
        .enumerate()
        .flat_map(|(i, (text, role))| {
            let style = match role {
                Some(r) => head.patch(theme.style(r)),
                None => head,
            };
            let span = Span::styled(plain_if_ascii(theme, &text), style);
            match i {
                0 => vec![span],
                _ => vec![sep(), span],
            }
        })
        .collect();
    // Narrow, the sequence name gives way so enforcement and the replay state stay visible.
    let top_w: usize = top.iter().map(Span::width).sum();
    let width = area.width as usize;
    if narrow && top_w > width {
        let keep = sequence
            .chars()
            .count()
            .saturating_sub(top_w - width)
            .max(4);
        let name = sanitize::clean(sequence, keep);
        top[0] = Span::styled(format!(" {}", plain_if_ascii(theme, &name)), head);
    }
    let mut lines = vec![Line::from(top)];
    if split(m, area.width) {
        lines.push(Line::from(session));
        let mut bottom = vec![Span::styled(" ", head)];
        bottom.extend(counts);
        lines.push(Line::from(bottom));
    } else {
        let mut bottom = session;
        bottom.push(sep());
        bottom.extend(counts);
        lines.push(Line::from(bottom));
    }
    if m.replay.is_some() {
        lines.push(scrubber::line(m, theme, area.width as usize));
    }
    if let Some(n) = &m.notice {
        lines.push(Line::from(Span::styled(
            format!(" {}", plain_if_ascii(theme, &sanitize::clean(n, 200))),
            theme.style(Role::HealthWarn),
        )));
    }
    buf.set_style(area, head);
    // A line too long for the pane ends in `…`, never in a clipped word.
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|l| super::text::fit(l, area.width as usize))
        .collect();
    Paragraph::new(lines).style(head).render(area, buf);
}

/// `event 12 s ago` when following a live session and the clock is known (from `Msg::Tick`
/// or the newest news, never read here).
fn last_event_age(m: &Model) -> Option<String> {
    let (Mode::Live, Some(now), Some(last)) = (m.mode, m.now, m.shown().last_ts) else {
        return None;
    };
    Some(format!(
        "event {}",
        crate::report::session::ago((now - last) / 1000)
    ))
}
