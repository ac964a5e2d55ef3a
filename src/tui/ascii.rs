//! The ASCII theme's promise, kept last: after every region has drawn, any cell that is not
//! plain ASCII (a prompt in another script, an ellipsis from a cut, a glyph a region forgot)
//! is folded to its closest ASCII look-alike, or `?`. An ellipsis becomes `...` over the two
//! cells before it too, so a cut reads as one in plain text.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

pub fn fold_to_ascii(buf: &mut Buffer, area: Rect) {
    let area = area.intersection(buf.area);
    for y in area.top()..area.bottom() {
        let mut x = area.left();
        while x < area.right() {
            let mut step = 1;
            if let Some(cell) = buf.cell_mut((x, y))
                && !cell.symbol().is_ascii()
            {
                // A wide character covers the next cell too; both become one ASCII cell each.
                step = Span::raw(cell.symbol()).width().max(1) as u16;
                let ellipsis = cell.symbol() == "…";
                let plain = look_alike(cell.symbol());
                cell.set_symbol(plain);
                if ellipsis && x >= area.left() + 2 {
                    for dx in 1..=2 {
                        if let Some(before) = buf.cell_mut((x - dx, y)) {
                            before.set_symbol(".");
                        }
                    }
                }
                for dx in 1..step {
                    if let Some(next) = buf.cell_mut((x + dx, y)) {
                        next.set_symbol(" ");
                    }
                }
            }
            x = x.saturating_add(step);
        }
    }
}

fn look_alike(symbol: &str) -> &'static str {
    match symbol.chars().next().unwrap_or('?') {
        '…' | '·' | '•' => ".",
        '–' | '—' | '─' | '━' | '═' | '╌' => "-",
        '│' | '┃' | '║' | '‖' | '∥' | '╎' => "|",
        '╭' | '╮' | '╰' | '╯' | '┌' | '┐' | '└' | '┘' | '├' | '┤' | '┬' | '┴' | '┼' => {
            "+"
        }
        '▸' | '▶' | '→' | '»' => ">",
        '◂' | '◀' | '←' | '«' => "<",
        '▲' | '↑' => "^",
        '▼' | '↓' => "v",
        '●' | '◆' | '■' | '█' => "#",
        '○' | '◇' | '░' => ".",
        '✓' | '✔' => "v",
        '✗' | '✘' | '×' => "x",
        '⊘' => "X",
        '◌' => "-",
        '↺' => "@",
        _ => "?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_becomes_ascii_and_wide_characters_keep_their_columns() {
        let area = Rect::new(0, 0, 12, 1);
        let mut buf = Buffer::empty(area);
        buf.set_string(0, 0, "ab…漢字 ✓ b", ratatui::style::Style::default());
        fold_to_ascii(&mut buf, area);
        let line: String = (0..12)
            .map(|x| buf.cell((x, 0)).map_or(" ", |c| c.symbol()).to_string())
            .collect();
        assert_eq!(line, "...? ?  v b ");
        assert!(line.is_ascii());
    }
}
