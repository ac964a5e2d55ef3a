//! The keymap: one table for live and replay that `update`, the footer and the `?` screen all
//! read, so help always shows every key that works and a key means one thing everywhere. Keys
//! that only make sense in a replay (playback, stepping) say so; in a live session they do
//! nothing.

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
    Zoom,
    Open,
    CopyNext,
    CopyReason,
    ToggleMouse,
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

/// When a key works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Always,
    /// Following a live session (not a replay).
    Live,
    /// In a replay (`seed tui --replay`, `seed demo`).
    Replay,
}

pub struct Binding {
    pub code: KeyCode,
    /// Modifiers that must be held (Shift is implied by upper-case letters and ignored).
    pub mods: KeyModifiers,
    pub action: Action,
    pub when: When,
    /// Shown in the help screen; bindings with an empty label share the line above.
    pub label: &'static str,
    pub help: &'static str,
    /// The key and its word in the footer, `? help` (empty: not in the footer).
    pub footer: &'static str,
}

const fn bind(
    code: KeyCode,
    action: Action,
    when: When,
    label: &'static str,
    help: &'static str,
    footer: &'static str,
) -> Binding {
    Binding {
        code,
        mods: KeyModifiers::NONE,
        action,
        when,
        label,
        help,
        footer,
    }
}

/// Another key for the action of the binding above it.
const fn also(code: KeyCode, action: Action, when: When) -> Binding {
    bind(code, action, when, "", "", "")
}

use When::{Always, Live, Replay};

pub const KEYMAP: &[Binding] = &[
    bind(
        KeyCode::Char('?'),
        Action::Help,
        Always,
        "?",
        "show or hide this help",
        "? help",
    ),
    bind(
        KeyCode::Char('q'),
        Action::Quit,
        Always,
        "q",
        "quit",
        "q quit",
    ),
    Binding {
        code: KeyCode::Char('c'),
        mods: KeyModifiers::CONTROL,
        action: Action::Quit,
        when: Always,
        label: "",
        help: "",
        footer: "",
    },
    bind(
        KeyCode::Tab,
        Action::FocusNext,
        Always,
        "Tab",
        "focus the next region",
        "Tab focus",
    ),
    bind(
        KeyCode::BackTab,
        Action::FocusPrev,
        Always,
        "S-Tab",
        "focus the previous region",
        "",
    ),
    bind(
        KeyCode::Up,
        Action::Up,
        Always,
        "↑ k",
        "scroll the focused region up",
        "↑↓ scroll",
    ),
    also(KeyCode::Char('k'), Action::Up, Always),
    bind(
        KeyCode::Down,
        Action::Down,
        Always,
        "↓ j",
        "scroll the focused region down",
        "",
    ),
    also(KeyCode::Char('j'), Action::Down, Always),
    bind(
        KeyCode::PageUp,
        Action::PageUp,
        Always,
        "PgUp PgDn",
        "scroll by a page",
        "",
    ),
    also(KeyCode::PageDown, Action::PageDown, Always),
    bind(
        KeyCode::Home,
        Action::Top,
        Always,
        "Home End",
        "top / bottom of the focused region (timeline: ↑↓ pick a row, End follows the newest again)",
        "",
    ),
    also(KeyCode::End, Action::Bottom, Always),
    bind(
        KeyCode::Char('/'),
        Action::Filter,
        Always,
        "/",
        "filter the timeline by text, or by outcome: deny, fail, ask (Enter keeps, Esc clears)",
        "/ filter",
    ),
    bind(
        KeyCode::Char('m'),
        Action::ToggleMouse,
        Always,
        "m",
        "mouse on / off (off, or Shift held: the terminal selects text)",
        "",
    ),
    bind(
        KeyCode::Char('g'),
        Action::ToggleGraph,
        Always,
        "g",
        "statechart: outline tree / focused graph",
        "g graph",
    ),
    bind(
        KeyCode::Char('t'),
        Action::CycleTheme,
        Always,
        "t",
        "next theme (the footer names it)",
        "t theme",
    ),
    bind(
        KeyCode::Enter,
        Action::Open,
        Always,
        "Enter",
        "the picked timeline row whole: input, verdict, reason, response",
        "Enter open",
    ),
    bind(
        KeyCode::Char('z'),
        Action::Zoom,
        Always,
        "z",
        "zoom the focused region to the whole screen, and back",
        "z zoom",
    ),
    bind(
        KeyCode::Char('y'),
        Action::CopyNext,
        Always,
        "y",
        "copy the next call (in a call's detail: its reason), OSC 52",
        "y copy",
    ),
    bind(
        KeyCode::Char('Y'),
        Action::CopyReason,
        Always,
        "Y",
        "copy the newest refusal's reason",
        "",
    ),
    bind(
        KeyCode::Char('o'),
        Action::NextSequence,
        Always,
        "o",
        "other sequence, when the session steps several",
        "",
    ),
    bind(
        KeyCode::Char('s'),
        Action::Sessions,
        Live,
        "s",
        "switch session (subagents under their parent)",
        "s session",
    ),
    bind(
        KeyCode::Char('S'),
        Action::Screenshot,
        Always,
        "S",
        "save the current frame as SVG in the working directory",
        "",
    ),
    bind(
        KeyCode::Esc,
        Action::Close,
        Always,
        "Esc",
        "close a popup, clear the filter",
        "",
    ),
    bind(
        KeyCode::Char(' '),
        Action::PlayPause,
        Replay,
        "Space",
        "play / pause (from the start when at the end)",
        "Space play",
    ),
    bind(
        KeyCode::Right,
        Action::StepForward,
        Replay,
        "→ l  ← h",
        "step one event forward / back",
        "←→ step",
    ),
    also(KeyCode::Char('l'), Action::StepForward, Replay),
    also(KeyCode::Left, Action::StepBack, Replay),
    also(KeyCode::Char('h'), Action::StepBack, Replay),
    bind(
        KeyCode::Char('+'),
        Action::Faster,
        Replay,
        "+ -",
        "faster / slower (0.5×–64×)",
        "",
    ),
    also(KeyCode::Char('='), Action::Faster, Replay),
    also(KeyCode::Char('-'), Action::Slower, Replay),
    bind(
        KeyCode::Char('<'),
        Action::Start,
        Replay,
        "< >",
        "jump to the first / last event",
        "",
    ),
    also(KeyCode::Char('>'), Action::End, Replay),
    bind(
        KeyCode::Char('n'),
        Action::NextDenial,
        Replay,
        "n N",
        "next / previous denied call",
        "n denied",
    ),
    also(KeyCode::Char('N'), Action::PrevDenial, Replay),
    bind(
        KeyCode::Char(']'),
        Action::NextChange,
        Replay,
        "] [",
        "next / previous state change",
        "",
    ),
    also(KeyCode::Char('['), Action::PrevChange, Replay),
];

impl When {
    pub fn applies(self, replay: bool) -> bool {
        match self {
            Always => true,
            Live => !replay,
            Replay => replay,
        }
    }
}

impl Action {
    /// Works only in a replay.
    pub fn replay_only(self) -> bool {
        KEYMAP
            .iter()
            .find(|b| b.action == self)
            .is_some_and(|b| b.when == Replay)
    }
}

/// The binding of a key, whether or not it works now.
pub fn binding(code: KeyCode, mods: KeyModifiers) -> Option<&'static Binding> {
    // Shift is part of the character (`G`, `+`, `?`), not a modifier to match.
    let mods = mods - KeyModifiers::SHIFT;
    KEYMAP.iter().find(|b| b.code == code && b.mods == mods)
}

/// The action of a key outside a replay, if it works there.
pub fn lookup(code: KeyCode, mods: KeyModifiers) -> Option<Action> {
    lookup_in(false, code, mods)
}

/// The action of a key, in a replay or not (a key means the same in both; some work in one).
pub fn lookup_in(replay: bool, code: KeyCode, mods: KeyModifiers) -> Option<Action> {
    binding(code, mods)
        .filter(|b| b.when.applies(replay))
        .map(|b| b.action)
}

/// The bindings with their label (the first key of each action), in table order.
pub fn labelled() -> impl Iterator<Item = &'static Binding> {
    KEYMAP.iter().filter(|b| !b.label.is_empty())
}
