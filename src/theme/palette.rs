//! Concrete colours: what the terminal's named colours look like, for screenshots and contrast.

use ratatui::style::Color;

/// A 24-bit colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb {
    pub r: u8,
    pub g: u8,
    pub b: u8,
}

impl Rgb {
    pub const fn new(r: u8, g: u8, b: u8) -> Rgb {
        Rgb { r, g, b }
    }

    /// `#rrggbb`, lower case.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.r, self.g, self.b)
    }

    /// `self` moved towards `other` by `t` (0 = self, 1 = other); how `DIM` text is drawn.
    pub fn mix(self, other: Rgb, t: f32) -> Rgb {
        let lerp = |a: u8, b: u8| (f32::from(a) + (f32::from(b) - f32::from(a)) * t).round() as u8;
        Rgb::new(
            lerp(self.r, other.r),
            lerp(self.g, other.g),
            lerp(self.b, other.b),
        )
    }

    /// WCAG 2 relative luminance, 0 (black) to 1 (white).
    pub fn relative_luminance(self) -> f64 {
        let channel = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(self.r) + 0.7152 * channel(self.g) + 0.0722 * channel(self.b)
    }

    /// WCAG 2 contrast ratio, 1 (none) to 21 (black on white).
    pub fn contrast_ratio(self, other: Rgb) -> f64 {
        let (a, b) = (self.relative_luminance(), other.relative_luminance());
        let (light, dark) = if a > b { (a, b) } else { (b, a) };
        (light + 0.05) / (dark + 0.05)
    }
}

/// Keys of the 16 named colours in a theme's `[ansi]` table, in terminal index order (0–15).
pub const ANSI_NAMES: [&str; 16] = [
    "black",
    "red",
    "green",
    "yellow",
    "blue",
    "magenta",
    "cyan",
    "gray",
    "dark-gray",
    "light-red",
    "light-green",
    "light-yellow",
    "light-blue",
    "light-magenta",
    "light-cyan",
    "white",
];

/// xterm's defaults, used for whatever a theme's `[ansi]` table leaves out.
pub(super) const XTERM_ANSI: [Rgb; 16] = [
    Rgb::new(0x00, 0x00, 0x00),
    Rgb::new(0xcd, 0x00, 0x00),
    Rgb::new(0x00, 0xcd, 0x00),
    Rgb::new(0xcd, 0xcd, 0x00),
    Rgb::new(0x00, 0x00, 0xee),
    Rgb::new(0xcd, 0x00, 0xcd),
    Rgb::new(0x00, 0xcd, 0xcd),
    Rgb::new(0xe5, 0xe5, 0xe5),
    Rgb::new(0x7f, 0x7f, 0x7f),
    Rgb::new(0xff, 0x00, 0x00),
    Rgb::new(0x00, 0xff, 0x00),
    Rgb::new(0xff, 0xff, 0x00),
    Rgb::new(0x5c, 0x5c, 0xff),
    Rgb::new(0xff, 0x00, 0xff),
    Rgb::new(0x00, 0xff, 0xff),
    Rgb::new(0xff, 0xff, 0xff),
];

/// How a terminal running this theme draws colours: its default foreground and background (what
/// [`Color::Reset`] means) and its 16 named colours. Exporters paint with it, so a screenshot
/// shows what a user of the theme sees, and the contrast check measures with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    pub foreground: Rgb,
    pub background: Rgb,
    pub ansi: [Rgb; 16],
}

impl Palette {
    /// The colour of `color` used as a foreground.
    pub fn fg(&self, color: Color) -> Rgb {
        self.rgb(color, self.foreground)
    }

    /// The colour of `color` used as a background.
    pub fn bg(&self, color: Color) -> Rgb {
        self.rgb(color, self.background)
    }

    fn rgb(&self, color: Color, reset: Rgb) -> Rgb {
        match color {
            Color::Reset => reset,
            Color::Rgb(r, g, b) => Rgb::new(r, g, b),
            Color::Indexed(i) => self.indexed(i),
            named => self.ansi[ansi_index(named).unwrap_or(0)],
        }
    }

    /// The xterm 256-colour table, with 0–15 taken from the theme.
    fn indexed(&self, i: u8) -> Rgb {
        match i {
            0..=15 => self.ansi[usize::from(i)],
            16..=231 => {
                let level = |n: u8| if n == 0 { 0 } else { 55 + 40 * n };
                let n = i - 16;
                Rgb::new(level(n / 36), level((n / 6) % 6), level(n % 6))
            }
            _ => {
                let grey = 8 + 10 * (i - 232);
                Rgb::new(grey, grey, grey)
            }
        }
    }
}

/// The terminal index (0–15) of one of ratatui's 16 named colours.
pub fn ansi_index(color: Color) -> Option<usize> {
    Some(match color {
        Color::Black => 0,
        Color::Red => 1,
        Color::Green => 2,
        Color::Yellow => 3,
        Color::Blue => 4,
        Color::Magenta => 5,
        Color::Cyan => 6,
        Color::Gray => 7,
        Color::DarkGray => 8,
        Color::LightRed => 9,
        Color::LightGreen => 10,
        Color::LightYellow => 11,
        Color::LightBlue => 12,
        Color::LightMagenta => 13,
        Color::LightCyan => 14,
        Color::White => 15,
        _ => return None,
    })
}
