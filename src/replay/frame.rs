//! A dashboard frame without a terminal: the model after the first k records of a source,
//! drawn by the same views as `seed tui` into a buffer (screenshots, docs images, benches).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::source::Loaded;
use crate::engine::Machine;
use crate::tui::{self, Entry, Model, Msg, Seq, SessionInfo, Theme};

/// The model after the first `k` records (all when `k` is past the end).
pub fn model_at(
    loaded: &Loaded,
    machine: Option<Machine>,
    what_if: bool,
    theme: &str,
    k: usize,
) -> Model {
    let session = SessionInfo {
        id: loaded.session.clone(),
        source: loaded.path.display().to_string(),
    };
    let seqs: Vec<Seq> = machine.into_iter().map(|m| Seq::new(m, !what_if)).collect();
    let mut m = Model::new(session, seqs, theme);
    let k = k.min(loaded.records.len());
    let entries: Vec<Entry> = loaded.records[..k]
        .iter()
        .enumerate()
        .map(|(i, r)| Entry {
            offset: i as u64,
            record: r.clone(),
        })
        .collect();
    // The frame's clock is the last shown record's time, so the same input draws the same frame.
    if let Some(now) = loaded.records[..k]
        .iter()
        .rev()
        .find_map(|r| tui::model::parse_ts(&r.ts))
    {
        tui::update(&mut m, Msg::Tick(now));
    }
    m.apply_records(entries);
    m
}

pub fn draw(m: &Model, theme: &Theme, width: u16, height: u16) -> Buffer {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    tui::render_buffer(area, &mut buf, m, theme);
    buf
}

/// `120x40` → (120, 40), within what a terminal can be.
pub fn parse_size(s: &str) -> Result<(u16, u16), String> {
    let err = || format!("size `{s}`: expected COLSxROWS such as 120x40 (each 20..=1000)");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(err)?;
    let w: u16 = w.trim().parse().map_err(|_| err())?;
    let h: u16 = h.trim().parse().map_err(|_| err())?;
    if !(20..=1000).contains(&w) || !(5..=1000).contains(&h) {
        return Err(err());
    }
    Ok((w, h))
}
