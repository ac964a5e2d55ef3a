//! Text made to fit a region's columns before it is drawn, so the terminal never clips it:
//! a line too long is cut with `…` ([`fit`]; the ASCII theme shows `...`), or broken at spaces
//! into rows ([`wrap`]). Styles are kept span by span.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// What marks a cut (folded to `...` by the ASCII theme, see `ascii`).
pub const ELLIPSIS: &str = "…";

fn cells(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Cells `s` takes.
pub fn width(s: &str) -> usize {
    s.chars().map(cells).sum()
}

/// `line` within `width` cells: as it is when it fits, else cut and ended with `…` (in the
/// style of the text it cuts).
pub fn fit(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let Line {
        spans,
        style,
        alignment,
    } = line;
    let room = width.saturating_sub(1);
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    let mut last_style = Style::default();
    'spans: for span in spans {
        last_style = span.style;
        let mut kept = String::new();
        for c in span.content.chars() {
            let w = cells(c);
            if used + w > room {
                if !kept.is_empty() {
                    out.push(Span::styled(kept, span.style));
                }
                break 'spans;
            }
            used += w;
            kept.push(c);
        }
        out.push(Span::styled(kept, span.style));
    }
    if width > 0 {
        out.push(Span::styled(ELLIPSIS, last_style));
    }
    Line {
        spans: out,
        style,
        alignment,
    }
}

/// A plain string within `max` cells, cut with `…`.
pub fn cut(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = cells(c);
        if used + w + 1 > max {
            break;
        }
        used += w;
        out.push(c);
    }
    if max > 0 {
        out.push_str(ELLIPSIS);
    }
    out
}

/// `line` broken into rows of at most `width` cells, at spaces where it can be (a word longer
/// than a row is broken where the row ends); rows after the first start with `indent` blank
/// cells. Nothing is dropped but the spaces a break falls on.
pub fn wrap(line: Line<'static>, width: usize, indent: usize) -> Vec<Line<'static>> {
    if line.width() <= width || width == 0 {
        return vec![line];
    }
    let indent = indent.min(width / 2);
    let style = line.style;
    let chars: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
        .collect();
    let mut rows: Vec<Vec<(char, Style)>> = vec![Vec::new()];
    let mut used = 0;
    let mut i = 0;
    while i < chars.len() {
        // The next word and the spaces before it.
        let start = i;
        while i < chars.len() && chars[i].0 == ' ' {
            i += 1;
        }
        let word_start = i;
        while i < chars.len() && chars[i].0 != ' ' {
            i += 1;
        }
        let spaces = word_start - start;
        let word: Vec<(char, Style)> = chars[word_start..i].to_vec();
        let word_w: usize = word.iter().map(|(c, _)| cells(*c)).sum();
        let room = width.saturating_sub(used);
        if spaces + word_w <= room {
            if let Some(row) = rows.last_mut() {
                row.extend_from_slice(&chars[start..i]);
            }
            used += spaces + word_w;
            continue;
        }
        // The word starts a new row (one longer than a row is then broken where rows end).
        if used > indent || (used > 0 && rows.len() == 1) {
            rows.push(Vec::new());
            used = indent;
        }
        for (c, s) in word {
            let w = cells(c);
            if used + w > width {
                rows.push(Vec::new());
                used = indent;
            }
            if let Some(row) = rows.last_mut() {
                row.push((c, s));
            }
            used += w;
        }
    }
    rows.into_iter()
        .enumerate()
        .map(|(n, row)| {
            let mut spans: Vec<Span<'static>> = Vec::new();
            if n > 0 && indent > 0 {
                spans.push(Span::raw(" ".repeat(indent)));
            }
            let mut run = String::new();
            let mut run_style = None;
            for (c, s) in row {
                if run_style.is_some_and(|r| r != s) {
                    spans.push(Span::styled(
                        std::mem::take(&mut run),
                        run_style.unwrap_or(s),
                    ));
                }
                run_style = Some(s);
                run.push(c);
            }
            if let Some(s) = run_style {
                spans.push(Span::styled(run, s));
            }
            Line::from(spans).style(style)
        })
        .collect()
}

/// [`wrap`], then at most `max_rows` rows: the last kept row is cut with `…` when more follow.
pub fn wrap_at_most(
    line: Line<'static>,
    width: usize,
    indent: usize,
    max_rows: usize,
) -> Vec<Line<'static>> {
    let mut rows = wrap(line, width, indent);
    if rows.len() > max_rows && max_rows > 0 {
        rows.truncate(max_rows);
        if let Some(last) = rows.pop() {
            // Room for the mark even when the row is full.
            let w = last.width().min(width.saturating_sub(1));
            let mut cut_row = fit(last, w);
            if cut_row.spans.last().is_none_or(|s| s.content != ELLIPSIS) {
                let style = cut_row.spans.last().map(|s| s.style).unwrap_or_default();
                cut_row.spans.push(Span::styled(ELLIPSIS, style));
            }
            rows.push(cut_row);
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn a_line_that_fits_is_kept_and_one_too_long_ends_in_an_ellipsis() {
        assert_eq!(text(&fit(Line::from("abc"), 3)), "abc");
        assert_eq!(text(&fit(Line::from("abcdef"), 4)), "abc…");
        assert_eq!(
            text(&fit(
                Line::from(vec![Span::raw("ab"), Span::raw("cdef")]),
                4
            )),
            "abc…"
        );
        assert_eq!(fit(Line::from("漢字漢字"), 5).width(), 5);
        assert_eq!(text(&fit(Line::from("abc"), 0)), "");
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 3), "abc");
    }

    #[test]
    fn wrapping_breaks_at_spaces_keeps_every_word_and_indents() {
        let rows = wrap(
            Line::from("next call mcp__waypoint__complete_journey now"),
            20,
            2,
        );
        let t: Vec<String> = rows.iter().map(text).collect();
        assert_eq!(
            t,
            ["next call", "  mcp__waypoint__com", "  plete_journey now"]
        );
        assert!(rows.iter().all(|r| r.width() <= 20));
        let rows = wrap_at_most(Line::from("a b c d e f g h i j"), 5, 0, 2);
        assert_eq!(rows.iter().map(text).collect::<Vec<_>>(), ["a b c", "d e…"]);
    }

    #[test]
    fn wrapping_keeps_styles_and_never_loops_on_narrow_widths() {
        let bold = Style::default().add_modifier(ratatui::style::Modifier::BOLD);
        let rows = wrap(
            Line::from(vec![Span::raw("aa "), Span::styled("bbbb", bold)]),
            4,
            0,
        );
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].spans[0].style, bold);
        for w in 1..6 {
            let rows = wrap(Line::from("x".repeat(23)), w, 3);
            assert!(rows.iter().all(|r| r.width() <= w), "{w}");
        }
    }
}
