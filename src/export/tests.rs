use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};
use resvg::usvg::{self, roxmltree};

use super::*;
use crate::theme::{Role, Theme};

pub(super) fn theme(name: &str) -> Theme {
    Theme::load(name, None).unwrap_or_else(|e| panic!("{e}"))
}

/// A frame like the dashboard's: a themed border, markers, bars, wide glyphs and markup-like text.
fn draw_sample(area: Rect, buf: &mut Buffer, theme: &Theme) {
    let role = |r| theme.style(r);
    let s = &theme.symbols;
    buf.set_style(area, role(Role::Base));
    let block = Block::bordered()
        .border_set(s.border.as_set())
        .border_style(role(Role::BorderFocus))
        .title(Span::styled(" seed · starlog ", role(Role::Title)));
    let inner = block.inner(area);
    block.render(area, buf);
    let bar = format!(
        "{}{}{}",
        s.bar_full.repeat(9),
        s.bar_partials.get(3).map_or("", |p| p),
        s.bar_empty.repeat(6)
    );
    let m = &s.markers;
    let lines = vec![
        Line::from(vec![
            Span::styled(format!("{} ", m.active), role(Role::StatechartCurrent)),
            Span::styled("starlog.orient", role(Role::StatechartCurrent)),
            Span::raw("  "),
            Span::styled(format!("{} done", m.done), role(Role::StatechartDone)),
        ]),
        Line::from(vec![
            Span::styled("Base    ", role(Role::ProgressLayer)),
            Span::styled(bar, role(Role::ProgressBar)),
            Span::styled(" 62%", role(Role::Muted)),
        ]),
        Line::from(vec![
            Span::styled("Read Write", role(Role::ToolsAllowed)),
            Span::styled(format!(" {} Bash", m.failed), role(Role::ToolsDenied)),
            Span::styled(
                " (state LOBBY)",
                role(Role::Muted).add_modifier(Modifier::ITALIC),
            ),
        ]),
        Line::from("中文 wide, 👍 emoji, <tag> & \"quotes\" 'apos'"),
        Line::from(vec![
            Span::styled(
                "reversed",
                Style::new()
                    .fg(Color::Red)
                    .bg(Color::Blue)
                    .add_modifier(Modifier::REVERSED),
            ),
            Span::raw(" "),
            Span::styled(
                "underlined",
                Style::new().add_modifier(Modifier::UNDERLINED),
            ),
            Span::raw(" "),
            Span::styled("dim", Style::new().add_modifier(Modifier::DIM)),
            Span::raw(" "),
            Span::styled("idx", Style::new().fg(Color::Indexed(208))),
        ]),
    ];
    Paragraph::new(lines).render(inner, buf);
}

pub(super) fn sample(theme: &Theme, width: u16, height: u16) -> Buffer {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    draw_sample(area, &mut buf, theme);
    buf
}

pub(super) fn svg_of(buf: &Buffer, theme: &Theme) -> String {
    String::from_utf8(render(buf, theme, Format::Svg).expect("svg")).expect("utf-8")
}

/// Well-formed XML, free of characters XML forbids, and a valid SVG for resvg.
pub(super) fn assert_well_formed_svg(svg: &str) {
    let forbidden = svg
        .chars()
        .find(|&c| (c.is_control() && c != '\n') || c == '\u{FFFE}' || c == '\u{FFFF}');
    assert_eq!(forbidden, None, "raw control character in SVG");
    if let Err(e) = roxmltree::Document::parse(svg) {
        panic!("SVG is not well-formed XML: {e}\n{svg}");
    }
    if let Err(e) = usvg::Tree::from_str(svg, &usvg::Options::default()) {
        panic!("usvg rejects the SVG: {e}");
    }
}

/// Rebuilds the text lines from the SVG's `<text>` elements and their grid positions.
pub(super) fn svg_text(svg: &str, rows: u16) -> String {
    let doc = roxmltree::Document::parse(svg).expect("well-formed");
    let mut lines = vec![(String::new(), 0u32); usize::from(rows)];
    for node in doc.descendants().filter(|n| n.has_tag_name("text")) {
        let num = |name: &str| node.attribute(name).and_then(|v| v.parse::<f32>().ok());
        let col = num("x").expect("x") as u32 / CELL_WIDTH;
        let row = (num("y").expect("y") / CELL_HEIGHT as f32) as usize;
        let cells = num("textLength").map_or(1, |l| l as u32 / CELL_WIDTH);
        let (line, cursor) = &mut lines[row];
        assert!(col >= *cursor, "overlapping text at row {row} col {col}");
        line.extend(std::iter::repeat_n(' ', (col - *cursor) as usize));
        line.push_str(node.text().unwrap_or(""));
        *cursor = col + cells;
    }
    lines
        .into_iter()
        .map(|(line, _)| line.trim_end_matches(' ').to_owned() + "\n")
        .collect()
}

pub(super) fn txt_of(buf: &Buffer) -> String {
    String::from_utf8(render(buf, &theme("default"), Format::Txt).expect("txt")).expect("utf-8")
}

#[test]
fn svg_is_well_formed_and_shows_the_same_text_as_the_txt_export() {
    for name in Theme::builtin_names() {
        let theme = theme(name);
        let buf = sample(&theme, 60, 9);
        let svg = svg_of(&buf, &theme);
        assert_well_formed_svg(&svg);
        assert_eq!(svg_text(&svg, 9), txt_of(&buf), "theme {name}");
        assert!(svg.contains("font-family=\"DejaVu Sans Mono, monospace\""));
        assert!(!svg.contains("href"), "no external references");
    }
}

#[test]
fn txt_export_matches_the_test_backend_frame() {
    let theme = theme("default");
    let mut terminal = Terminal::new(TestBackend::new(50, 8)).expect("terminal");
    terminal
        .draw(|frame| draw_sample(frame.area(), frame.buffer_mut(), &theme))
        .expect("draw");
    let backend = terminal.backend();
    let expected: String = backend
        .to_string()
        .lines()
        .map(|l| {
            // TestBackend shows each row quoted, then notes cells hidden under wide glyphs.
            let quoted = l.rsplit_once("\" Hidden by").map_or(l, |(row, _)| row);
            quoted.trim_matches('"').trim_end_matches(' ').to_owned() + "\n"
        })
        .collect();
    assert_eq!(txt_of(backend.buffer()), expected);
}

#[test]
fn named_colours_and_reset_are_painted_from_the_theme_palette() {
    let mut buf = Buffer::empty(Rect::new(0, 0, 3, 1));
    buf[(0, 0)].set_symbol("r").set_fg(Color::Red);
    buf[(1, 0)].set_symbol("x").set_bg(Color::Blue);
    for name in ["default", "light"] {
        let theme = theme(name);
        let svg = svg_of(&buf, &theme);
        let p = &theme.palette;
        assert!(
            svg.contains(&format!("fill=\"{}\">r<", p.fg(Color::Red).hex())),
            "{svg}"
        );
        assert!(svg.contains(&format!("fill=\"{}\"/>", p.bg(Color::Blue).hex())));
        // The canvas is the terminal background; unstyled text the terminal foreground.
        assert!(svg.contains(&format!("height=\"17\" fill=\"{}\"/>", p.background.hex())));
        assert!(svg.contains(&format!("fill=\"{}\">x<", p.foreground.hex())));
    }
}

#[test]
fn reversed_swaps_foreground_and_background() {
    let theme = theme("default");
    let mut buf = Buffer::empty(Rect::new(0, 0, 1, 1));
    buf[(0, 0)].set_symbol("R").set_style(
        Style::new()
            .fg(Color::Red)
            .bg(Color::Blue)
            .add_modifier(Modifier::REVERSED),
    );
    let svg = svg_of(&buf, &theme);
    let (red, blue) = (
        theme.palette.fg(Color::Red).hex(),
        theme.palette.bg(Color::Blue).hex(),
    );
    assert!(
        svg.contains(&format!(
            "<rect x=\"0\" y=\"0\" width=\"9\" height=\"17\" fill=\"{red}\"/>"
        )),
        "{svg}"
    );
    assert!(svg.contains(&format!("fill=\"{blue}\">R</text>")), "{svg}");
}

#[test]
fn bold_italic_and_underline_are_drawn() {
    let theme = theme("default");
    let mut buf = Buffer::empty(Rect::new(0, 0, 3, 1));
    buf[(0, 0)]
        .set_symbol("b")
        .set_style(Style::new().add_modifier(Modifier::BOLD));
    buf[(1, 0)]
        .set_symbol("i")
        .set_style(Style::new().add_modifier(Modifier::ITALIC));
    buf[(2, 0)]
        .set_symbol(" ")
        .set_style(Style::new().add_modifier(Modifier::UNDERLINED));
    let svg = svg_of(&buf, &theme);
    assert!(svg.contains("font-weight=\"bold\">b<"), "{svg}");
    assert!(svg.contains("font-style=\"italic\">i<"), "{svg}");
    // Underline is a rect under the cell, so even an underlined space shows it.
    assert!(
        svg.contains("<rect x=\"18\" y=\"14\" width=\"9\" height=\"2\""),
        "{svg}"
    );
    let html = String::from_utf8(render(&buf, &theme, Format::Html).expect("html")).expect("utf-8");
    assert!(html.contains("font-weight:bold"));
    assert!(html.contains("font-style:italic"));
    assert!(html.contains("text-decoration:underline"));
}

#[test]
fn the_same_frame_gives_byte_identical_output_in_every_format() {
    let theme = theme("default");
    let buf = sample(&theme, 48, 8);
    for format in Format::ALL {
        let first = render(&buf, &theme, format).expect("first");
        let second = render(&sample(&theme, 48, 8), &theme, format).expect("second");
        assert!(first == second, "{format} output differs between runs");
    }
}

#[test]
fn wide_glyphs_cover_the_next_cell_like_a_terminal() {
    let mut buf = Buffer::empty(Rect::new(0, 0, 4, 1));
    buf.set_string(0, 0, "中ab", Style::new());
    assert_eq!(txt_of(&buf), "中ab\n");
    let svg = svg_of(&buf, &theme("default"));
    assert!(
        svg.contains("<text x=\"0\" y=\"13.7\" fill=\"#c5c8c6\" textLength=\"18\">中</text>"),
        "{svg}"
    );
    assert!(
        svg.contains("<text x=\"18\" y=\"13.7\" fill=\"#c5c8c6\" textLength=\"18\">ab</text>"),
        "{svg}"
    );
}

#[test]
fn ansi_export_writes_the_dashboards_own_colours_as_sgr() {
    let mut buf = Buffer::empty(Rect::new(0, 0, 6, 2));
    buf.set_string(
        0,
        0,
        "ok",
        Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
    );
    buf.set_string(
        2,
        0,
        "!",
        Style::new().fg(Color::Rgb(1, 2, 3)).bg(Color::Indexed(200)),
    );
    buf.set_string(0, 1, "plain", Style::new());
    let ansi = String::from_utf8(render(&buf, &theme("default"), Format::Ansi).expect("ansi"))
        .expect("utf-8");
    assert_eq!(
        ansi,
        "\u{1b}[0;1;32mok\u{1b}[0;38;2;1;2;3;48;5;200m!\u{1b}[0m\nplain\n"
    );
}

#[test]
fn hidden_text_keeps_its_background_but_shows_no_glyphs() {
    let mut buf = Buffer::empty(Rect::new(0, 0, 6, 1));
    buf.set_string(
        0,
        0,
        "secret",
        Style::new().bg(Color::Blue).add_modifier(Modifier::HIDDEN),
    );
    buf.set_string(5, 0, "!", Style::reset());
    let theme = theme("default");
    let svg = svg_of(&buf, &theme);
    assert!(!svg.contains("secret") && !svg.contains(">s<"), "{svg}");
    assert!(
        svg.contains("width=\"45\" height=\"17\""),
        "background still drawn: {svg}"
    );
    assert_eq!(txt_of(&buf), "     !\n");
    assert_eq!(svg_text(&svg, 1), txt_of(&buf));
}

#[test]
fn formats_parse_from_their_names() {
    for format in Format::ALL {
        assert_eq!(format.as_str().parse::<Format>(), Ok(format));
        assert_eq!(
            format.to_string().to_uppercase().parse::<Format>(),
            Ok(format)
        );
    }
    assert_eq!("htm".parse::<Format>(), Ok(Format::Html));
    let err = "jpeg".parse::<Format>().expect_err("unknown");
    assert_eq!(
        err.to_string(),
        "unknown format `jpeg` (expected svg, png, html, txt or ansi)"
    );
}

#[test]
fn an_empty_frame_exports_as_text_but_not_as_png() {
    let buf = Buffer::empty(Rect::new(0, 0, 0, 0));
    let theme = theme("default");
    assert_eq!(render(&buf, &theme, Format::Txt), Ok(Vec::new()));
    // Well-formed, though no viewer draws a zero-sized image.
    assert!(roxmltree::Document::parse(&svg_of(&buf, &theme)).is_ok());
    assert_eq!(render(&buf, &theme, Format::Png), Err(ExportError::Empty));
}
