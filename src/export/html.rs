//! Buffer → a self-contained HTML page: one `<pre>` of styled spans, colours from the theme.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;

use super::grid::{self, Paint};
use super::svg::escape_into;
use super::{CELL_HEIGHT, FONT_FAMILY};
use crate::theme::Theme;

/// Pixel font size matching the SVG cell (9 × 17 px).
const FONT_SIZE_PX: u32 = 15;

pub fn render(buffer: &Buffer, theme: &Theme) -> String {
    let palette = &theme.palette;
    let (fg, bg) = (palette.foreground.hex(), palette.background.hex());
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html>\n<head><meta charset=\"utf-8\"/><title>seed</title></head>\n\
         <body style=\"margin:0;background:{bg}\">\n\
         <pre style=\"margin:0;padding:0;font-family:&apos;{FONT_FAMILY}&apos;,monospace;\
         font-size:{FONT_SIZE_PX}px;line-height:{CELL_HEIGHT}px;color:{fg};background:{bg}\">"
    );
    let default = Paint {
        fg: palette.foreground,
        bg: palette.background,
        bold: false,
        italic: false,
        underline: None,
        strike: false,
        hidden: false,
    };
    for y in 0..buffer.area.height {
        let glyphs = grid::row(buffer, y);
        let paints: Vec<Paint> = glyphs.iter().map(|g| Paint::of(g, palette)).collect();
        // Spaces drawn in the page's own colours add nothing at the end of a line.
        let keep = glyphs
            .iter()
            .zip(&paints)
            .rposition(|(g, p)| !(g.is_blank() && *p == default))
            .map_or(0, |i| i + 1);
        let mut i = 0;
        while i < keep {
            let paint = paints[i];
            let mut text = String::new();
            while i < keep && paints[i] == paint {
                let glyph = &glyphs[i];
                if paint.hidden {
                    text.extend(std::iter::repeat_n(' ', usize::from(glyph.width)));
                } else {
                    text.push_str(&glyph.text);
                }
                i += 1;
            }
            if paint == default {
                escape_into(&mut out, &text);
            } else {
                let _ = write!(out, "<span style=\"{}\">", css(&paint));
                escape_into(&mut out, &text);
                out.push_str("</span>");
            }
        }
        out.push('\n');
    }
    out.push_str("</pre>\n</body>\n</html>\n");
    out
}

fn css(paint: &Paint) -> String {
    let mut css = format!("color:{};background:{}", paint.fg.hex(), paint.bg.hex());
    if paint.bold {
        css.push_str(";font-weight:bold");
    }
    if paint.italic {
        css.push_str(";font-style:italic");
    }
    let mut lines = Vec::new();
    if paint.underline.is_some() {
        lines.push("underline");
    }
    if paint.strike {
        lines.push("line-through");
    }
    if !lines.is_empty() {
        let _ = write!(css, ";text-decoration:{}", lines.join(" "));
    }
    if let Some(colour) = paint.underline {
        let _ = write!(css, ";text-decoration-color:{}", colour.hex());
    }
    css
}
