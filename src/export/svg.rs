//! Buffer → SVG: a rect per background run, a text per glyph run, on a fixed cell grid.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;

use super::grid::{self, Glyph, Paint};
use super::{CELL_HEIGHT, CELL_WIDTH, FONT_FAMILY};
use crate::theme::{Palette, Theme};

/// Font size at which DejaVu Sans Mono advances exactly [`CELL_WIDTH`] px (1233/2048 em).
/// Its line height (2384/2048 em ≈ 17.4 px) is a little over [`CELL_HEIGHT`], and box-drawing
/// glyphs overshoot the line box, so borders and block bars join without seams.
const FONT_SIZE: &str = "14.9489";
/// Baseline below the top of a cell: the ascent (1901/2048 em) less half the line-height excess.
const BASELINE: f32 = 13.7;

/// The buffer as a self-contained SVG document (no external references).
pub fn render(buffer: &Buffer, theme: &Theme) -> String {
    let palette = &theme.palette;
    let (cols, rows) = (buffer.area.width, buffer.area.height);
    let (width, height) = (u32::from(cols) * CELL_WIDTH, u32::from(rows) * CELL_HEIGHT);
    let mut out = String::with_capacity(usize::from(cols) * usize::from(rows) * 40 + 512);
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"{FONT_FAMILY}, monospace\" \
         font-size=\"{FONT_SIZE}\">\n<rect width=\"{width}\" height=\"{height}\" fill=\"{}\"/>\n",
        palette.background.hex()
    );
    let painted: Vec<Vec<(Glyph<'_>, Paint)>> = (0..rows)
        .map(|y| {
            grid::row(buffer, y)
                .into_iter()
                .map(|g| {
                    let paint = Paint::of(&g, palette);
                    (g, paint)
                })
                .collect()
        })
        .collect();
    // Crisp edges: anti-aliased neighbouring rects would leave hairline seams.
    out.push_str("<g shape-rendering=\"crispEdges\">\n");
    for (y, row) in (0..rows).zip(&painted) {
        backgrounds(&mut out, y, row, palette);
        decorations(&mut out, y, row);
    }
    out.push_str("</g>\n");
    for (y, row) in (0..rows).zip(&painted) {
        texts(&mut out, y, row);
    }
    out.push_str("</svg>\n");
    out
}

/// One rect per run of cells sharing a background other than the canvas's.
fn backgrounds(out: &mut String, y: u16, row: &[(Glyph<'_>, Paint)], palette: &Palette) {
    let top = u32::from(y) * CELL_HEIGHT;
    let mut i = 0;
    while i < row.len() {
        let bg = row[i].1.bg;
        let start = row[i].0.col;
        let mut end = start + row[i].0.width;
        i += 1;
        while i < row.len() && row[i].1.bg == bg {
            end = row[i].0.col + row[i].0.width;
            i += 1;
        }
        if bg != palette.background {
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"{top}\" width=\"{}\" height=\"{CELL_HEIGHT}\" fill=\"{}\"/>",
                u32::from(start) * CELL_WIDTH,
                u32::from(end - start) * CELL_WIDTH,
                bg.hex()
            );
        }
    }
}

/// Rows of pixels from the bottom of a cell where an underline (and an underscore) starts.
const RULE_FROM_BOTTOM: u32 = 3;
/// Its thickness: two whole pixels, so it reads at 1× (the font's underscore is under one
/// pixel thick and lands between pixel rows, a faint smear).
const RULE_THICKNESS: u32 = 2;

/// Underline and strike-through as rects, so they also show under spaces and stay on grid; an
/// underscore gets the same solid rule over its glyph (the text keeps the character).
fn decorations(out: &mut String, y: u16, row: &[(Glyph<'_>, Paint)]) {
    let top = u32::from(y) * CELL_HEIGHT;
    for (glyph, paint) in row {
        let x = u32::from(glyph.col) * CELL_WIDTH;
        let w = u32::from(glyph.width) * CELL_WIDTH;
        let underscore = glyph.text.as_ref() == "_" && !paint.hidden;
        let rule = paint.underline.or(underscore.then_some(paint.fg));
        if let Some(colour) = rule {
            let _ = writeln!(
                out,
                "<rect x=\"{x}\" y=\"{}\" width=\"{w}\" height=\"{RULE_THICKNESS}\" fill=\"{}\"/>",
                top + CELL_HEIGHT - RULE_FROM_BOTTOM,
                colour.hex()
            );
        }
        if paint.strike && !paint.hidden {
            let _ = writeln!(
                out,
                "<rect x=\"{x}\" y=\"{}\" width=\"{w}\" height=\"1\" fill=\"{}\"/>",
                top + CELL_HEIGHT / 2,
                paint.fg.hex()
            );
        }
    }
}

/// One text element per run of narrow, non-blank glyphs drawn alike; wide glyphs stand alone.
fn texts(out: &mut String, y: u16, row: &[(Glyph<'_>, Paint)]) {
    let baseline = f32::from(y) * CELL_HEIGHT as f32 + BASELINE;
    let drawn = |(g, p): &&(Glyph<'_>, Paint)| !g.is_blank() && !p.hidden;
    let mut glyphs = row.iter().filter(drawn).peekable();
    while let Some((first, paint)) = glyphs.next() {
        let mut text = String::from(first.text.as_ref());
        let mut cells = first.width;
        let mut end = first.col + first.width;
        if first.width == 1 {
            while let Some((next, next_paint)) = glyphs.peek() {
                let same = next.col == end && next.width == 1 && same_text_style(paint, next_paint);
                if !same {
                    break;
                }
                text.push_str(&next.text);
                cells += 1;
                end += 1;
                glyphs.next();
            }
        }
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{baseline:.1}\" fill=\"{}\"",
            u32::from(first.col) * CELL_WIDTH,
            paint.fg.hex()
        );
        if paint.bold {
            out.push_str(" font-weight=\"bold\"");
        }
        if paint.italic {
            out.push_str(" font-style=\"italic\"");
        }
        if cells > 1 {
            // Keeps the run on the grid in viewers that substitute another monospace font.
            let _ = write!(out, " textLength=\"{}\"", u32::from(cells) * CELL_WIDTH);
        }
        out.push('>');
        escape_into(out, &text);
        out.push_str("</text>\n");
    }
}

fn same_text_style(a: &Paint, b: &Paint) -> bool {
    (a.fg, a.bold, a.italic) == (b.fg, b.bold, b.italic)
}

/// XML-escapes text content and attribute values alike.
pub(super) fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
}
