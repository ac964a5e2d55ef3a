//! SVG → PNG with resvg and the bundled DejaVu Sans Mono: no system fonts are ever consulted,
//! so the same buffer gives the same bytes on every machine.

use std::sync::{Arc, OnceLock};

use ratatui::buffer::Buffer;
use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg::{self, fontdb};

use super::{CELL_HEIGHT, CELL_WIDTH, ExportError, FONT_FAMILY, svg};
use crate::theme::Theme;

static REGULAR: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");
static BOLD: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono-Bold.ttf");

/// Refuses screenshots over 64 Mpx (256 MB of pixels) rather than exhausting memory.
const MAX_PIXELS: u64 = 1 << 26;

/// The bundled fonts, parsed once per process.
fn fonts() -> Arc<fontdb::Database> {
    static FONTS: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = fontdb::Database::new();
            for face in [REGULAR, BOLD] {
                db.load_font_source(fontdb::Source::Binary(Arc::new(face)));
            }
            // Generic `monospace` (our SVG's fallback) must also mean the bundled font.
            db.set_monospace_family(FONT_FAMILY);
            Arc::new(db)
        })
        .clone()
}

pub fn render(buffer: &Buffer, theme: &Theme) -> Result<Vec<u8>, ExportError> {
    let (width, height) = (
        u32::from(buffer.area.width) * CELL_WIDTH,
        u32::from(buffer.area.height) * CELL_HEIGHT,
    );
    if width == 0 || height == 0 {
        return Err(ExportError::Empty);
    }
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(ExportError::TooLarge { width, height });
    }
    let options = usvg::Options {
        font_family: FONT_FAMILY.to_owned(),
        fontdb: fonts(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(&svg::render(buffer, theme), &options)
        .map_err(|e| ExportError::Svg(e.to_string()))?;
    let mut pixmap = Pixmap::new(width, height).ok_or(ExportError::TooLarge { width, height })?;
    resvg::render(&tree, Transform::identity(), &mut pixmap.as_mut());
    encode(&pixmap).map_err(|e| ExportError::Png(e.to_string()))
}

/// Encodes as 8-bit RGB with fast deflate: the canvas rect makes every pixel opaque, so alpha
/// carries nothing (and premultiplied equals straight colour), and fast deflate takes a
/// fraction of the default level's time for a slightly larger file.
fn encode(pixmap: &Pixmap) -> Result<Vec<u8>, ::png::EncodingError> {
    let rgb: Vec<u8> = pixmap
        .data()
        .chunks_exact(4)
        .flat_map(|px| [px[0], px[1], px[2]])
        .collect();
    let mut out = Vec::new();
    let mut encoder = ::png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(::png::ColorType::Rgb);
    encoder.set_depth(::png::BitDepth::Eight);
    encoder.set_compression(::png::Compression::Fast);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&rgb)?;
    writer.finish()?;
    Ok(out)
}
