//! The dashboard as a newcomer uses it, at the three sizes it is judged at (a 40×20 side pane,
//! 80×24, 120×40): what to do next is always on screen, nothing is cut without a mark, no short
//! form needs explaining, and live and replay answer the same keys the same way. Each test
//! names the complaint it answers; each snapshot is the screen a person looked at.

use crate::support::tui as common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use common::Script;
use seed::tui::{Entry, Model, Msg, Seq, SessionInfo, Theme, update};

pub const SIZES: [(u16, u16); 3] = [(40, 20), (80, 24), (120, 40)];

/// The dashboard after every record of `s`, following the log as `seed tui` does.
pub fn live(s: &Script) -> Model {
    let info = SessionInfo {
        id: s.session.clone(),
        source: String::new(),
        ..Default::default()
    };
    let mut m = Model::new(info, vec![Seq::new(s.machine.clone(), true)], "default");
    let entries = s
        .records
        .iter()
        .enumerate()
        .map(|(i, r)| Entry {
            offset: i as u64,
            record: r.clone(),
        })
        .collect();
    m.apply_records(entries);
    m
}

/// `seed tui --replay` of `s`, as it opens (paused on the first event).
pub fn replayed(s: &Script) -> Model {
    let info = SessionInfo {
        id: s.session.clone(),
        source: String::new(),
        ..Default::default()
    };
    let mut m = Model::new(info, vec![Seq::new(s.machine.clone(), true)], "default");
    m.open_replay(s.records.clone(), false);
    m
}

pub fn theme(name: &str) -> Theme {
    Theme::load(name, None).expect("built-in theme")
}

pub fn draw_with(m: &Model, th: &Theme, w: u16, h: u16) -> Buffer {
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    seed::tui::render_buffer(area, &mut buf, m, th);
    buf
}

pub fn rows(buf: &Buffer) -> Vec<String> {
    (0..buf.area.height)
        .map(|y| {
            let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
            row.trim_end().to_string()
        })
        .collect()
}

pub fn screen(m: &Model, w: u16, h: u16) -> String {
    rows(&draw_with(m, &theme("default"), w, h)).join("\n") + "\n"
}

pub fn press(m: &mut Model, code: KeyCode) -> Vec<seed::tui::Effect> {
    update(m, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

pub fn typed(m: &mut Model, keys: &str) {
    for c in keys.chars() {
        press(m, KeyCode::Char(c));
    }
}

/// Snapshots of `m` at the three sizes, named `<name>_<w>x<h>`.
pub fn three_sizes(name: &str, m: &Model) {
    for (w, h) in SIZES {
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(m, w, h));
    }
}

/// The `▾ N more` (or `v N more`) on a region's frame.
fn more_marks(t: &str) -> Vec<usize> {
    t.lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once("▾ ")?;
            rest.split_once(" more")?.0.parse().ok()
        })
        .collect()
}

#[test]
fn help_scrolls_to_its_last_line_at_every_size() {
    for (w, h) in SIZES {
        let mut m = live(&common::demo_session());
        update(&mut m, Msg::Resize(w, h));
        typed(&mut m, "?");
        let first = screen(&m, w, h);
        let last_key = "other keys close";
        if !first.contains(last_key) {
            assert!(
                !more_marks(&first).is_empty(),
                "{w}x{h}: help says how much more\n{first}"
            );
            press(&mut m, KeyCode::Down);
            let t = screen(&m, w, h);
            assert!(t.contains("1 above"), "{w}x{h}: one row down\n{t}");
            press(&mut m, KeyCode::End);
            let t = screen(&m, w, h);
            assert!(
                t.contains(last_key),
                "{w}x{h}: help scrolled to its end\n{t}"
            );
        }
    }
    let mut m = live(&common::demo_session());
    typed(&mut m, "?");
    three_sizes("help_opened", &m);
}

#[test]
fn live_and_replay_answer_g_and_home_the_same_way() {
    let s = common::demo_session();
    for mut m in [live(&s), replayed(&s)] {
        let before = m.cursor();
        typed(&mut m, "g");
        assert_eq!(
            m.chart_view,
            seed::tui::model::ChartView::Graph,
            "g shows the graph"
        );
        assert_eq!(m.cursor(), before, "g does not move a replay");
        typed(&mut m, "g");
        assert_eq!(m.chart_view, seed::tui::model::ChartView::Outline);
        m.focus = seed::tui::Focus::Timeline;
        press(&mut m, KeyCode::Home);
        assert_eq!(
            m.cursor(),
            before,
            "Home scrolls the focused region, not the replay"
        );
        assert!(
            m.scroll.timeline > 0 || m.rows.len() <= 1,
            "Home went to the oldest row"
        );
    }
    for code in [KeyCode::Char('g'), KeyCode::Home, KeyCode::End] {
        assert_eq!(
            seed::tui::keys::lookup_in(true, code, KeyModifiers::NONE),
            seed::tui::keys::lookup_in(false, code, KeyModifiers::NONE),
            "{code:?}"
        );
    }
}

#[test]
fn a_replay_opens_on_its_first_event_saying_how_to_play_it() {
    let s = common::demo_session();
    let mut m = replayed(&s);
    assert_eq!(m.cursor(), 1, "opens on the first event");
    for (w, h) in SIZES {
        let t = screen(&m, w, h);
        assert!(!t.contains("waiting for hook events"), "{w}x{h}\n{t}");
        assert!(
            t.contains("Space play"),
            "{w}x{h}: says how to play it\n{t}"
        );
    }
    three_sizes("replay_opened", &m);
    // Stepped back to before the first event, the timeline still says what to do.
    press(&mut m, KeyCode::Left);
    assert_eq!(m.cursor(), 0);
    let t = screen(&m, 80, 24);
    assert!(t.contains("Space plays"), "{t}");
}

#[test]
fn t_says_which_theme_is_on() {
    let mut m = live(&common::demo_session());
    m.themes = Theme::builtin_names()
        .iter()
        .map(|n| n.to_string())
        .collect();
    typed(&mut m, "t");
    assert_eq!(m.theme, "light");
    for (w, h) in SIZES {
        let t = screen(&m, w, h);
        assert!(t.contains("theme light"), "{w}x{h}\n{t}");
    }
    three_sizes("theme_named", &m);
}

#[test]
fn denied_and_failed_calls_have_different_marks() {
    let m = live(&common::demo_session());
    let th = theme("default");
    let marks = &th.symbols.markers;
    assert_ne!(marks.failed, marks.denied);
    // The timeline's row of a call: its mark is the word after the time.
    let mark = |t: &str, call: &str| {
        t.lines()
            .find(|l| l.contains(call))
            .and_then(|l| l.trim_start_matches('│').split_whitespace().nth(1))
            .map(str::to_string)
    };
    let t = screen(&m, 120, 40);
    // The Write failed when it ran; the Edit was refused before it could.
    assert_eq!(mark(&t, "Write /repo"), Some(marks.failed.clone()), "{t}");
    assert_eq!(mark(&t, "Edit /repo"), Some(marks.denied.clone()), "{t}");
    let ascii = rows(&draw_with(&m, &theme("ascii"), 120, 40)).join("\n");
    assert_ne!(
        mark(&ascii, "Write /repo"),
        mark(&ascii, "Edit /repo"),
        "{ascii}"
    );
    three_sizes("denied_and_failed", &m);
}

#[test]
fn an_unknown_theme_does_not_read_as_a_file_that_exists() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = Theme::load("neon", Some(dir.path()))
        .expect_err("no such theme")
        .to_string();
    assert!(!err.contains("neon.toml: no theme named"), "{err}");
    assert!(err.contains("no theme named `neon`"), "{err}");
    assert!(
        err.contains("default, light, high-contrast, ascii"),
        "{err}"
    );
}
