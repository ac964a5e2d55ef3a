//! What the dashboard remembers between runs: the theme, the statechart view, the zoom, the
//! focused region and the mouse, in a small TOML file in the state directory (`tui.toml`).
//! A file that cannot be read or makes no sense costs one line of warning and the defaults;
//! it is never trusted further than these few values.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::store::safe_fs;

use super::model::{ChartView, Focus, Model};

/// The file's name in the state directory.
pub const FILE: &str = "tui.toml";
/// A larger file is not a settings file this dashboard wrote.
pub const MAX_BYTES: u64 = 4096;
/// Longest theme name kept.
const MAX_THEME: usize = 64;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// `outline` or `graph`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zoom: Option<bool>,
    /// `statechart`, `tools`, `timeline`, `recovery` or `deep`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mouse: Option<bool>,
}

pub fn path(state: &Path) -> PathBuf {
    state.join(FILE)
}

const FOCUS_NAMES: [(Focus, &str); 5] = [
    (Focus::Statechart, "statechart"),
    (Focus::Tools, "tools"),
    (Focus::Timeline, "timeline"),
    (Focus::Recovery, "recovery"),
    (Focus::Deep, "deep"),
];

/// Read the settings: none when there is no file; the defaults and one line saying why when
/// the file is unreadable, too large, not TOML or holds a value it should not.
pub fn load(file: &Path) -> (Settings, Option<String>) {
    let warn = |why: String| {
        let line = format!("ignored {}: {why}; using the defaults", file.display());
        (
            Settings::default(),
            Some(crate::report::sanitize::escape(&line, 200)),
        )
    };
    let bytes = match safe_fs::read_bounded(file, MAX_BYTES) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Settings::default(), None),
        Err(e) => return warn(e.to_string()),
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return warn("not UTF-8 text".into());
    };
    let s: Settings = match toml::from_str(text) {
        Ok(s) => s,
        Err(e) => return warn(e.message().to_string()),
    };
    match check(&s) {
        Ok(()) => (s, None),
        Err(why) => warn(why),
    }
}

fn check(s: &Settings) -> Result<(), String> {
    if let Some(t) = &s.theme {
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_');
        if t.is_empty() || t.len() > MAX_THEME || !t.chars().all(plain) {
            return Err("the theme is not a theme's name".into());
        }
    }
    if s.chart
        .as_deref()
        .is_some_and(|c| c != "outline" && c != "graph")
    {
        return Err("chart is neither outline nor graph".into());
    }
    if let Some(f) = &s.focus
        && !FOCUS_NAMES.iter().any(|(_, n)| n == f)
    {
        return Err("focus names no region".into());
    }
    Ok(())
}

/// Put what the settings say on a model (a theme is applied by the shell, which loads it).
pub fn apply(s: &Settings, m: &mut Model) {
    if let Some(c) = &s.chart {
        m.chart_view = match c.as_str() {
            "graph" => ChartView::Graph,
            _ => ChartView::Outline,
        };
    }
    if let Some(f) = &s.focus
        && let Some((focus, _)) = FOCUS_NAMES.iter().find(|(_, n)| n == f)
    {
        m.focus = *focus;
    }
    m.zoom = s.zoom.unwrap_or(m.zoom);
    m.mouse = s.mouse.unwrap_or(m.mouse);
}

/// The settings a model shows now.
pub fn of(m: &Model) -> Settings {
    let focus = FOCUS_NAMES
        .iter()
        .find(|(f, _)| *f == m.focus)
        .map(|(_, n)| n.to_string());
    Settings {
        theme: Some(m.theme.clone()),
        chart: Some(match m.chart_view {
            ChartView::Outline => "outline".into(),
            ChartView::Graph => "graph".into(),
        }),
        zoom: Some(m.zoom),
        focus,
        mouse: Some(m.mouse),
    }
}

/// Write them (atomically: a reader never sees half a file), making the state directory when
/// no hook has run yet.
pub fn save(file: &Path, s: &Settings) -> std::io::Result<()> {
    let text = toml::to_string(s).map_err(std::io::Error::other)?;
    if let Some(dir) = file.parent() {
        safe_fs::ensure_dir(dir)?;
    }
    safe_fs::write_atomic(file, text.as_bytes())
}
