//! The replay scrubber: one line, the whole session from left to right, the part already shown
//! drawn heavier, the cursor, and a mark wherever a denial happened.
//! ```text
//! ━━━━┃━━━━━━●───────┃──────┃───────
//! ```

use ratatui::text::{Line, Span};

use super::model::Model;
use super::theme::{Role, Theme};

struct Glyphs {
    played: &'static str,
    ahead: &'static str,
    cursor: &'static str,
    denial: &'static str,
}

fn glyphs(theme: &Theme) -> Glyphs {
    if theme.symbols.bar_full.is_ascii() {
        Glyphs {
            played: "=",
            ahead: "-",
            cursor: "O",
            denial: "!",
        }
    } else {
        Glyphs {
            played: "━",
            ahead: "─",
            cursor: "●",
            denial: "┃",
        }
    }
}

/// The cell (of `cells`) that cursor position `p` (0..=`n`) falls in.
pub fn cell(p: usize, n: usize, cells: usize) -> usize {
    if n == 0 || cells == 0 {
        return 0;
    }
    (p.min(n) * (cells - 1)) / n
}

/// The scrubber, `width` columns wide (one space either side); empty outside a replay.
pub fn line(m: &Model, theme: &Theme, width: usize) -> Line<'static> {
    let Some(rp) = m.replay.as_ref() else {
        return Line::default();
    };
    let cells = width.saturating_sub(2);
    if cells == 0 {
        return Line::default();
    }
    let n = rp.len();
    let at = cell(m.cursor(), n, cells);
    let mut denied = vec![false; cells];
    for &p in &rp.denials {
        denied[cell(p, n, cells)] = true;
    }
    let g = glyphs(theme);
    let mut spans = vec![Span::raw(" ")];
    // Runs of one style become one span.
    let mut run = String::new();
    let mut run_role = Role::Scrubber;
    for (c, &d) in denied.iter().enumerate() {
        let (text, role) = if c == at {
            (g.cursor, Role::ScrubberCursor)
        } else if d {
            (g.denial, Role::ScrubberDenial)
        } else if c < at {
            (g.played, Role::ProgressBar)
        } else {
            (g.ahead, Role::Scrubber)
        };
        if role != run_role && !run.is_empty() {
            spans.push(Span::styled(
                std::mem::take(&mut run),
                theme.style(run_role),
            ));
        }
        run_role = role;
        run.push_str(text);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, theme.style(run_role)));
    }
    Line::from(spans)
}
