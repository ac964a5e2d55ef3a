//! The keymap: one table that both `update` and the help screen read, so `?` always shows every
//! key that works.

use crossterm::event::{KeyCode, KeyModifiers};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    Help,
    FocusNext,
    FocusPrev,
    Filter,
    CycleTheme,
    Sessions,
    ToggleGraph,
    NextSequence,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Screenshot,
    Close,
}

pub struct Binding {
    pub code: KeyCode,
    /// Modifiers that must be held (Shift is implied by upper-case letters and ignored).
    pub mods: KeyModifiers,
    pub action: Action,
    /// Shown in the help screen; bindings with an empty label share the line above.
    pub label: &'static str,
    pub help: &'static str,
}

const fn key(code: KeyCode, action: Action, label: &'static str, help: &'static str) -> Binding {
    Binding {
        code,
        mods: KeyModifiers::NONE,
        action,
        label,
        help,
    }
}

pub const KEYMAP: &[Binding] = &[
    key(
        KeyCode::Char('?'),
        Action::Help,
        "?",
        "show or hide this help",
    ),
    key(KeyCode::Char('q'), Action::Quit, "q", "quit"),
    Binding {
        code: KeyCode::Char('c'),
        mods: KeyModifiers::CONTROL,
        action: Action::Quit,
        label: "",
        help: "",
    },
    key(
        KeyCode::Tab,
        Action::FocusNext,
        "Tab",
        "focus the next region",
    ),
    key(
        KeyCode::BackTab,
        Action::FocusPrev,
        "S-Tab",
        "focus the previous region",
    ),
    key(
        KeyCode::Char('/'),
        Action::Filter,
        "/",
        "filter the timeline (Enter keeps, Esc clears)",
    ),
    key(KeyCode::Char('t'), Action::CycleTheme, "t", "next theme"),
    key(
        KeyCode::Char('s'),
        Action::Sessions,
        "s",
        "switch session (subagents under their parent)",
    ),
    key(
        KeyCode::Char('g'),
        Action::ToggleGraph,
        "g",
        "statechart: outline tree / focused graph",
    ),
    key(
        KeyCode::Char('n'),
        Action::NextSequence,
        "n",
        "next sequence, when several are followed",
    ),
    key(
        KeyCode::Up,
        Action::Up,
        "↑ k",
        "scroll the focused region up",
    ),
    key(KeyCode::Char('k'), Action::Up, "", ""),
    key(
        KeyCode::Down,
        Action::Down,
        "↓ j",
        "scroll the focused region down",
    ),
    key(KeyCode::Char('j'), Action::Down, "", ""),
    key(
        KeyCode::PageUp,
        Action::PageUp,
        "PgUp PgDn",
        "scroll by a page",
    ),
    key(KeyCode::PageDown, Action::PageDown, "", ""),
    key(
        KeyCode::Home,
        Action::Top,
        "Home End",
        "oldest / newest (End follows the log again)",
    ),
    key(KeyCode::End, Action::Bottom, "", ""),
    key(
        KeyCode::Char('S'),
        Action::Screenshot,
        "S",
        "save the current frame as SVG in the working directory",
    ),
    key(
        KeyCode::Esc,
        Action::Close,
        "Esc",
        "close the popup, clear the filter",
    ),
];

/// The action bound to a key, if any.
pub fn lookup(code: KeyCode, mods: KeyModifiers) -> Option<Action> {
    let mods = mods - KeyModifiers::SHIFT;
    KEYMAP
        .iter()
        .find(|b| b.code == code && b.mods == mods)
        .map(|b| b.action)
}
