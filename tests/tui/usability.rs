//! The dashboard as a newcomer uses it, at the three sizes it is judged at (a 40×20 side pane,
//! 80×24, 120×40): what to do next is always on screen, nothing is cut without a mark, no short
//! form needs explaining, and live and replay answer the same keys the same way. Each test
//! names the complaint it answers; each snapshot is the screen a person looked at.

use crate::support::tui as common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use common::{Script, walks};
use seed::tui::layout::Regions;
use seed::tui::{Entry, Model, Msg, Seq, SessionInfo, Theme, update};
use serde_json::json;

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

/// The text of one region of `m` drawn at `w`×`h` (empty when the layout leaves it out).
fn region(m: &Model, w: u16, h: u16, pick: fn(&Regions) -> Option<Rect>) -> String {
    let buf = draw_with(m, &theme("default"), w, h);
    let Some(r) = pick(&seed::tui::layout::compute(buf.area, m)) else {
        return String::new();
    };
    (r.y..r.bottom())
        .map(|y| {
            (r.x..r.right())
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `▴ N above` and `▾ N more` a region's frame carries.
fn marks(t: &str) -> (usize, usize) {
    let count = |word: &str| {
        t.split(word)
            .next()
            .filter(|_| t.contains(word))
            .and_then(|head| head.split_whitespace().last())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (count(" above"), count(" more"))
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
        assert_eq!(m.picked, Some(0), "Home went to the oldest row");
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

/// Rows of `t` where `full` starts but is cut: the first `min` characters of it are there, and
/// the row ends (or meets a border) before all of it is, without an ellipsis.
fn cut_unmarked(t: &str, full: &str, min: usize) -> Vec<String> {
    let full: Vec<char> = full.chars().collect();
    if full.len() <= min {
        return Vec::new();
    }
    let head: String = full[..min].iter().collect();
    let mut bad = Vec::new();
    for row in t.lines() {
        let chars: Vec<char> = row.chars().collect();
        let mut from = 0;
        while let Some(at) = row[from..].find(&head).map(|b| from + b) {
            let start = row[..at].chars().count();
            let mut n = 0;
            while n < full.len() && start + n < chars.len() && chars[start + n] == full[n] {
                n += 1;
            }
            let after = chars.get(start + n).copied();
            let ends_here = matches!(after, None | Some('│' | '|' | '╮' | '╯' | '─' | '+'));
            if n < full.len() && ends_here && !row.ends_with('…') && !row.contains("…│") {
                bad.push(row.to_string());
            }
            from = at + head.len();
        }
    }
    bad
}

/// starlog_initialization to its end: checked, oriented (registering skipped), flown.
fn starlog_finished() -> Script {
    let mut s = Script::of("starlog_initialization", "s-starlog-done");
    s.lifecycle("SessionStart")
        .call(
            "mcp__starlog__check",
            json!({"path": "/repo"}),
            300,
            Some(true),
        )
        .call("mcp__starlog__orient", json!({}), 300, Some(true))
        .call(
            "mcp__starship__fly",
            json!({"course": "x"}),
            300,
            Some(true),
        );
    s
}

/// A denial after the binding moved: recovery's until the next move.
fn anchor_with_a_refusal() -> Script {
    let mut s = walks::odyssean_anchor();
    s.call("Bash", json!({"command": "cargo build"}), 0, Some(true));
    s
}

#[test]
fn the_next_call_is_on_screen_at_every_size() {
    for s in walks::all() {
        let m = live(&s);
        let st = m.status().expect("status").clone();
        for (w, h) in SIZES {
            // In the recovery region, its first row on: not below its fold.
            let rec = region(&m, w, h, |r| r.recovery);
            let flat = squeezed(&rec);
            match &st.next {
                Some(n) => assert!(
                    flat.contains(&format!("next:call{}", squeezed(&n.tool))),
                    "{} {w}x{h}: next call {} not on screen\n{rec}",
                    s.sequence,
                    n.tool
                ),
                None => assert!(
                    ["done", "nocallleft", "waiting"]
                        .iter()
                        .any(|x| flat.contains(x)),
                    "{} {w}x{h}: neither a next call nor what it waits for\n{rec}",
                    s.sequence
                ),
            }
        }
    }
}

#[test]
fn the_last_refusal_and_its_way_forward_are_on_screen_at_every_size() {
    let m = live(&anchor_with_a_refusal());
    let st = m.status().expect("status").clone();
    assert_eq!(st.denied_call.as_deref(), Some("Bash"));
    // The engine's way forward from the refusal: its first suggestion.
    let way = squeezed(&st.recovery.suggestions[0]);
    for (w, h) in SIZES {
        let rec = region(&m, w, h, |r| r.recovery);
        let flat = squeezed(&rec);
        assert!(
            flat.contains("deniedBash") || flat.contains("Bash—by"),
            "{w}x{h}: the refused call\n{rec}"
        );
        // Its start at least, and the region says when the rest runs past it.
        assert!(
            flat.contains(&way[..way.len().min(40)]),
            "{w}x{h}: the way forward\n{rec}"
        );
        assert!(
            flat.contains(&way) || marks(&rec).1 > 0,
            "{w}x{h}: cut unmarked\n{rec}"
        );
        let next = st.next.as_ref().expect("a next call");
        assert!(
            flat.contains(&squeezed(&next.tool)),
            "{w}x{h}: the call to make\n{rec}"
        );
    }
    three_sizes("refusal_and_way_forward", &m);
}

#[test]
fn no_short_form_a_newcomer_cannot_read() {
    let mut m = live(&common::demo_session());
    for (w, h) in SIZES {
        let t = screen(&m, w, h);
        for bad in ["≥1 ↺", "ev ·", "0 lapse", " lapse ", "ev 4", "lapses"] {
            assert!(!t.contains(bad), "{w}x{h}: `{bad}` on screen\n{t}");
        }
        let compact_events = t
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|word| word.ends_with("ev") && word[..word.len() - 2].parse::<u64>().is_ok());
        assert!(!compact_events, "{w}x{h}: `NNev`\n{t}");
    }
    typed(&mut m, "/navigate");
    press(&mut m, KeyCode::Enter);
    for (w, h) in SIZES {
        let t = screen(&m, w, h);
        let bare_match =
            t.contains(" match") && !t.contains("rows match") && !t.contains("row matches");
        assert!(!bare_match, "{w}x{h}: `N match`\n{t}");
    }
    three_sizes("plain_words", &m);
}

#[test]
fn every_cut_is_marked() {
    for s in walks::all() {
        let m = live(&s);
        let st = m.status().expect("status").clone();
        let mut texts = vec![st.breadcrumb.clone()];
        if let Some(n) = &st.next {
            texts.push(format!("next: {}", n.tool));
        }
        for (w, h) in SIZES {
            let t = screen(&m, w, h);
            for full in &texts {
                let bad = cut_unmarked(&t, full, 12);
                assert!(
                    bad.is_empty(),
                    "{} {w}x{h}: `{full}` cut without a mark: {bad:?}\n{t}",
                    s.sequence
                );
            }
        }
    }
}

#[test]
fn the_ascii_theme_marks_a_cut_with_three_dots() {
    let m = live(&walks::compound_intelligence());
    let buf = draw_with(&m, &theme("ascii"), 40, 20);
    let t = rows(&buf).join("\n");
    let crumb = t
        .lines()
        .find(|l| l.starts_with("{railroad"))
        .expect("the breadcrumb row");
    assert!(crumb.ends_with("..."), "{crumb}\n{t}");
    insta::assert_snapshot!("ascii_cut_40x20", t);
}

#[test]
fn the_statechart_says_how_many_steps_lie_beyond_it() {
    let m = live(&walks::compound_intelligence());
    let states = m.seq().expect("seq").machine.chart.states.len();
    for (w, h) in SIZES {
        let chart = region(&m, w, h, |r| r.statechart);
        let rows = chart.lines().count();
        assert!(rows < states, "{w}x{h}: the chart is clipped here");
        let (above, below) = marks(&chart);
        // The rows shown (less the title, the breadcrumb and a bottom border) and the marks
        // add up to the whole outline.
        let frame = if w < 80 { 1 } else { 2 };
        assert_eq!(
            above + below + rows - frame - 1,
            states - 1,
            "{w}x{h}: the statechart says how much more\n{chart}"
        );
    }
    three_sizes("statechart_more", &m);
}

#[test]
fn after_the_end_the_tools_region_gates_nothing_as_the_hook_and_status_say() {
    let m = live(&starlog_finished());
    let st = m.status().expect("status").clone();
    assert!(st.progress.done, "the walk finishes the sequence");
    assert!(seed::report::status_text(&st).contains("it gates no call any more"));
    for (w, h) in SIZES {
        let t = screen(&m, w, h);
        for wrong in [
            "allowed with a warning",
            "denied (off-path)",
            "allowed any tool",
        ] {
            assert!(!t.contains(wrong), "{w}x{h}: `{wrong}` after the end\n{t}");
        }
        let rec = region(&m, w, h, |r| r.recovery);
        assert!(squeezed(&rec).contains("gatesnocall"), "{w}x{h}\n{rec}");
        let tools = region(&m, w, h, |r| r.tools);
        assert!(
            squeezed(&tools).contains("everycall(sequenceended)"),
            "{w}x{h}\n{tools}"
        );
    }
    three_sizes("after_the_end", &m);
}

#[test]
fn branches_not_taken_are_shown_as_such_at_the_end() {
    let m = live(&starlog_finished());
    for (w, h) in SIZES {
        let t = screen(&m, w, h);
        assert!(
            !t.contains("○"),
            "{w}x{h}: a step left unreached at the end reads as unfinished\n{t}"
        );
        assert!(t.contains("not taken"), "{w}x{h}\n{t}");
        // Grouped: the steps taken first, the untaken branch after them.
        let chart = region(&m, w, h, |r| r.statechart);
        let lines: Vec<&str> = chart.lines().collect();
        let row = |mark: &str| lines.iter().rposition(|l| l.contains(&format!("─{mark} ")));
        assert!(row("◌") > row("●"), "{w}x{h}\n{chart}");
    }
    three_sizes("branches_not_taken", &m);
}

#[test]
fn a_tool_is_spelled_as_the_agent_calls_it_everywhere() {
    let m = live(&walks::starlog_initialization());
    for (w, h) in SIZES {
        let t = screen(&m, w, h);
        for dotted in ["starlog.orient", "starlog.check", "starship.fly"] {
            assert!(!t.contains(dotted), "{w}x{h}: `{dotted}`\n{t}");
        }
    }
    assert!(screen(&m, 120, 40).contains("mcp__starlog__orient"));
    three_sizes("spelled_as_called", &m);
}

/// Whitespace dropped, so a call wrapped over two rows of a full-width region still reads.
fn squeezed(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '│' | '|'))
        .collect()
}
