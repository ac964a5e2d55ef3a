//! Cell contents no renderer should trust: markup, escapes, control and wide characters.

use proptest::prelude::*;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use resvg::usvg::roxmltree;

use super::tests::{assert_well_formed_svg, svg_of, svg_text, theme, txt_of};
use super::*;

/// Cells no renderer should trust.
const HOSTILE: &[&str] = &[
    "<",
    ">",
    "&",
    "\"",
    "'",
    "]]>",
    "<!--",
    "\u{1b}[31m",
    "\u{1b}]0;pwned\u{7}",
    "\0",
    "\u{7}",
    "\r",
    "\n",
    "\t",
    "\u{7f}",
    "\u{9b}",
    "\u{FFFE}",
    "\u{FFFF}",
    "中",
    "👨‍👩‍👧‍👦",
    "e\u{301}",
    "",
    "\u{200b}",
    "\u{202e}",
    "&amp;",
];

fn hostile_buffer() -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, 12, 3));
    for (i, symbol) in HOSTILE.iter().enumerate() {
        let (x, y) = ((i % 12) as u16, (i / 12) as u16);
        buf[(x, y)]
            .set_symbol(symbol)
            .set_fg(Color::Indexed(i as u8));
    }
    buf
}

/// Removes the SGR sequences the ANSI exporter writes; what is left must hold no escape.
fn strip_sgr(ansi: &str) -> String {
    let mut out = String::new();
    let mut rest = ansi;
    while let Some(start) = rest.find("\u{1b}[") {
        out.push_str(&rest[..start]);
        let tail = &rest[start + 2..];
        let end = tail.find('m').expect("SGR ends with m");
        assert!(
            tail[..end].chars().all(|c| c.is_ascii_digit() || c == ';'),
            "not SGR: {tail:?}"
        );
        rest = &tail[end + 1..];
    }
    out + rest
}

#[test]
fn hostile_cell_contents_stay_well_formed_in_every_format() {
    let theme = theme("default");
    let buf = hostile_buffer();
    let svg = svg_of(&buf, &theme);
    assert_well_formed_svg(&svg);
    assert_eq!(svg_text(&svg, 3), txt_of(&buf));
    let html = String::from_utf8(render(&buf, &theme, Format::Html).expect("html")).expect("utf-8");
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    if let Err(e) = roxmltree::Document::parse_with_options(&html, options) {
        panic!("HTML is not well-formed: {e}");
    }
    for text in [
        txt_of(&buf),
        strip_sgr(
            &String::from_utf8(render(&buf, &theme, Format::Ansi).expect("ansi")).expect("utf-8"),
        ),
    ] {
        let control = text.chars().find(|&c| c.is_control() && c != '\n');
        assert_eq!(control, None, "control character leaked: {text:?}");
    }
    assert!(txt_of(&buf).contains("中"));
    assert!(render(&buf, &theme, Format::Png).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_cell_contents_give_well_formed_svg_with_the_txt_text(
        cells in proptest::collection::vec((any::<String>(), 0u8..=255, any::<bool>()), 1..40)
    ) {
        let mut buf = Buffer::empty(Rect::new(0, 0, 8, 5));
        for (i, (symbol, colour, bold)) in cells.iter().enumerate() {
            let (x, y) = ((i % 8) as u16, (i / 8) as u16);
            let style = Style::new().fg(Color::Indexed(*colour));
            let style = if *bold { style.add_modifier(Modifier::BOLD) } else { style };
            buf[(x, y)].set_symbol(symbol).set_style(style);
        }
        let theme = theme("default");
        let svg = svg_of(&buf, &theme);
        assert_well_formed_svg(&svg);
        prop_assert_eq!(svg_text(&svg, 5), txt_of(&buf));
        let ansi = String::from_utf8(render(&buf, &theme, Format::Ansi).expect("ansi")).expect("utf-8");
        prop_assert!(!strip_sgr(&ansi).chars().any(|c| c.is_control() && c != '\n'));
    }
}
