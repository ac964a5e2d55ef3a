//! A buffer as every exporter sees it: rows of glyphs with clean text, widths and colours.

use std::borrow::Cow;

use ratatui::buffer::{Buffer, CellWidth};
use ratatui::style::{Color, Modifier};

use crate::theme::{Palette, Rgb};

/// One visible cell: a grapheme and the columns it covers (2 for wide characters, whose
/// following cell is hidden under it, as on a terminal).
#[derive(Debug, Clone)]
pub(super) struct Glyph<'a> {
    pub col: u16,
    pub width: u16,
    /// Never empty, never a control character (see [`clean`]).
    pub text: Cow<'a, str>,
    pub fg: Color,
    pub bg: Color,
    pub underline_color: Color,
    pub modifier: Modifier,
}

impl Glyph<'_> {
    /// A plain space draws only its background.
    pub fn is_blank(&self) -> bool {
        self.text == " "
    }
}

/// The visible glyphs of row `y` of `buffer`, left to right.
pub(super) fn row(buffer: &Buffer, y: u16) -> Vec<Glyph<'_>> {
    let area = buffer.area;
    let start = usize::from(y) * usize::from(area.width);
    let cells = buffer
        .content
        .get(start..start + usize::from(area.width))
        .unwrap_or_default();
    let mut glyphs = Vec::with_capacity(cells.len());
    // Cells under the right half of a wide glyph are not drawn, as on a terminal and in
    // TestBackend's view.
    let mut covered_until = 0;
    for (col, cell) in (0..area.width).zip(cells) {
        if col < covered_until {
            continue;
        }
        let text = clean(cell.symbol());
        let width = text.cell_width().clamp(1, area.width - col);
        covered_until = col + width;
        glyphs.push(Glyph {
            col,
            width,
            text,
            fg: cell.fg,
            bg: cell.bg,
            underline_color: cell.underline_color,
            modifier: cell.modifier,
        });
    }
    glyphs
}

/// Cell text safe for every format: control characters (which could drive a terminal or break
/// XML) and the XML-forbidden U+FFFE/U+FFFF become U+FFFD; empty or zero-width text becomes a
/// space so columns stay aligned.
pub(super) fn clean(symbol: &str) -> Cow<'_, str> {
    let bad = |c: char| c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}';
    let text: Cow<'_, str> = if symbol.chars().any(bad) {
        Cow::Owned(
            symbol
                .chars()
                .map(|c| if bad(c) { '\u{FFFD}' } else { c })
                .collect(),
        )
    } else {
        Cow::Borrowed(symbol)
    };
    if text.cell_width() == 0 {
        Cow::Borrowed(" ")
    } else {
        text
    }
}

/// Concrete colours of a glyph under a theme's palette.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Paint {
    pub fg: Rgb,
    pub bg: Rgb,
    pub bold: bool,
    pub italic: bool,
    pub underline: Option<Rgb>,
    pub strike: bool,
    pub hidden: bool,
}

impl Paint {
    pub fn of(glyph: &Glyph<'_>, palette: &Palette) -> Paint {
        let m = glyph.modifier;
        let (mut fg, mut bg) = (palette.fg(glyph.fg), palette.bg(glyph.bg));
        if m.contains(Modifier::REVERSED) {
            std::mem::swap(&mut fg, &mut bg);
        }
        if m.contains(Modifier::DIM) {
            // Terminals draw faint text at roughly 60% intensity.
            fg = fg.mix(bg, 0.4);
        }
        let underline = m
            .contains(Modifier::UNDERLINED)
            .then(|| match glyph.underline_color {
                Color::Reset => fg,
                color => palette.fg(color),
            });
        Paint {
            fg,
            bg,
            bold: m.contains(Modifier::BOLD),
            italic: m.contains(Modifier::ITALIC),
            underline,
            strike: m.contains(Modifier::CROSSED_OUT),
            hidden: m.contains(Modifier::HIDDEN),
        }
    }
}
