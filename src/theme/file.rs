//! The theme file as written: every field optional, every value spanned for error lines.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::error::{ThemeError, ThemeErrorKind, dotted, line_of};

/// Where a theme file came from and its text.
#[derive(Debug, Clone)]
pub(super) struct Source {
    /// The theme name it was found under.
    pub name: String,
    /// What errors call the file.
    pub label: String,
    /// A user file (rather than a built-in).
    pub user: bool,
    pub text: String,
}

impl Source {
    /// An error at the line of byte offset `at`, for `key`.
    pub fn error_at(&self, at: usize, key: impl Into<String>, kind: ThemeErrorKind) -> ThemeError {
        ThemeError::new(&self.label, kind).at(line_of(&self.text, at), key)
    }
}

type SpannedMap<V> = BTreeMap<Spanned<String>, Spanned<V>>;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ThemeFile {
    #[serde(default)]
    pub meta: Meta,
    /// Named colours that roles and `[ansi]` refer to.
    #[serde(default)]
    pub palette: SpannedMap<String>,
    /// How the terminal draws its default and 16 named colours (for export and contrast).
    #[serde(default)]
    pub ansi: SpannedMap<String>,
    /// Role name → colour shorthand (`"accent"`) or style table (`{ fg = "bg", bold = true }`).
    #[serde(default)]
    pub roles: SpannedMap<toml::Value>,
    #[serde(default)]
    pub symbols: SymbolsFile,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Meta {
    #[allow(dead_code)] // Documentation for humans; the lookup name is the file name.
    pub name: Option<String>,
    #[allow(dead_code)]
    pub description: Option<String>,
    pub parent: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SymbolsFile {
    pub bar_full: Option<Spanned<String>>,
    pub bar_empty: Option<Spanned<String>>,
    /// Partially filled cells, smallest first (`"▏▎▍▌▋▊▉"`); empty for none.
    pub bar_partials: Option<Spanned<String>>,
    /// A border type name or a table of the six border characters.
    pub border: Option<Spanned<toml::Value>>,
    #[serde(default)]
    pub markers: MarkersFile,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MarkersFile {
    pub active: Option<Spanned<String>>,
    pub done: Option<Spanned<String>>,
    pub not_reached: Option<Spanned<String>>,
    pub failed: Option<Spanned<String>>,
    pub denied: Option<Spanned<String>>,
    pub skipped: Option<Spanned<String>>,
    pub choice: Option<Spanned<String>>,
    pub parallel: Option<Spanned<String>>,
    #[serde(rename = "loop")]
    pub loop_: Option<Spanned<String>>,
}

impl ThemeFile {
    /// The non-empty `meta.parent`, if any.
    pub fn parent(&self) -> Option<&Spanned<String>> {
        self.meta
            .parent
            .as_ref()
            .filter(|p| !p.get_ref().is_empty())
    }
}

/// Parses one theme file; syntax and shape errors carry the file, line and key.
pub(super) fn parse(source: &Source) -> Result<ThemeFile, ThemeError> {
    toml::from_str(&source.text).map_err(|err| {
        let kind = ThemeErrorKind::Syntax(err.message().to_owned());
        match err.span() {
            Some(span) => {
                let key = key_at(&source.text, span.start);
                let error = ThemeError::new(&source.label, kind);
                ThemeError {
                    line: Some(line_of(&source.text, span.start)),
                    key,
                    ..error
                }
            }
            None => ThemeError::new(&source.label, kind),
        }
    })
}

/// The dotted key of the `key = value` line holding byte `at`, qualified by the last
/// `[section]` header above it: what a reader looks for when told "line 12".
fn key_at(text: &str, at: usize) -> Option<String> {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next().unwrap_or("");
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    if key.is_empty() || key.starts_with('[') {
        return None;
    }
    let section = text[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && !l.starts_with("[["))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_owned());
    Some(match section {
        Some(section) => dotted(&section, key),
        None => key.to_owned(),
    })
}
