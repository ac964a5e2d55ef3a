//! Screenshots: a ratatui [`Buffer`] (a rendered frame) → SVG, PNG, HTML, plain text or ANSI.
//!
//! Every format walks the same cell grid: wide glyphs cover the cell after them, control
//! characters become U+FFFD, and colours come from the theme's [`Palette`], so a screenshot shows
//! what a user of that theme sees. Output is deterministic: the same buffer and theme give the
//! same bytes, on any machine (PNG uses only the bundled font).
//!
//! [`Palette`]: crate::theme::Palette
#![warn(clippy::too_many_lines)] // Past 80 lines (clippy.toml) a function is split or says why.

mod ansi;
mod grid;
mod html;
mod png;
mod svg;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_hostile;
#[cfg(test)]
mod tests_png;
mod txt;

use std::fmt;
use std::str::FromStr;

use ratatui::buffer::Buffer;

use crate::theme::Theme;

/// Width of one terminal cell in SVG/PNG pixels.
pub const CELL_WIDTH: u32 = 9;
/// Height of one terminal cell in SVG/PNG pixels.
pub const CELL_HEIGHT: u32 = 17;
/// The font screenshots are drawn with (bundled in `assets/fonts/`).
pub const FONT_FAMILY: &str = "DejaVu Sans Mono";

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Svg,
    Png,
    Html,
    Txt,
    Ansi,
}

impl Format {
    pub const ALL: [Format; 5] = [
        Format::Svg,
        Format::Png,
        Format::Html,
        Format::Txt,
        Format::Ansi,
    ];

    /// The name `FromStr` accepts and the usual file extension.
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
            Format::Html => "html",
            Format::Txt => "txt",
            Format::Ansi => "ansi",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A format name that is not one of svg, png, html, txt, ansi.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown format `{0}` (expected svg, png, html, txt or ansi)")]
pub struct ParseFormatError(pub String);

impl FromStr for Format {
    type Err = ParseFormatError;

    /// Case-insensitive; also accepts `htm` and `text`.
    fn from_str(s: &str) -> Result<Format, ParseFormatError> {
        match s.to_ascii_lowercase().as_str() {
            "svg" => Ok(Format::Svg),
            "png" => Ok(Format::Png),
            "html" | "htm" => Ok(Format::Html),
            "txt" | "text" => Ok(Format::Txt),
            "ansi" => Ok(Format::Ansi),
            _ => Err(ParseFormatError(s.to_owned())),
        }
    }
}

/// Why a frame could not be exported (only PNG can fail).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    #[error("cannot export an empty frame as PNG")]
    Empty,
    #[error("frame too large for PNG: {width}x{height} px")]
    TooLarge { width: u32, height: u32 },
    #[error("cannot rasterise the SVG: {0}")]
    Svg(String),
    #[error("cannot encode the PNG: {0}")]
    Png(String),
}

/// Renders `buffer` in `format` with `theme`'s colours.
pub fn render(buffer: &Buffer, theme: &Theme, format: Format) -> Result<Vec<u8>, ExportError> {
    Ok(match format {
        Format::Svg => svg::render(buffer, theme).into_bytes(),
        Format::Png => png::render(buffer, theme)?,
        Format::Html => html::render(buffer, theme).into_bytes(),
        Format::Txt => txt::render(buffer).into_bytes(),
        Format::Ansi => ansi::render(buffer).into_bytes(),
    })
}

/// The buffer as SVG (see [`render`]).
pub fn to_svg(buffer: &Buffer, theme: &Theme) -> String {
    svg::render(buffer, theme)
}

/// The buffer as plain text, one line per row, trailing spaces trimmed.
pub fn to_txt(buffer: &Buffer) -> String {
    txt::render(buffer)
}
