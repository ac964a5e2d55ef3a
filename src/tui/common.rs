//! Small pieces every region uses: region frames, bars, glyphs that follow the theme, times.

use jiff::tz::TimeZone;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

use super::theme::{Role, Theme};

/// How regions are framed: full boxes when there is room, a titled top rule in a side pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chrome {
    Boxed,
    Rule,
}

impl Chrome {
    /// Rows the frame takes.
    pub fn rows(self) -> u16 {
        match self {
            Chrome::Boxed => 2,
            Chrome::Rule => 1,
        }
    }
}

/// Glyphs drawn outside the theme's symbol table, in Unicode or plain ASCII to match it.
pub struct Glyphs {
    pub branch: &'static str,
    pub last: &'static str,
    pub pipe: &'static str,
    pub blank: &'static str,
    pub arrow: &'static str,
    pub dot: &'static str,
    pub pending: &'static str,
    pub advised: &'static str,
    pub rule: &'static str,
    pub cursor: &'static str,
    pub high: &'static str,
    pub lane: &'static str,
}

pub fn glyphs(theme: &Theme) -> Glyphs {
    if theme.symbols.bar_full.is_ascii() {
        Glyphs {
            branch: "|-",
            last: "`-",
            pipe: "| ",
            blank: "  ",
            arrow: ">",
            dot: "|",
            pending: ".",
            advised: "!",
            rule: "-",
            cursor: "_",
            high: "^",
            lane: "|",
        }
    } else {
        Glyphs {
            branch: "├─",
            last: "└─",
            pipe: "│ ",
            blank: "  ",
            arrow: "▸",
            dot: "·",
            pending: "…",
            advised: "!",
            rule: "─",
            cursor: "▏",
            high: "▲",
            lane: "┊",
        }
    }
}

/// Engine text uses `▸` and `∥`; an ASCII theme gets `>` and `||`, others the theme's parallel
/// marker (the bundled screenshot font has no `∥`).
pub fn plain_if_ascii(theme: &Theme, s: &str) -> String {
    if theme.symbols.bar_full.is_ascii() {
        s.replace('▸', ">")
            .replace('∥', "||")
            .replace('→', "->")
            .replace('≥', ">=")
            .replace('—', "-")
            .replace('…', "...")
            .replace('–', "-")
            .replace('‖', "||")
            .replace('·', "|")
    } else {
        s.replace('∥', &theme.symbols.markers.parallel)
    }
}

/// A region's frame with its title.
pub fn frame<'a>(title: Line<'a>, focused: bool, theme: &'a Theme, chrome: Chrome) -> Block<'a> {
    let border = if focused {
        theme.style(Role::BorderFocus)
    } else {
        theme.style(Role::Border)
    };
    let title_style = if focused {
        theme
            .style(Role::Title)
            .patch(theme.style(Role::BorderFocus))
    } else {
        theme.style(Role::Title)
    };
    let borders = match chrome {
        Chrome::Boxed => Borders::ALL,
        Chrome::Rule => Borders::TOP,
    };
    Block::new()
        .borders(borders)
        .border_set(theme.symbols.border.as_set())
        .border_style(border)
        .title(title.style(title_style))
        .style(theme.style(Role::Base))
}

/// Draw wrapped `text` in `block`, scrolled `scroll` rows down, and mark on the frame how
/// many rows lie below what it shows (see [`mark_more`]).
pub fn scrolled_text(
    text: Paragraph<'_>,
    block: Block<'_>,
    scroll: usize,
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
    chrome: Chrome,
) {
    let inner = block.inner(area);
    let text = text.wrap(Wrap { trim: false });
    let scroll = scroll.min(u16::MAX as usize) as u16;
    let below = text
        .line_count(inner.width)
        .saturating_sub(usize::from(scroll) + usize::from(inner.height));
    text.scroll((scroll, 0)).block(block).render(area, buf);
    mark_more(area, inner, below, theme, buf, chrome);
}

/// Say on a region's frame that its text runs on past what it shows (`▾ 3 more`), at the
/// right end of its bottom border (boxed) or of its titled rule (rules): cut text otherwise
/// reads as if it ended there. `hidden` is how many wrapped rows lie below the region.
pub fn mark_more(
    area: Rect,
    inner: Rect,
    hidden: usize,
    theme: &Theme,
    buf: &mut Buffer,
    chrome: Chrome,
) {
    if hidden == 0 || inner.height == 0 {
        return;
    }
    let arrow = if theme.symbols.bar_full.is_ascii() {
        "v"
    } else {
        "▾"
    };
    let text = format!(" {arrow} {hidden} more ");
    let len = text.chars().count() as u16;
    let (y, right) = match chrome {
        Chrome::Boxed => (
            area.bottom().saturating_sub(1),
            area.right().saturating_sub(2),
        ),
        // No bottom border: on the rule that titles the region, so no text is covered.
        Chrome::Rule => (area.y, area.right().saturating_sub(1)),
    };
    if len + 2 > inner.width {
        return;
    }
    buf.set_string(right - len, y, text, theme.style(Role::Muted));
}

/// A bar of `width` cells filled to `fraction`, with partial cells when the theme has them.
pub fn bar(fraction: f64, width: usize, theme: &Theme, fill: Role) -> Vec<Span<'static>> {
    let f = if fraction.is_finite() {
        fraction.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let s = &theme.symbols;
    let exact = f * width as f64;
    let mut full = exact.floor() as usize;
    let parts = &s.bar_partials;
    let mut partial = String::new();
    if full < width {
        let rem = exact - full as f64;
        if parts.is_empty() {
            if rem >= 0.5 {
                full += 1;
            }
        } else {
            let i = (rem * (parts.len() + 1) as f64).floor() as usize;
            if i > 0 {
                partial = parts[(i - 1).min(parts.len() - 1)].clone();
            }
        }
    }
    let empty = width.saturating_sub(full + usize::from(!partial.is_empty()));
    let mut out = vec![Span::styled(s.bar_full.repeat(full), theme.style(fill))];
    if !partial.is_empty() {
        out.push(Span::styled(partial, theme.style(fill)));
    }
    out.push(Span::styled(
        s.bar_empty.repeat(empty),
        theme.style(Role::ProgressEmpty),
    ));
    out
}

/// `HH:MM:SS` in the model's time zone.
pub fn hms(ms: i64, tz: &TimeZone) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_zoned(tz.clone()).strftime("%H:%M:%S").to_string())
        .unwrap_or_else(|_| "--:--:--".into())
}

/// A duration for a narrow column: `850ms`, `12.4s`, `3m05s`, `2h10m`.
pub fn duration(ms: i64) -> String {
    match ms {
        ..1_000 => format!("{ms}ms"),
        1_000..60_000 => format!("{:.1}s", ms as f64 / 1000.0),
        60_000..3_600_000 => format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60),
        _ => format!("{}h{:02}m", ms / 3_600_000, (ms / 60_000) % 60),
    }
}

/// Cut to `max` characters with an ellipsis (cells are clipped by ratatui anyway; this keeps
/// the cut visible).
pub fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A line of text in one style.
pub fn line(text: impl Into<String>, style: Style) -> Line<'static> {
    Line::from(Span::styled(text.into(), style))
}

/// A label that names an MCP tool in the sequence's dotted form (`starlog.orient`) spelled as
/// the agent calls it (`mcp__starlog__orient`), so a tool reads the same in every region;
/// any other label (`identifying`, `Bash`, `a step`) is kept.
pub fn as_called(label: &str) -> String {
    let tool_like = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    match label.split_once('.') {
        Some((server, tool)) if tool_like(server) && tool_like(tool) => {
            crate::engine::tool_name::claude_tool_name(label)
        }
        _ => label.to_string(),
    }
}
