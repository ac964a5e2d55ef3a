//! From a chain of parsed theme files (root first) to a resolved [`Theme`].

use std::collections::BTreeMap;

use ratatui::style::{Color, Modifier, Style};
use toml::Spanned;

use super::error::{ThemeError, ThemeErrorKind, dotted};
use super::file::{Source, ThemeFile};
use super::palette::{ANSI_NAMES, Palette, Rgb, XTERM_ANSI};
use super::role::Role;
use super::{Theme, symbols};

/// One parsed file of a theme's parent chain.
pub(super) struct Layer {
    pub source: Source,
    pub file: ThemeFile,
}

/// What a `Reset` colour looks like when neither `[ansi]` nor the base role says.
const DEFAULT_FOREGROUND: Rgb = Rgb::new(0xe5, 0xe5, 0xe5);
const DEFAULT_BACKGROUND: Rgb = Rgb::new(0x00, 0x00, 0x00);

/// Style attributes a role table may set.
const STYLE_KEYS: &str = "fg, bg, bold, italic, underline, reversed, dim";

/// The merged `[palette]`: name → colour.
type Named = BTreeMap<String, Color>;

/// Resolves `layers` (root ancestor first, the requested theme last) into a theme named `name`.
pub(super) fn resolve(name: &str, layers: &[Layer]) -> Result<Theme, ThemeError> {
    let named = palette(layers)?;
    let patches = role_patches(layers, &named)?;
    let roles = styles(&patches);
    let palette = export_palette(layers, &named, roles[Role::Base.index()])?;
    let symbol_layers: Vec<_> = layers
        .iter()
        .map(|l| (&l.source, &l.file.symbols))
        .collect();
    Ok(Theme {
        name: name.to_owned(),
        roles,
        symbols: symbols::merge(&symbol_layers)?,
        palette,
    })
}

/// `[palette]` of every layer, children overriding parents. Values are literal colours.
fn palette(layers: &[Layer]) -> Result<Named, ThemeError> {
    let mut named = Named::new();
    for Layer { source, file } in layers {
        for (key, value) in &file.palette {
            let color = value.get_ref().parse::<Color>().map_err(|_| {
                source.error_at(
                    key.span().start,
                    dotted("palette", key.get_ref()),
                    ThemeErrorKind::BadColour(value.get_ref().clone()),
                )
            })?;
            named.insert(key.get_ref().clone(), color);
        }
    }
    Ok(named)
}

/// A colour reference: a palette name first, else a literal colour.
fn colour(value: &str, named: &Named) -> Result<Color, ThemeErrorKind> {
    if let Some(color) = named.get(value) {
        return Ok(*color);
    }
    value.parse::<Color>().map_err(|_| {
        // A word is a palette name that is missing; anything else is a malformed colour.
        let word = value.starts_with(|c: char| c.is_ascii_alphabetic())
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if word {
            ThemeErrorKind::UnknownColour(value.to_owned())
        } else {
            ThemeErrorKind::BadColour(value.to_owned())
        }
    })
}

/// The attributes one role entry sets on top of its fallback's style.
fn role_patches(layers: &[Layer], named: &Named) -> Result<Vec<Option<Style>>, ThemeError> {
    let mut patches = vec![None; Role::COUNT];
    for Layer { source, file } in layers {
        for (key, value) in &file.roles {
            let at = key.span().start;
            let path = dotted("roles", key.get_ref());
            let role = Role::from_name(key.get_ref())
                .ok_or_else(|| source.error_at(at, &path, ThemeErrorKind::UnknownRole))?;
            let patch = style_patch(value, named)
                .map_err(|(attr, kind)| source.error_at(at, format!("{path}{attr}"), kind))?;
            patches[role.index()] = Some(patch);
        }
    }
    Ok(patches)
}

/// Interprets `"colour"` or `{ fg, bg, bold, … }`. Errors carry the attribute (`.fg`) at fault.
fn style_patch(
    value: &Spanned<toml::Value>,
    named: &Named,
) -> Result<Style, (String, ThemeErrorKind)> {
    let table = match value.get_ref() {
        toml::Value::String(fg) => {
            return Ok(Style::new().fg(colour(fg, named).map_err(|k| (String::new(), k))?));
        }
        toml::Value::Table(table) => table,
        _ => {
            let kind = ThemeErrorKind::BadStyle("expected a colour or a style table".into());
            return Err((String::new(), kind));
        }
    };
    let mut style = Style::new();
    for (attr, value) in table {
        let at = format!(".{attr}");
        let bad = |what: &str| (at.clone(), ThemeErrorKind::BadStyle(what.to_owned()));
        match (attr.as_str(), value) {
            ("fg" | "bg", toml::Value::String(name)) => {
                let color = colour(name, named).map_err(|k| (at.clone(), k))?;
                style = if attr == "fg" {
                    style.fg(color)
                } else {
                    style.bg(color)
                };
            }
            ("fg" | "bg", _) => return Err(bad("a colour must be a string")),
            (flag, toml::Value::Boolean(on)) => {
                let modifier = match flag {
                    "bold" => Modifier::BOLD,
                    "italic" => Modifier::ITALIC,
                    "underline" => Modifier::UNDERLINED,
                    "reversed" => Modifier::REVERSED,
                    "dim" => Modifier::DIM,
                    _ => return Err(bad(&format!("unknown attribute (expected {STYLE_KEYS})"))),
                };
                // `false` switches off what the fallback role turned on.
                style = if *on {
                    style.add_modifier(modifier)
                } else {
                    style.remove_modifier(modifier)
                };
            }
            (_, _) => return Err(bad(&format!("unknown attribute (expected {STYLE_KEYS})"))),
        }
    }
    Ok(style)
}

/// Each role's style: its fallback's style patched with the role's own entry.
fn styles(patches: &[Option<Style>]) -> [Style; Role::COUNT] {
    fn resolve(role: Role, patches: &[Option<Style>], done: &mut [Option<Style>]) -> Style {
        if let Some(style) = done[role.index()] {
            return style;
        }
        let inherited = match role.fallback() {
            Some(parent) => resolve(parent, patches, done),
            None => Style::new(),
        };
        let style = match patches[role.index()] {
            Some(patch) => inherited.patch(patch),
            None => inherited,
        };
        done[role.index()] = Some(style);
        style
    }
    let mut done = [None; Role::COUNT];
    let mut out = [Style::new(); Role::COUNT];
    for &role in Role::ALL {
        out[role.index()] = resolve(role, patches, &mut done);
    }
    out
}

/// `[ansi]` of every layer over xterm's colours; `Reset` falls back to the base role's colours.
fn export_palette(layers: &[Layer], named: &Named, base: Style) -> Result<Palette, ThemeError> {
    let mut ansi = XTERM_ANSI;
    let (mut foreground, mut background) = (None, None);
    for Layer { source, file } in layers {
        for (key, value) in &file.ansi {
            let at = key.span().start;
            let path = dotted("ansi", key.get_ref());
            let rgb = match colour(value.get_ref(), named) {
                Ok(Color::Rgb(r, g, b)) => Rgb::new(r, g, b),
                Ok(_) => {
                    let kind = ThemeErrorKind::NeedRgb(value.get_ref().clone());
                    return Err(source.error_at(at, path, kind));
                }
                Err(kind) => return Err(source.error_at(at, path, kind)),
            };
            match key.get_ref().as_str() {
                "foreground" => foreground = Some(rgb),
                "background" => background = Some(rgb),
                name => match ANSI_NAMES.iter().position(|n| *n == name) {
                    Some(i) => ansi[i] = rgb,
                    None => {
                        let expected = format!("foreground, background, {}", ANSI_NAMES.join(", "));
                        return Err(source.error_at(
                            at,
                            path,
                            ThemeErrorKind::UnknownKey(expected),
                        ));
                    }
                },
            }
        }
    }
    let terminal = Palette {
        foreground: DEFAULT_FOREGROUND,
        background: DEFAULT_BACKGROUND,
        ansi,
    };
    let from_base = |color: Option<Color>, pick: fn(&Palette, Color) -> Rgb| {
        color
            .filter(|c| *c != Color::Reset)
            .map(|c| pick(&terminal, c))
    };
    Ok(Palette {
        foreground: foreground
            .or_else(|| from_base(base.fg, Palette::fg))
            .unwrap_or(DEFAULT_FOREGROUND),
        background: background
            .or_else(|| from_base(base.bg, Palette::bg))
            .unwrap_or(DEFAULT_BACKGROUND),
        ansi,
    })
}
