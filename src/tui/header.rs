//! Header: session, sequence, enforcement mode, live/replay, event count and hook health
//! (last hook latency, fail-open lapses, denials); in a replay, playback state, what-if and the
//! scrubber; a notice line when there is one.

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

pub fn rows(m: &Model) -> u16 {
    2 + u16::from(m.notice.is_some()) + u16::from(m.replay.is_some())
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let g = glyphs(theme);
    let head = theme.style(Role::Header);
    // A side pane gets the same facts in fewer columns.
    let narrow = area.width < 60;
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
        top.push(Span::styled(st.enforcement.clone(), head));
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

    let f = m.shown();
    let h = &f.health;
    // A side pane keeps the id's first characters, so the counts after it stay on screen.
    let id = sanitize::clean(&m.session.id, if narrow { 9 } else { 24 });
    let mut bottom = vec![
        Span::styled(format!(" {}", plain_if_ascii(theme, &id)), head),
        sep(),
        Span::styled(
            format!("{}{}ev", m.at(), if narrow { "" } else { " " }),
            head,
        ),
        sep(),
    ];
    match h.last_ms {
        Some(ms) => {
            let role = if ms > SLOW_MS {
                Role::HealthWarn
            } else {
                Role::HealthOk
            };
            let label = if narrow { "" } else { "hook " };
            bottom.push(Span::styled(
                format!("{label}{ms:.1}ms"),
                head.patch(theme.style(role)),
            ));
        }
        None => bottom.push(Span::styled(plain_if_ascii(theme, "hook –"), head)),
    }
    let lapse_role = if h.lapses > 0 {
        Role::HealthErr
    } else {
        Role::HealthOk
    };
    let s = if h.lapses == 1 { "" } else { "s" };
    let lapses = Span::styled(
        format!("{} lapse{s}", h.lapses),
        head.patch(theme.style(lapse_role)),
    );
    let deny_role = if h.denials > 0 {
        Role::ToolsDenied
    } else {
        Role::HealthOk
    };
    let denied = Span::styled(
        format!("{} denied", h.denials),
        head.patch(theme.style(deny_role)),
    );
    // Narrow, denials come first: what a cut line keeps should be what the user acts on.
    let counts = if narrow {
        [denied, lapses]
    } else {
        [lapses, denied]
    };
    for c in counts {
        bottom.push(sep());
        bottom.push(c);
    }
    if m.malformed > 0 {
        bottom.push(sep());
        bottom.push(Span::styled(
            format!("{} bad lines", m.malformed),
            head.patch(theme.style(Role::HealthWarn)),
        ));
    }
    // Narrow, the sequence name gives way so enforcement and the replay state stay visible.
    let mut top_w: usize = top.iter().map(Span::width).sum();
    let width = area.width as usize;
    if narrow && top_w > width {
        let keep = sequence
            .chars()
            .count()
            .saturating_sub(top_w - width)
            .max(4);
        let name = sanitize::clean(sequence, keep);
        top[0] = Span::styled(format!(" {}", plain_if_ascii(theme, &name)), head);
        top_w = top.iter().map(Span::width).sum();
    }
    let mut lines = vec![Line::from(top), Line::from(bottom)];
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
    Paragraph::new(lines).style(head).render(area, buf);
    // `? keys` at the right end of the first line, when there is room for it.
    let hint = " ? keys ";
    let w = hint.len() as u16;
    if top_w + hint.len() < area.width as usize && area.height > 0 {
        buf.set_string(
            area.x + area.width - w,
            area.y,
            hint,
            head.patch(theme.style(Role::HelpKey)),
        );
    }
}
