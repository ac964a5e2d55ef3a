//! Themes: semantic roles → styles, plus symbols for bars and borders.
//!
//! A theme file (`themes/<name>.toml`) has up to five tables:
//!
//! ```toml
//! [meta]
//! name = "mine"
//! parent = "default"        # optional; resolved by the same lookup, at most 8 deep
//! [palette]                 # named colours: ratatui Color syntax ("light-blue", "#7aa2f7", "42")
//! fg = "#c5c8c6"
//! accent = "#81a2be"
//! [roles]                   # role → colour (the foreground) or a style table
//! "base" = { fg = "fg" }
//! "statechart.current" = { fg = "bg", bg = "accent", bold = true }
//! "tools.denied" = "red"
//! [symbols]                 # one cell each
//! bar_full = "█"
//! bar_empty = "░"
//! bar_partials = "▏▎▍▌▋▊▉"
//! border = "rounded"        # plain | rounded | double | thick | { top_left = "+", … }
//! markers = { active = "●", done = "✓", not_reached = "○", failed = "✗", choice = "◆", parallel = "‖", loop = "↺" }
//! [ansi]                    # how the terminal draws Reset and the 16 named colours (screenshots)
//! foreground = "#c5c8c6"
//! background = "#1d1f21"
//! red = "#cc6666"
//! ```
//!
//! A role the theme (and its parents) leave out starts from its fallback role's style
//! ([`Role::fallback`]), so every chain ends at `base`. User themes in
//! `<config dir>/themes/<name>.toml` shadow built-ins of the same name.

mod error;
mod file;
mod palette;
mod resolve;
mod role;
mod symbols;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_errors;

use std::path::{Path, PathBuf};

use ratatui::style::Style;

pub use error::{ThemeError, ThemeErrorKind};
pub use palette::{ANSI_NAMES, Palette, Rgb, ansi_index};
pub use role::Role;
pub use symbols::{BORDER_TYPES, BorderSymbols, Markers, Symbols};

use file::Source;
use resolve::Layer;

/// Built-in themes, in the order `t` cycles through them.
const BUILTINS: &[(&str, &str)] = &[
    ("default", include_str!("../themes/default.toml")),
    ("light", include_str!("../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../themes/high-contrast.toml"),
    ),
    ("ascii", include_str!("../themes/ascii.toml")),
];

/// The theme whose colours `NO_COLOR` selects.
pub const NO_COLOR_THEME: &str = "ascii";

/// The most parents a theme may have above it.
pub const MAX_PARENTS: usize = 8;

/// A resolved theme: one style per role, the symbols, and the colours screenshots paint with.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    /// The name it was loaded under.
    pub name: String,
    roles: [Style; Role::COUNT],
    pub symbols: Symbols,
    pub palette: Palette,
}

impl Theme {
    /// Names of the themes built into the binary, in cycling order.
    pub fn builtin_names() -> Vec<&'static str> {
        BUILTINS.iter().map(|(name, _)| *name).collect()
    }

    /// The style of `role`.
    pub fn style(&self, role: Role) -> Style {
        self.roles[role.index()]
    }

    /// Every role with its style, in [`Role::ALL`] order.
    pub fn styles(&self) -> impl Iterator<Item = (Role, Style)> + '_ {
        Role::ALL.iter().map(|&role| (role, self.style(role)))
    }

    /// Loads theme `name`: `<user_dir>/themes/<name>.toml` if it exists, else the built-in.
    /// Parents are looked up the same way; a user theme whose parent has its own name extends
    /// the built-in of that name.
    pub fn load(name: &str, user_dir: Option<&Path>) -> Result<Theme, ThemeError> {
        let top = find(name, user_dir, false)?.ok_or_else(|| not_found(name, user_dir))?;
        let mut layers: Vec<Layer> = Vec::new();
        let mut source = top;
        loop {
            let file = file::parse(&source)?;
            let parent = file.parent().cloned();
            layers.push(Layer { source, file });
            let Some(parent) = parent else { break };
            let Some(child) = layers.last().map(|l| &l.source) else {
                break;
            };
            let at = parent.span().start;
            let fail = |kind| child.error_at(at, "meta.parent", kind);
            let parent_name = parent.get_ref();
            // `default` extending `default` means the built-in one, not itself.
            let builtin_only = child.user && *parent_name == child.name;
            let next = find(parent_name, user_dir, builtin_only)?
                .ok_or_else(|| fail(ThemeErrorKind::ParentNotFound(parent_name.clone())))?;
            if let Some(pos) = layers.iter().position(|l| l.source.label == next.label) {
                let cycle: Vec<&str> = layers[pos..]
                    .iter()
                    .map(|l| l.source.name.as_str())
                    .chain([next.name.as_str()])
                    .collect();
                return Err(fail(ThemeErrorKind::Cycle(cycle.join(" -> "))));
            }
            if layers.len() > MAX_PARENTS {
                return Err(fail(ThemeErrorKind::TooDeep(MAX_PARENTS)));
            }
            source = next;
        }
        layers.reverse();
        resolve::resolve(name, &layers)
    }

    /// [`Theme::load`], then [`Theme::without_colour`] when `no_color` (see [`no_color_env`]).
    pub fn select(
        name: &str,
        user_dir: Option<&Path>,
        no_color: bool,
    ) -> Result<Theme, ThemeError> {
        let theme = Theme::load(name, user_dir)?;
        Ok(if no_color {
            theme.without_colour()
        } else {
            theme
        })
    }

    /// This theme's symbols with the colours (roles and palette) of the [`NO_COLOR_THEME`].
    pub fn without_colour(self) -> Theme {
        match Theme::load(NO_COLOR_THEME, None) {
            Ok(plain) => Theme {
                roles: plain.roles,
                palette: plain.palette,
                ..self
            },
            // Unreachable for a built-in that the tests load; still, never keep colour.
            Err(_) => Theme {
                roles: self.roles.map(|s| Style {
                    fg: None,
                    bg: None,
                    underline_color: None,
                    ..s
                }),
                ..self
            },
        }
    }

    /// Built-in names, then user themes (`<user_dir>/themes/*.toml`) not shadowing one, sorted.
    pub fn available(user_dir: Option<&Path>) -> Vec<String> {
        let mut names: Vec<String> = BUILTINS.iter().map(|(n, _)| (*n).to_owned()).collect();
        let mut user: Vec<String> = user_dir
            .and_then(|dir| std::fs::read_dir(dir.join("themes")).ok())
            .into_iter()
            .flatten()
            .filter_map(|entry| {
                let path = entry.ok()?.path();
                let stem = path.file_stem()?.to_str()?;
                let ok = path.extension()? == "toml" && valid_name(stem);
                ok.then(|| stem.to_owned())
            })
            .filter(|name| !names.contains(name))
            .collect();
        user.sort();
        names.append(&mut user);
        names
    }
}

/// The theme after `current` in `names`, wrapping around; the first when `current` is absent.
/// What `t` in the dashboard cycles with.
pub fn next_name<'a>(current: &str, names: &'a [String]) -> Option<&'a str> {
    let next = match names.iter().position(|n| n == current) {
        Some(i) => (i + 1) % names.len(),
        None => 0,
    };
    names.get(next).map(String::as_str)
}

/// Whether the environment asks for no colour: `NO_COLOR` set and non-empty (no-color.org).
pub fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// Theme names are file stems; anything else could walk out of the themes directory.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn user_path(name: &str, user_dir: &Path) -> PathBuf {
    user_dir.join("themes").join(format!("{name}.toml"))
}

fn not_found(name: &str, user_dir: Option<&Path>) -> ThemeError {
    let looked = match user_dir {
        Some(dir) if valid_name(name) => Some(user_path(name, dir).display().to_string()),
        _ => None,
    };
    let mut known = format!("built-in: {}", Theme::builtin_names().join(", "));
    if let Some(f) = looked {
        known.push_str(&format!("; no file {f}"));
    }
    let kind = ThemeErrorKind::NotFound {
        name: name.to_owned(),
        known,
    };
    ThemeError::new(format!("themes/{name}.toml"), kind)
}

/// A theme file by name: the user's first (unless `builtin_only`), then the built-in.
fn find(
    name: &str,
    user_dir: Option<&Path>,
    builtin_only: bool,
) -> Result<Option<Source>, ThemeError> {
    if !valid_name(name) {
        return Ok(None);
    }
    if let (Some(dir), false) = (user_dir, builtin_only) {
        let path = user_path(name, dir);
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                return Ok(Some(Source {
                    name: name.to_owned(),
                    label: path.display().to_string(),
                    user: true,
                    text,
                }));
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => {
                let kind = ThemeErrorKind::Io(err.to_string());
                return Err(ThemeError::new(path.display().to_string(), kind));
            }
        }
    }
    Ok(BUILTINS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, text)| Source {
            name: (*n).to_owned(),
            label: format!("themes/{n}.toml"),
            user: false,
            text: (*text).to_owned(),
        }))
}
