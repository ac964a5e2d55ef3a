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
    // Replay (`seed tui --replay`).
    PlayPause,
    Faster,
    Slower,
    StepForward,
    StepBack,
    Start,
    End,
    NextDenial,
    PrevDenial,
    NextChange,
    PrevChange,
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

/// Keys of a replay; they come first, so `g`, `n`, Home and End move the cursor there (the
/// statechart view and the sequence move to `v` and `o`).
pub const REPLAY_KEYMAP: &[Binding] = &[
    key(
        KeyCode::Char(' '),
        Action::PlayPause,
        "Space",
        "play / pause (from the start when at the end)",
    ),
    key(
        KeyCode::Char('+'),
        Action::Faster,
        "+ -",
        "faster / slower (0.5×–64×)",
    ),
    key(KeyCode::Char('='), Action::Faster, "", ""),
    key(KeyCode::Char('-'), Action::Slower, "", ""),
    key(
        KeyCode::Right,
        Action::StepForward,
        "→ l  ← h",
        "step one event forward / back",
    ),
    key(KeyCode::Char('l'), Action::StepForward, "", ""),
    key(KeyCode::Left, Action::StepBack, "", ""),
    key(KeyCode::Char('h'), Action::StepBack, "", ""),
    key(KeyCode::Home, Action::Start, "Home g", "jump to the start"),
    key(KeyCode::Char('g'), Action::Start, "", ""),
    key(KeyCode::End, Action::End, "End G", "jump to the end"),
    key(KeyCode::Char('G'), Action::End, "", ""),
    key(
        KeyCode::Char('n'),
        Action::NextDenial,
        "n N",
        "next / previous denial",
    ),
    key(KeyCode::Char('N'), Action::PrevDenial, "", ""),
    key(
        KeyCode::Char(']'),
        Action::NextChange,
        "] [",
        "next / previous state change",
    ),
    key(KeyCode::Char('['), Action::PrevChange, "", ""),
    key(
        KeyCode::Char('v'),
        Action::ToggleGraph,
        "v",
        "statechart: outline tree / focused graph",
    ),
    key(
        KeyCode::Char('o'),
        Action::NextSequence,
        "o",
        "next sequence, when several are followed",
    ),
];

/// The action bound to a key outside a replay, if any.
pub fn lookup(code: KeyCode, mods: KeyModifiers) -> Option<Action> {
    find(KEYMAP, code, mods)
}

/// [`lookup`], with the replay keys taking precedence while replaying.
pub fn lookup_in(replay: bool, code: KeyCode, mods: KeyModifiers) -> Option<Action> {
    replay
        .then(|| find(REPLAY_KEYMAP, code, mods))
        .flatten()
        .or_else(|| find(KEYMAP, code, mods))
}

fn find(map: &[Binding], code: KeyCode, mods: KeyModifiers) -> Option<Action> {
    // Shift is part of the character (`G`, `+`, `?`), not a modifier to match.
    let mods = mods - KeyModifiers::SHIFT;
    map.iter()
        .find(|b| b.code == code && b.mods == mods)
        .map(|b| b.action)
}
