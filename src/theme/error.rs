//! Theme errors: one line naming the file, the line and the key at fault.

use std::fmt;

/// A theme that cannot be loaded. `Display` is one line:
/// `themes/mine.toml:7: roles."statechart.bogus": unknown role`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThemeError {
    /// The theme file (a user path, or `themes/<name>.toml` for a built-in).
    pub file: String,
    /// 1-based line of the offending key, when known.
    pub line: Option<usize>,
    /// The offending key as a TOML dotted key, e.g. `symbols.bar_full`.
    pub key: Option<String>,
    pub kind: ThemeErrorKind,
}

/// What is wrong with a theme.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThemeErrorKind {
    /// `known`: the built-in names, and the user theme file looked for when there was one.
    #[error("no theme named `{name}` ({known})")]
    NotFound { name: String, known: String },
    #[error("cannot read: {0}")]
    Io(String),
    #[error("{0}")]
    Syntax(String),
    #[error("unknown role")]
    UnknownRole,
    #[error("unknown palette colour `{0}`")]
    UnknownColour(String),
    #[error("bad colour `{0}`: expected a palette name, a colour name, #rrggbb or 0-255")]
    BadColour(String),
    #[error("`{0}` must be a #rrggbb colour here")]
    NeedRgb(String),
    #[error("unknown key, expected one of: {0}")]
    UnknownKey(String),
    #[error("bad style: {0}")]
    BadStyle(String),
    #[error("bad symbol: {0}")]
    BadSymbol(String),
    #[error("parent theme `{0}` not found")]
    ParentNotFound(String),
    #[error("parent themes form a cycle: {0}")]
    Cycle(String),
    #[error("parent chain is deeper than {0} themes")]
    TooDeep(usize),
}

impl ThemeError {
    pub(super) fn new(file: impl Into<String>, kind: ThemeErrorKind) -> ThemeError {
        ThemeError {
            file: file.into(),
            line: None,
            key: None,
            kind,
        }
    }

    pub(super) fn at(mut self, line: usize, key: impl Into<String>) -> ThemeError {
        self.line = Some(line);
        self.key = Some(key.into());
        self
    }
}

impl fmt::Display for ThemeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A theme that is nowhere has no file to point at: the message names where it looked.
        if let ThemeErrorKind::NotFound { .. } = self.kind {
            return write!(f, "{}", self.kind);
        }
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": {key}")?;
        }
        // Messages from the TOML parser may span lines; the promise is one line.
        let message = self.kind.to_string();
        let message: Vec<&str> = message.split_whitespace().collect();
        write!(f, ": {}", message.join(" "))
    }
}

impl std::error::Error for ThemeError {}

/// 1-based line number of byte offset `at` in `text`.
pub(super) fn line_of(text: &str, at: usize) -> usize {
    let end = at.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// A TOML dotted key, quoting the segments that need it: `roles."statechart.current"`.
pub(super) fn dotted(section: &str, key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        format!("{section}.{key}")
    } else {
        format!("{section}.{key:?}")
    }
}
