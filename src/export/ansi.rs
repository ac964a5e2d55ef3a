//! Buffer → text with SGR escape sequences, replayable with `cat` in a terminal.
//!
//! Colours stay as the dashboard emitted them (named, indexed or RGB), so the terminal showing
//! the file applies its own palette, exactly as it does for the live dashboard.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

use super::grid::{self, Glyph};
use crate::theme::ansi_index;

/// SGR parameters for each modifier, in the order they are written.
const MODIFIERS: [(Modifier, u8); 9] = [
    (Modifier::BOLD, 1),
    (Modifier::DIM, 2),
    (Modifier::ITALIC, 3),
    (Modifier::UNDERLINED, 4),
    (Modifier::SLOW_BLINK, 5),
    (Modifier::RAPID_BLINK, 6),
    (Modifier::REVERSED, 7),
    (Modifier::HIDDEN, 8),
    (Modifier::CROSSED_OUT, 9),
];

pub fn render(buffer: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let glyphs = grid::row(buffer, y);
        let keep = glyphs
            .iter()
            .rposition(|g| !(g.is_blank() && sgr(g).is_empty()))
            .map_or(0, |i| i + 1);
        let mut current = String::new();
        for glyph in &glyphs[..keep] {
            let wanted = sgr(glyph);
            if wanted != current {
                // Reset then set: each change is self-contained, whatever came before.
                let _ = write!(out, "\x1b[0{wanted}m");
                current = wanted;
            }
            out.push_str(&glyph.text);
        }
        if !current.is_empty() {
            out.push_str("\x1b[0m");
        }
        out.push('\n');
    }
    out
}

/// `;`-prefixed SGR parameters for a glyph's style; empty for the terminal default.
fn sgr(glyph: &Glyph<'_>) -> String {
    let mut params = String::new();
    for (modifier, code) in MODIFIERS {
        if glyph.modifier.contains(modifier) {
            let _ = write!(params, ";{code}");
        }
    }
    colour(&mut params, glyph.fg, 30, 90, 38);
    colour(&mut params, glyph.bg, 40, 100, 48);
    params
}

/// Appends the parameters selecting `color`: `base`+i for the 8 normal colours, `bright`+i for
/// the 8 bright ones, `extended;5;n` or `extended;2;r;g;b` for the rest.
fn colour(params: &mut String, color: Color, base: u8, bright: u8, extended: u8) {
    let _ = match (color, ansi_index(color)) {
        (Color::Reset, _) => Ok(()),
        (_, Some(i)) if i < 8 => write!(params, ";{}", base as usize + i),
        (_, Some(i)) => write!(params, ";{}", bright as usize + i - 8),
        (Color::Indexed(n), None) => write!(params, ";{extended};5;{n}"),
        (Color::Rgb(r, g, b), None) => write!(params, ";{extended};2;{r};{g};{b}"),
        _ => Ok(()),
    };
}
