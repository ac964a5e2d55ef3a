//! A dashboard frame without a terminal: the model after the first k records of a source,
//! drawn by the same views as `seed tui` into a buffer (screenshots, docs images, benches).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::store::record::Record;
use crate::tui::{self, Model, Msg, Seq, SessionInfo, Theme};

/// The dashboard's replay of `records` (the same model as `seed tui --replay`) with its cursor
/// after the first `k` (all when `k` is past the end). Its clock is the last shown record's
/// time, so the same input draws the same frame.
pub fn replay_at(
    info: SessionInfo,
    seqs: Vec<Seq>,
    records: Vec<Record>,
    theme: &str,
    k: usize,
) -> Model {
    let k = k.min(records.len());
    let now = records[..k]
        .iter()
        .rev()
        .find_map(|r| tui::model::parse_ts(&r.ts));
    let mut m = Model::new(info, seqs, theme);
    m.start_replay(records);
    m.jump(k);
    if let Some(now) = now {
        tui::update(&mut m, Msg::Tick(now));
    }
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
