//! Buffer → plain text: one line per row, trailing spaces trimmed.

use ratatui::buffer::Buffer;
use ratatui::style::Modifier;

use super::grid;

pub fn render(buffer: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let start = out.len();
        for glyph in grid::row(buffer, y) {
            if glyph.modifier.contains(Modifier::HIDDEN) {
                // Hidden text is not on screen; keep its columns.
                out.extend(std::iter::repeat_n(' ', usize::from(glyph.width)));
            } else {
                out.push_str(&glyph.text);
            }
        }
        let kept = out[start..].trim_end_matches(' ').len();
        out.truncate(start + kept);
        out.push('\n');
    }
    out
}
