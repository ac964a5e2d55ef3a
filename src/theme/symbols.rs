//! Bar, border and marker characters: what an ASCII theme swaps for plain characters.

use ratatui::buffer::CellWidth;
use ratatui::symbols::border;
use toml::Spanned;

use super::error::{ThemeError, ThemeErrorKind};
use super::file::{Source, SymbolsFile};

/// The characters a theme draws bars, borders and statechart markers with. Each is one cell wide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbols {
    pub bar_full: String,
    pub bar_empty: String,
    /// Partially filled bar cells, smallest fill first; empty when the theme has none.
    pub bar_partials: Vec<String>,
    pub border: BorderSymbols,
    pub markers: Markers,
}

/// The six characters of a box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BorderSymbols {
    pub top_left: String,
    pub top_right: String,
    pub bottom_left: String,
    pub bottom_right: String,
    pub horizontal: String,
    pub vertical: String,
}

/// Statechart node markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Markers {
    pub active: String,
    pub done: String,
    pub not_reached: String,
    /// A call that ran and failed (and a failed state).
    pub failed: String,
    /// A call seed refused before it ran: never the same glyph as `failed`.
    pub denied: String,
    /// A step of a branch the session did not take, once the sequence has ended.
    pub skipped: String,
    pub choice: String,
    pub parallel: String,
    pub loop_: String,
}

/// Border type names accepted for `symbols.border`.
pub const BORDER_TYPES: [&str; 4] = ["plain", "rounded", "double", "thick"];

impl Default for Symbols {
    /// Unicode symbols, all drawn by the bundled screenshot font.
    fn default() -> Symbols {
        Symbols {
            bar_full: "█".into(),
            bar_empty: "░".into(),
            bar_partials: "▏▎▍▌▋▊▉".chars().map(String::from).collect(),
            border: BorderSymbols::from_set(&border::ROUNDED),
            markers: Markers {
                active: "●".into(),
                done: "✓".into(),
                not_reached: "○".into(),
                failed: "✗".into(),
                denied: "⊘".into(),
                skipped: "◌".into(),
                choice: "◆".into(),
                // Not U+2225 "∥": the bundled font lacks it, so screenshots would show a gap.
                parallel: "‖".into(),
                loop_: "↺".into(),
            },
        }
    }
}

impl Symbols {
    /// Every symbol, for checks that apply to all of them.
    pub fn all(&self) -> Vec<&str> {
        let b = &self.border;
        let m = &self.markers;
        let mut all = vec![self.bar_full.as_str(), &self.bar_empty];
        all.extend(self.bar_partials.iter().map(String::as_str));
        all.extend([
            b.top_left.as_str(),
            &b.top_right,
            &b.bottom_left,
            &b.bottom_right,
            &b.horizontal,
            &b.vertical,
        ]);
        all.extend([
            m.active.as_str(),
            &m.done,
            &m.not_reached,
            &m.failed,
            &m.denied,
            &m.skipped,
            &m.choice,
            &m.parallel,
            &m.loop_,
        ]);
        all
    }
}

impl BorderSymbols {
    fn from_set(set: &border::Set<'_>) -> BorderSymbols {
        BorderSymbols {
            top_left: set.top_left.into(),
            top_right: set.top_right.into(),
            bottom_left: set.bottom_left.into(),
            bottom_right: set.bottom_right.into(),
            horizontal: set.horizontal_top.into(),
            vertical: set.vertical_left.into(),
        }
    }

    /// As a ratatui border set, for `Block::border_set`.
    pub fn as_set(&self) -> border::Set<'_> {
        border::Set {
            top_left: &self.top_left,
            top_right: &self.top_right,
            bottom_left: &self.bottom_left,
            bottom_right: &self.bottom_right,
            vertical_left: &self.vertical,
            vertical_right: &self.vertical,
            horizontal_top: &self.horizontal,
            horizontal_bottom: &self.horizontal,
        }
    }
}

/// Applies each layer's symbols over the defaults, root theme first.
pub(super) fn merge(layers: &[(&Source, &SymbolsFile)]) -> Result<Symbols, ThemeError> {
    let mut symbols = Symbols::default();
    for (source, file) in layers {
        let set = |target: &mut String, value: &Option<Spanned<String>>, key: &str| {
            if let Some(value) = value {
                *target = cell_symbol(source, value, key)?;
            }
            Ok::<(), ThemeError>(())
        };
        set(&mut symbols.bar_full, &file.bar_full, "symbols.bar_full")?;
        set(&mut symbols.bar_empty, &file.bar_empty, "symbols.bar_empty")?;
        if let Some(partials) = &file.bar_partials {
            symbols.bar_partials = partials
                .get_ref()
                .chars()
                .map(|c| {
                    check(
                        source,
                        partials.span().start,
                        "symbols.bar_partials",
                        &c.to_string(),
                    )
                })
                .collect::<Result<_, _>>()?;
        }
        if let Some(value) = &file.border {
            symbols.border = border(source, value)?;
        }
        let m = &file.markers;
        let ours = &mut symbols.markers;
        set(&mut ours.active, &m.active, "symbols.markers.active")?;
        set(&mut ours.done, &m.done, "symbols.markers.done")?;
        set(
            &mut ours.not_reached,
            &m.not_reached,
            "symbols.markers.not_reached",
        )?;
        set(&mut ours.failed, &m.failed, "symbols.markers.failed")?;
        set(&mut ours.denied, &m.denied, "symbols.markers.denied")?;
        set(&mut ours.skipped, &m.skipped, "symbols.markers.skipped")?;
        set(&mut ours.choice, &m.choice, "symbols.markers.choice")?;
        set(&mut ours.parallel, &m.parallel, "symbols.markers.parallel")?;
        set(&mut ours.loop_, &m.loop_, "symbols.markers.loop")?;
    }
    Ok(symbols)
}

fn cell_symbol(source: &Source, value: &Spanned<String>, key: &str) -> Result<String, ThemeError> {
    check(source, value.span().start, key, value.get_ref())
}

/// A symbol must be one visible cell: anything else breaks bar and border layout.
fn check(source: &Source, at: usize, key: &str, symbol: &str) -> Result<String, ThemeError> {
    let problem = if symbol.is_empty() {
        Some("empty".to_owned())
    } else if symbol.chars().any(char::is_control) {
        Some(format!("{symbol:?} contains a control character"))
    } else if symbol.cell_width() != 1 {
        Some(format!(
            "{symbol:?} is {} cells wide, expected 1",
            symbol.cell_width()
        ))
    } else {
        None
    };
    match problem {
        Some(problem) => Err(source.error_at(at, key, ThemeErrorKind::BadSymbol(problem))),
        None => Ok(symbol.to_owned()),
    }
}

fn border(source: &Source, value: &Spanned<toml::Value>) -> Result<BorderSymbols, ThemeError> {
    let at = value.span().start;
    let bad =
        |key: &str, problem: String| source.error_at(at, key, ThemeErrorKind::BadSymbol(problem));
    match value.get_ref() {
        toml::Value::String(name) => match name.as_str() {
            "plain" => Ok(BorderSymbols::from_set(&border::PLAIN)),
            "rounded" => Ok(BorderSymbols::from_set(&border::ROUNDED)),
            "double" => Ok(BorderSymbols::from_set(&border::DOUBLE)),
            "thick" => Ok(BorderSymbols::from_set(&border::THICK)),
            other => Err(bad(
                "symbols.border",
                format!(
                    "unknown border type {other:?} (expected {} or a table of the six characters)",
                    BORDER_TYPES.join(", ")
                ),
            )),
        },
        toml::Value::Table(table) => {
            const KEYS: [&str; 6] = [
                "top_left",
                "top_right",
                "bottom_left",
                "bottom_right",
                "horizontal",
                "vertical",
            ];
            if let Some(unknown) = table.keys().find(|k| !KEYS.contains(&k.as_str())) {
                let key = format!("symbols.border.{unknown}");
                return Err(bad(&key, format!("expected one of {}", KEYS.join(", "))));
            }
            let mut chars = KEYS.iter().map(|&name| {
                let key = format!("symbols.border.{name}");
                match table.get(name) {
                    Some(toml::Value::String(s)) => check(source, at, &key, s),
                    Some(_) => Err(bad(&key, "expected a string".into())),
                    None => Err(bad(&key, "missing (a border table needs all six)".into())),
                }
            });
            let mut next = || chars.next().unwrap_or_else(|| Ok(String::new()));
            Ok(BorderSymbols {
                top_left: next()?,
                top_right: next()?,
                bottom_left: next()?,
                bottom_right: next()?,
                horizontal: next()?,
                vertical: next()?,
            })
        }
        _ => Err(bad(
            "symbols.border",
            "expected a border type name or a table".into(),
        )),
    }
}
