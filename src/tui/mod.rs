//! The dashboard (`seed tui`): one plain [`Model`], a reducer [`update`], views that are
//! functions of `&Model` and `&Theme` (one file per screen region, placed by [`layout`]), and
//! the terminal loop in [`app`].

pub mod app;
mod ascii;
pub mod classify;
pub mod common;
pub mod copy;
pub mod deep_state;
pub mod detail;
pub mod feed;
pub mod filter;
pub mod fold;
pub mod footer;
pub mod graph;
pub mod header;
pub mod help;
pub mod keys;
pub mod layout;
pub mod lite;
pub mod model;
pub mod outside;
pub mod pane;
pub mod pick;
pub mod progress;
pub mod recovery;
pub mod replay;
pub mod rows;
pub mod sanitize;
pub mod scrubber;
pub mod select;
pub mod sessions;
pub mod settings;
pub mod start;
pub mod statechart;
pub mod text;
pub use crate::theme;
pub mod timeline;
pub mod tools;
pub mod update;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

pub use fold::{Fold, Seq};
pub use model::{Entry, Focus, Mode, Model, Overlay, SessionEntry, SessionInfo};
pub use theme::{Role, Theme};
pub use update::{Effect, Msg, update};

/// Draw the whole screen into a frame (the live loop).
pub fn render(frame: &mut Frame, m: &Model, theme: &Theme) {
    let area = frame.area();
    render_buffer(area, frame.buffer_mut(), m, theme);
}

/// Draw the whole screen into any buffer (tests, screenshots, replay export).
pub fn render_buffer(area: Rect, buf: &mut Buffer, m: &Model, theme: &Theme) {
    buf.set_style(area, theme.style(Role::Base));
    if area.width < 10 || area.height < 3 {
        return;
    }
    let r = layout::compute(area, m);
    let chrome = layout::chrome(area);
    header::render(m, theme, r.header, buf);
    if let Some(a) = r.footer {
        footer::render(m, theme, a, buf);
    }
    if let Some(a) = r.progress {
        let c = (chrome == common::Chrome::Boxed && r.progress_framed).then_some(chrome);
        progress::render(m, theme, a, buf, c);
    }
    if let Some(a) = r.statechart {
        statechart::render(m, theme, a, buf, chrome);
    }
    if let Some(a) = r.graph {
        graph::render(m, theme, a, buf, chrome);
    }
    if let Some(a) = r.tools {
        tools::render(m, theme, a, buf, chrome);
    }
    if let Some(a) = r.recovery {
        recovery::render(m, theme, a, buf, chrome);
    }
    if let Some(a) = r.timeline {
        timeline::render(m, theme, a, buf, chrome);
    }
    if let Some(a) = r.deep {
        deep_state::render(m, theme, a, buf, chrome);
    }
    match m.overlay {
        Overlay::Help => help::render(m, theme, area, buf),
        Overlay::Sessions { .. } => sessions::render(m, theme, area, buf),
        Overlay::Detail => detail::render(m, theme, area, buf),
        Overlay::None => {}
    }
    if theme.symbols.bar_full.is_ascii() {
        ascii::fold_to_ascii(buf, area);
    }
}
