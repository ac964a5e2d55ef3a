use std::io::Cursor;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};

use super::tests::{sample, theme};
use super::*;
use crate::theme::Theme;

/// A decoded PNG: width, height and one luminance-ish value (the max channel) per pixel.
struct Image {
    width: u32,
    height: u32,
    light: Vec<u8>,
}

impl Image {
    fn at(&self, x: u32, y: u32) -> u8 {
        self.light[(y * self.width + x) as usize]
    }
}

fn decode(png: &[u8]) -> Image {
    let decoder = ::png::Decoder::new(Cursor::new(png));
    let mut reader = decoder.read_info().expect("png header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("size")];
    let frame = reader.next_frame(&mut pixels).expect("png frame");
    let channels = frame.color_type.samples();
    let light = pixels[..frame.buffer_size()]
        .chunks(channels)
        .map(|px| px[..channels.min(3)].iter().copied().max().unwrap_or(0))
        .collect();
    Image {
        width: frame.width,
        height: frame.height,
        light,
    }
}

/// White symbols on black, through the real PNG path.
fn white_on_black(rows: &[&str]) -> Image {
    let width = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0) as u16;
    let mut buf = Buffer::empty(Rect::new(0, 0, width, rows.len() as u16));
    for (y, row) in rows.iter().enumerate() {
        let style = Style::new()
            .fg(Color::Rgb(255, 255, 255))
            .bg(Color::Rgb(0, 0, 0));
        buf.set_string(0, y as u16, row, style);
    }
    decode(&render(&buf, &theme("default"), Format::Png).expect("png"))
}

#[test]
fn png_decodes_with_nine_by_seventeen_pixels_per_cell() {
    let theme = theme("default");
    let image = decode(&render(&sample(&theme, 40, 7), &theme, Format::Png).expect("png"));
    assert_eq!(
        (image.width, image.height),
        (40 * CELL_WIDTH, 7 * CELL_HEIGHT)
    );
}

#[test]
fn vertical_box_lines_join_across_rows_without_seams() {
    let image = white_on_black(&["│", "│", "│"]);
    // The stem is the brightest column; it must stay lit from the top row to the bottom one.
    let stem = (0..image.width)
        .max_by_key(|&x| image.at(x, CELL_HEIGHT))
        .unwrap_or(0);
    let dark: Vec<u32> = (0..image.height)
        .filter(|&y| image.at(stem, y) < 128)
        .collect();
    assert_eq!(dark, Vec::<u32>::new(), "gaps in the line at column {stem}");
}

#[test]
fn horizontal_box_lines_join_across_columns_without_seams() {
    let image = white_on_black(&["───"]);
    let stroke = (0..image.height)
        .max_by_key(|&y| image.at(CELL_WIDTH, y))
        .unwrap_or(0);
    let dark: Vec<u32> = (0..image.width)
        .filter(|&x| image.at(x, stroke) < 128)
        .collect();
    assert_eq!(dark, Vec::<u32>::new(), "gaps in the line at row {stroke}");
}

#[test]
fn full_blocks_fill_their_cells() {
    let image = white_on_black(&["██", "██"]);
    let dark = image.light.iter().filter(|&&v| v < 200).count();
    assert_eq!(dark, 0, "{dark} pixels of a block of █ are not lit");
}

#[test]
fn the_bundled_font_draws_every_symbol_of_every_builtin_theme() {
    // A character the font lacks is drawn as the same "tofu" box as a private-use one.
    let tofu = white_on_black(&["\u{E000}"]).light;
    assert_eq!(
        white_on_black(&["∥"]).light,
        tofu,
        "U+2225 is missing from DejaVu Sans Mono"
    );
    for name in Theme::builtin_names() {
        for symbol in theme(name).symbols.all() {
            let image = white_on_black(&[symbol]);
            assert_ne!(
                image.light, tofu,
                "theme {name}: the font has no {symbol:?}"
            );
            assert!(
                image.light.iter().any(|&v| v > 128),
                "theme {name}: {symbol:?} is blank"
            );
        }
    }
}

#[test]
fn bold_text_is_drawn_with_the_bold_face() {
    let mut plain = Buffer::empty(Rect::new(0, 0, 4, 1));
    plain.set_string(0, 0, "seed", Style::new());
    let mut bold = plain.clone();
    bold.set_style(
        bold.area,
        Style::new().add_modifier(ratatui::style::Modifier::BOLD),
    );
    let theme = theme("default");
    let ink = |buf: &Buffer| {
        let image = decode(&render(buf, &theme, Format::Png).expect("png"));
        image.light.iter().map(|&v| u64::from(v)).sum::<u64>()
    };
    assert!(
        ink(&bold) > ink(&plain) * 11 / 10,
        "bold should carry visibly more ink"
    );
}

#[test]
fn an_underscore_is_a_solid_rule_at_one_to_one() {
    // `mcp__starlog__orient` read as `mcp  starlog  orient` when the font's hairline underscore
    // fell between pixel rows: two full rows of the text's colour under each underscore.
    let image = white_on_black(&["a__b"]);
    for col in [1, 2] {
        let lit = (0..CELL_HEIGHT)
            .filter(|&y| (0..CELL_WIDTH).all(|x| image.at(col * CELL_WIDTH + x, y) == 255))
            .count();
        assert!(lit >= 2, "column {col}: {lit} fully lit pixel rows");
    }
    // Joined: no dark gap between the two underscores.
    let y = CELL_HEIGHT - 2;
    assert!((CELL_WIDTH..3 * CELL_WIDTH).all(|x| image.at(x, y) == 255));
}
