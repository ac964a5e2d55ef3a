//! What a user of lazygit, k9s or btop reaches for: zoom one region, open a call whole, the
//! mouse, copy, a filter by outcome, and settings that outlast the run. Each at the three sizes
//! the dashboard is judged at, from a 40×20 side pane up.

use crate::support::tui as common;
use crate::usability::{
    SIZES, draw_with, live, press, replayed, screen, theme, three_sizes, typed,
};

use base64::Engine;
use crossterm::event::{KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use seed::tui::layout;
use seed::tui::model::Overlay;
use seed::tui::rows::Outcome;
use seed::tui::{Effect, Focus, Model, Msg, update};
use serde_json::json;

fn sized(mut m: Model, w: u16, h: u16) -> Model {
    update(&mut m, Msg::Resize(w, h));
    m
}

fn body(w: u16, h: u16, m: &Model) -> ratatui::layout::Rect {
    let r = layout::compute(ratatui::layout::Rect::new(0, 0, w, h), m);
    let top = r.header.bottom();
    let bottom = r.footer.map_or(h, |f| f.y);
    ratatui::layout::Rect::new(0, top, w, bottom - top)
}

#[test]
fn z_zooms_the_focused_region_to_the_whole_screen_and_back() {
    for (w, h) in SIZES {
        let mut m = sized(live(&common::demo_session()), w, h);
        m.focus = Focus::Timeline;
        let before = layout::compute(ratatui::layout::Rect::new(0, 0, w, h), &m);
        typed(&mut m, "z");
        let r = layout::compute(ratatui::layout::Rect::new(0, 0, w, h), &m);
        assert_eq!(
            r.timeline,
            Some(body(w, h, &m)),
            "{w}x{h}: the timeline fills the body"
        );
        assert_eq!(
            (r.statechart, r.tools, r.recovery, r.deep, r.progress),
            (None, None, None, None, None),
            "{w}x{h}: nothing else is drawn"
        );
        let t = screen(&m, w, h);
        assert!(
            t.contains("zoomed"),
            "{w}x{h}: the footer says how back\n{t}"
        );
        typed(&mut m, "z");
        assert_eq!(
            layout::compute(ratatui::layout::Rect::new(0, 0, w, h), &m),
            before,
            "{w}x{h}: z again restores the layout"
        );
    }
    let mut m = live(&common::demo_session());
    m.focus = Focus::Recovery;
    typed(&mut m, "z");
    m.flash = None;
    three_sizes("zoomed_recovery", &m);
    press(&mut m, KeyCode::Esc);
    assert!(!m.zoom, "Esc goes back too");
}

/// The demo replayed to its end, with the failed Write picked.
fn failed_write_picked(w: u16, h: u16) -> Model {
    let mut m = sized(replayed(&common::demo_session()), w, h);
    typed(&mut m, ">");
    m.focus = Focus::Timeline;
    let row = (0..m.rows.len())
        .find(|&i| {
            m.rows.get(i).is_some_and(|r| {
                m.rows.name(r) == "Write" && r.outcome(usize::MAX) == Outcome::Failed
            })
        })
        .expect("the demo's failed Write");
    let p = seed::tui::select::position(&m, row).expect("listed");
    seed::tui::select::pick_at(&mut m, p);
    m
}

#[test]
fn enter_on_a_timeline_row_shows_the_call_whole() {
    for (w, h) in SIZES {
        let mut m = failed_write_picked(w, h);
        let t = screen(&m, w, h);
        assert!(
            t.contains("▸✗ Write"),
            "{w}x{h}: the pick is marked in text\n{t}"
        );
        press(&mut m, KeyCode::Enter);
        assert_eq!(m.overlay, Overlay::Detail);
        let d = m.detail.clone().expect("detail");
        let heads: Vec<&str> = d.sections.iter().map(|(h, _)| h.as_str()).collect();
        assert_eq!(heads, ["input", "verdict", "error"], "{d:?}");
        let t = screen(&m, w, h);
        assert!(t.contains("call Write"), "{w}x{h}\n{t}");
        assert!(t.contains("file_path"), "{w}x{h}: the input\n{t}");
    }
    let mut m = failed_write_picked(80, 24);
    press(&mut m, KeyCode::Enter);
    three_sizes("call_detail", &m);
    press(&mut m, KeyCode::Char('x'));
    assert_eq!(m.overlay, Overlay::None, "another key closes it");
}

#[test]
fn a_denied_calls_detail_gives_its_verdict_and_reason_and_scrolls_with_a_mark() {
    let mut m = sized(replayed(&common::demo_session()), 40, 20);
    typed(&mut m, ">");
    m.focus = Focus::Timeline;
    let row = (0..m.rows.len())
        .rev()
        .find(|&i| {
            m.rows
                .get(i)
                .is_some_and(|r| r.outcome(usize::MAX) == Outcome::Denied)
        })
        .expect("a denied call");
    let p = seed::tui::select::position(&m, row).expect("listed");
    seed::tui::select::pick_at(&mut m, p);
    press(&mut m, KeyCode::Enter);
    let d = m.detail.clone().expect("detail");
    let verdict = &d
        .sections
        .iter()
        .find(|(h, _)| h == "verdict")
        .expect("verdict")
        .1;
    assert!(verdict.starts_with("deny"), "{verdict}");
    assert!(d.reason.as_deref().is_some_and(|r| !r.is_empty()), "{d:?}");
    let t = screen(&m, 40, 20);
    assert!(t.contains("more"), "a long reason says how much more\n{t}");
    press(&mut m, KeyCode::End);
    let t = screen(&m, 40, 20);
    assert!(t.contains("above"), "scrolled to its end\n{t}");
    // `y` in a call's detail copies its reason.
    let fx = press(&mut m, KeyCode::Char('y'));
    assert_eq!(fx, vec![Effect::Copy(d.reason.clone().expect("reason"))]);
}

#[test]
fn a_calls_detail_writes_control_characters_out_and_runs_none() {
    let mut s = common::Script::new("s-hostile");
    s.call(
        "Bash",
        json!({"command": "echo \u{1b}]0;owned\u{7} \u{1b}[31mred\u{202e}"}),
        10,
        Some(true),
    );
    let mut m = replayed(&s);
    typed(&mut m, ">");
    m.focus = Focus::Timeline;
    press(&mut m, KeyCode::Enter);
    let t = screen(&m, 80, 24);
    assert!(!t.contains('\u{1b}') && !t.contains('\u{202e}'), "{t}");
    assert!(t.contains("\\u001b"), "the escape is shown, not run\n{t}");
}

#[test]
fn live_enter_asks_the_shell_for_the_calls_records_and_they_are_read_from_the_log() {
    let s = common::demo_session();
    let mut m = live(&s);
    m.focus = Focus::Timeline;
    typed(&mut m, "k");
    let picked = m.rows.get(m.picked.expect("picked")).copied().expect("row");
    let fx = press(&mut m, KeyCode::Enter);
    let [
        Effect::ReadCall {
            from, pre, post, ..
        },
    ] = fx.as_slice()
    else {
        panic!("{fx:?}")
    };
    assert_eq!(*pre, Some(picked.index as usize));
    // The log as the hook writes it, with lines that are no records in between.
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log.jsonl");
    let mut text = String::from("not json\n\n");
    text.push_str(&s.jsonl());
    std::fs::write(&log, text).expect("write");
    let wanted: Vec<usize> = pre.iter().chain(post.iter()).copied().collect();
    let found = seed::tui::feed::read_records(&log, *from, &wanted);
    assert_eq!(found.len(), wanted.len());
    for (i, r) in found {
        assert_eq!(r, s.records[i], "record {i}");
    }
}

fn click(m: &mut Model, x: u16, y: u16, kind: MouseEventKind) -> Vec<Effect> {
    update(
        m,
        Msg::Mouse(MouseEvent {
            kind,
            column: x,
            row: y,
            modifiers: KeyModifiers::NONE,
        }),
    )
}

#[test]
fn a_click_focuses_a_region_and_picks_a_timeline_row_and_the_wheel_scrolls() {
    for (w, h) in SIZES {
        let mut m = sized(live(&common::demo_session()), w, h);
        let r = layout::compute(ratatui::layout::Rect::new(0, 0, w, h), &m);
        let rec = r.recovery.expect("recovery");
        click(
            &mut m,
            rec.x + 2,
            rec.y + 1,
            MouseEventKind::Down(MouseButton::Left),
        );
        assert_eq!(m.focus, Focus::Recovery, "{w}x{h}");
        let tl = r.timeline.expect("timeline");
        let inner =
            seed::tui::pane::inner(tl, layout::chrome(ratatui::layout::Rect::new(0, 0, w, h)));
        let shown = seed::tui::timeline::window(&m, inner.height as usize);
        click(
            &mut m,
            inner.x + 3,
            inner.y,
            MouseEventKind::Down(MouseButton::Left),
        );
        assert_eq!(m.focus, Focus::Timeline, "{w}x{h}");
        assert_eq!(m.picked, shown.first().copied(), "{w}x{h}: the row clicked");
        click(&mut m, inner.x + 3, inner.y, MouseEventKind::ScrollUp);
        assert!(
            m.picked < shown.first().copied(),
            "{w}x{h}: the wheel moves up"
        );
    }
    let mut m = sized(live(&common::demo_session()), 80, 24);
    let fx = press(&mut m, KeyCode::Char('m'));
    assert_eq!(fx, vec![Effect::SetMouse(false), Effect::SaveSettings]);
    let before = m.focus;
    click(&mut m, 1, 12, MouseEventKind::Down(MouseButton::Left));
    assert_eq!(
        m.focus, before,
        "with the mouse off a click is the terminal's"
    );
    assert!(screen(&m, 80, 24).contains("the terminal selects text"));
}

#[test]
fn y_copies_the_next_call_with_osc_52_and_says_so() {
    for (w, h) in SIZES {
        let mut m = sized(live(&common::walks::odyssean_anchor()), w, h);
        let fx = press(&mut m, KeyCode::Char('y'));
        let [Effect::Copy(text)] = fx.as_slice() else {
            panic!("{fx:?}")
        };
        let next = m
            .status()
            .and_then(|s| s.next.clone())
            .expect("a next call");
        assert!(text.starts_with(&next.tool), "{text}");
        let t = screen(&m, w, h);
        assert!(t.contains("copied"), "{w}x{h}: the footer says copied\n{t}");
    }
    let seq = seed::tui::copy::osc52("mcp__x__y(stage=\"bind\")");
    let b64 = seq
        .strip_prefix("\u{1b}]52;c;")
        .and_then(|s| s.strip_suffix('\u{7}'))
        .expect("OSC 52 framing");
    let back = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("base64");
    assert_eq!(back, b"mcp__x__y(stage=\"bind\")");
    let huge = "é".repeat(seed::tui::copy::MAX_BYTES);
    assert!(seed::tui::copy::osc52(&huge).len() < seed::tui::copy::MAX_BYTES * 2);
}

#[test]
fn the_filter_matches_outcomes_not_only_names() {
    let s = common::demo_session();
    for (word, outcome) in [("deny", Outcome::Denied), ("fail", Outcome::Failed)] {
        let mut m = live(&s);
        typed(&mut m, &format!("/{word}"));
        press(&mut m, KeyCode::Enter);
        let want: Vec<u32> = (0..m.rows.len())
            .filter(|&i| {
                m.rows
                    .get(i)
                    .is_some_and(|r| r.outcome(usize::MAX) == outcome)
            })
            .map(|i| i as u32)
            .collect();
        assert!(!want.is_empty(), "the demo has a {word}");
        assert_eq!(m.filter.matches, want, "/{word}");
        for (w, h) in SIZES {
            let t = screen(&m, w, h);
            assert!(!t.contains("no row matches"), "{w}x{h}\n{t}");
        }
        if word == "deny" {
            three_sizes("filter_deny", &m);
        }
    }
    assert_eq!(seed::tui::filter::outcome_of("Ask"), Some(Outcome::Advised));
    assert_eq!(seed::tui::filter::outcome_of("parser"), None);
}

#[test]
fn an_outcome_filter_catches_a_call_that_fails_after_it_was_listed() {
    // Records one by one: a call is listed (pending) before its failure arrives.
    let s = common::demo_session();
    let mut m = live(&common::Script::new("s-7f3a"));
    typed(&mut m, "/fail");
    press(&mut m, KeyCode::Enter);
    for (i, r) in s.records.iter().enumerate() {
        let e = seed::tui::Entry {
            offset: i as u64,
            record: r.clone(),
        };
        m.apply_records(vec![e]);
    }
    let seen = m.filter.matches.clone();
    m.filter.reset(&m.rows);
    assert!(!seen.is_empty());
    assert_eq!(
        seen, m.filter.matches,
        "as a fresh scan of the whole log finds"
    );
}

#[test]
fn settings_outlast_the_run_and_a_bad_file_costs_one_line() {
    use seed::tui::settings::{self, Settings};
    let dir = tempfile::tempdir().expect("tempdir");
    let file = settings::path(dir.path());
    assert_eq!(
        settings::load(&file),
        (Settings::default(), None),
        "no file: defaults, silent"
    );
    let mut m = live(&common::demo_session());
    typed(&mut m, "g");
    m.focus = Focus::Recovery;
    typed(&mut m, "z");
    settings::save(&file, &settings::of(&m)).expect("save");
    let (s, warning) = settings::load(&file);
    assert_eq!(warning, None);
    assert!(file.is_file(), "saved where there was no directory yet");
    let mut fresh = live(&common::demo_session());
    settings::apply(&s, &mut fresh);
    assert_eq!(
        (fresh.chart_view, fresh.zoom, fresh.focus),
        (m.chart_view, true, Focus::Recovery)
    );
    for (what, bytes) in [
        ("not toml", b"theme = = \"x\"".to_vec()),
        ("empty theme", b"theme = \"\"".to_vec()),
        ("a path as theme", b"theme = \"../../etc/passwd\"".to_vec()),
        ("unknown key", b"colour = \"red\"".to_vec()),
        ("not utf-8", vec![0xff, 0xfe, 0x00]),
        ("huge", vec![b'#'; 1 << 20]),
        ("escape in a value", b"focus = \"\\u001b[31m\"".to_vec()),
    ] {
        std::fs::write(&file, &bytes).expect("write");
        let (s, warning) = settings::load(&file);
        assert_eq!(s, Settings::default(), "{what}: the defaults");
        let w = warning.unwrap_or_else(|| panic!("{what}: a warning"));
        assert_eq!(w.lines().count(), 1, "{what}: one line: {w}");
        assert!(!w.contains('\u{1b}'), "{what}: {w}");
    }
    std::fs::write(&file, b"").expect("write");
    assert_eq!(
        settings::load(&file),
        (Settings::default(), None),
        "empty: defaults"
    );
}

#[test]
fn the_new_keys_are_in_help_and_work_in_live_and_replay_alike() {
    for key in ['z', 'y', 'Y', 'm'] {
        let code = KeyCode::Char(key);
        assert!(
            seed::tui::keys::lookup(code, KeyModifiers::NONE).is_some(),
            "{key}"
        );
        assert_eq!(
            seed::tui::keys::lookup_in(true, code, KeyModifiers::NONE),
            seed::tui::keys::lookup_in(false, code, KeyModifiers::NONE),
        );
    }
    let mut m = live(&common::demo_session());
    typed(&mut m, "?");
    let help: String = (0..6)
        .map(|_| {
            let t = screen(&m, 120, 40);
            press(&mut m, KeyCode::PageDown);
            t
        })
        .collect();
    for word in ["zoom", "OSC 52", "mouse", "deny, fail, ask", "Enter"] {
        assert!(help.contains(word), "{word}");
    }
    let _ = draw_with(&m, &theme("ascii"), 40, 20);
}

#[test]
fn the_graph_centres_on_the_current_node_marks_it_in_text_and_marks_its_cuts() {
    let mut m = live(&common::walks::compound_intelligence());
    typed(&mut m, "g");
    let active = theme("default").symbols.markers.active.clone();
    for (w, h) in SIZES {
        let buf = draw_with(&m, &theme("default"), w, h);
        let r = layout::compute(buf.area, &m).graph.expect("the graph");
        let region: Vec<String> = (r.y..r.bottom())
            .map(|y| (r.x..r.right()).map(|x| buf[(x, y)].symbol()).collect())
            .collect();
        let t = region.join("\n");
        assert!(
            t.contains(&format!("{active}mcp__")),
            "{w}x{h}: the current node opens with {active}\n{t}"
        );
        let d = &m.derived.graph.as_ref().expect("graph").unicode;
        let widest = d.lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        if widest > r.width as usize - 2 {
            assert!(t.contains('…'), "{w}x{h}: a cut row says so\n{t}");
        }
    }
    three_sizes("graph_current", &m);
    let ascii = crate::usability::rows(&draw_with(&m, &theme("ascii"), 80, 24)).join("\n");
    assert!(ascii.contains("*mcp__"), "{ascii}");
    assert!(
        ascii.contains("..."),
        "the ASCII theme cuts with ...\n{ascii}"
    );
}
