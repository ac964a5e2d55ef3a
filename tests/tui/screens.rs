//! Whole-screen snapshots of the dashboard at side-pane, standard and wide sizes, fed by a
//! fixture log through the real engine and a real built-in sequence, plus style checks that the
//! current node and the denials are highlighted, and every built-in theme rendering.

use crate::support::tui as common;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Style;

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
    let machine = common::machine(common::SEQUENCE);
    let records = entries(&bytes);
    let session = SessionInfo {
        id: "s-7f3a".into(),
        source: FIXTURE.into(),
        project: Some("/home/dev/work/app".into()),
        started: records
            .first()
            .and_then(|e| seed::tui::model::parse_ts(&e.record.ts)),
    };
    let mut m = Model::new(session, vec![Seq::new(machine, true)], "default");
    m.apply_records(records);
    m
}

fn theme(name: &str) -> Theme {
    Theme::load(name, None).expect("built-in theme")
}

fn draw(m: &Model, theme: &Theme, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| seed::tui::render(f, m, theme)).expect("draw");
    t.backend().buffer().clone()
}

fn text(buf: &Buffer) -> String {
    let mut s = String::new();
    for y in 0..buf.area.height {
        let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        s.push_str(row.trim_end());
        s.push('\n');
    }
    s
}

/// The first cell (x, y) where `needle` starts on screen.
fn find(buf: &Buffer, needle: &str) -> Option<(u16, u16)> {
    for y in 0..buf.area.height {
        let cells: Vec<&str> = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        let row: String = cells.concat();
        if let Some(byte) = row.find(needle) {
            // Cells may hold multi-byte symbols: count cells up to the byte offset.
            let mut acc = 0;
            for (x, c) in cells.iter().enumerate() {
                if acc == byte {
                    return Some((x as u16, y));
                }
                acc += c.len();
            }
        }
    }
    None
}

fn style_at(buf: &Buffer, (x, y): (u16, u16)) -> Style {
    buf[(x, y)].style()
}

#[test]
fn fixture_is_current() {
    let want = common::demo_session().jsonl();
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(FIXTURE, &want).expect("write fixture");
    }
    let have = std::fs::read_to_string(FIXTURE).unwrap_or_default();
    assert!(
        have == want,
        "{FIXTURE} is stale: rerun with UPDATE_FIXTURES=1"
    );
}

#[test]
fn side_pane_40x20() {
    insta::assert_snapshot!(text(&draw(&model(), &theme("default"), 40, 20)));
}

#[test]
fn standard_80x24() {
    insta::assert_snapshot!(text(&draw(&model(), &theme("default"), 80, 24)));
}

#[test]
fn wide_160x48() {
    insta::assert_snapshot!(text(&draw(&model(), &theme("default"), 160, 48)));
}

#[test]
fn ascii_theme_80x24_is_plain_ascii() {
    let buf = draw(&model(), &theme("ascii"), 80, 24);
    let t = text(&buf);
    insta::assert_snapshot!(t);
    let odd: Vec<char> = t.chars().filter(|c| !c.is_ascii()).collect();
    assert!(
        odd.is_empty(),
        "non-ASCII on an ascii-theme screen: {odd:?}"
    );
}

#[test]
fn ascii_theme_stays_ascii_whatever_the_log_holds() {
    // The demo with a long session id, prompts in other scripts and no hook latency, replayed.
    let mut rs = seed::demo::bundled();
    for r in &mut rs {
        r.ms = None;
        if let Some(e) = r.event.as_mut().filter(|e| e.kind.as_str() == "prompt") {
            e.name = "修正して 🚀 — ünïcödé… ‖ ✓".into();
        }
    }
    let n = rs.len();
    let info = SessionInfo {
        id: seed::demo::SESSION_ID.into(),
        source: String::new(),
        ..Default::default()
    };
    let seq = Seq::new(common::machine(common::SEQUENCE), true);
    let m = seed::replay::frame::replay_at(info, vec![seq], rs, "ascii", n);
    for (w, h) in [(40, 20), (80, 24), (160, 48)] {
        let t = text(&draw(&m, &theme("ascii"), w, h));
        let odd: Vec<char> = t.chars().filter(|c| !c.is_ascii()).collect();
        assert!(odd.is_empty(), "{w}x{h}: non-ASCII {odd:?}\n{t}");
        assert!(
            t.contains("denied"),
            "{w}x{h}: the denial count is on screen\n{t}"
        );
    }
}

#[test]
fn current_node_is_highlighted() {
    let m = model();
    for name in Theme::builtin_names() {
        let th = theme(name);
        for (w, h) in [(40, 20), (80, 24), (160, 48)] {
            let buf = draw(&m, &th, w, h);
            // The outline's line (marker, then label), not the same name in tools or the timeline.
            let needle = format!("{} mcp__waypoint__navigate_to", th.symbols.markers.active);
            let (x, y) = find(&buf, &needle)
                .unwrap_or_else(|| panic!("{name}: current node not on the {w}x{h} screen"));
            let at = (x + 2, y);
            let want = th.style(Role::StatechartCurrent);
            let got = style_at(&buf, at);
            assert_eq!(
                (got.fg, got.bg),
                (want.fg.or(got.fg), want.bg.or(got.bg)),
                "{name} {w}x{h}: current node style"
            );
            if name != "ascii" {
                assert!(
                    want.bg.is_some() && got.bg == want.bg,
                    "{name} {w}x{h}: highlighted"
                );
            }
        }
    }
}

#[test]
fn denials_are_highlighted() {
    let m = model();
    let th = theme("default");
    let buf = draw(&m, &th, 160, 48);
    let denied = th.style(Role::TimelineDenied);
    let allowed = th.style(Role::TimelineAllowed);
    // In the timeline: the denied spawn and the denied Edit in the denial colour, an allowed
    // call in the allowed colour.
    for needle in ["mcp__heaven-subagent__spawn {", "Edit /repo"] {
        let at = find(&buf, needle).unwrap_or_else(|| panic!("{needle} not on screen"));
        assert_eq!(style_at(&buf, at).fg, denied.fg, "{needle}");
        assert_eq!(
            style_at(&buf, (at.0 - 2, at.1)).fg,
            denied.fg,
            "{needle} marker"
        );
    }
    let at = find(&buf, "mcp__starlog__orient {}").expect("allowed call");
    assert_eq!(style_at(&buf, at).fg, allowed.fg);
    // In recovery: the denial since the sequence last moved, in the tools.denied colour; the
    // spawn denied before the last navigate is history (the timeline keeps it).
    let at = find(&buf, "Edit — by").expect("recovery denial");
    assert_eq!(style_at(&buf, at).fg, th.style(Role::ToolsDenied).fg);
    assert!(
        find(&buf, "⊘ denied 14:02:23 Edit").is_some(),
        "the denial's time"
    );
    assert!(
        find(&buf, "denied 14:02:18").is_none(),
        "a denial from before the last move is not recovery's"
    );
    // In tools: what is denied now, by which state and tier, as calls the agent makes.
    let (x, y) = find(&buf, "denied  mcp__heaven-subagent__* —").expect("tools: denied now");
    assert_eq!(
        style_at(&buf, (x + 8, y)).fg,
        th.style(Role::ToolsDenied).fg
    );
    assert!(
        find(&buf, "waypoint_active_learning (context)").is_some(),
        "tools: by which tier"
    );
}

#[test]
fn every_builtin_theme_renders_every_size() {
    let m = model();
    for name in Theme::builtin_names() {
        let th = theme(name);
        for (w, h) in [
            (40, 12),
            (40, 20),
            (60, 30),
            (80, 24),
            (120, 40),
            (160, 48),
            (10, 3),
            (1, 1),
        ] {
            let buf = draw(&m, &th, w, h);
            if w >= 40 {
                assert!(
                    text(&buf).contains("compound_intelligence"),
                    "{name} {w}x{h}"
                );
            }
        }
    }
}

#[test]
fn tool_input_escapes_never_reach_the_screen() {
    let buf = draw(&model(), &theme("default"), 160, 48);
    let t = text(&buf);
    assert!(
        t.contains("cargo test --all && echo done"),
        "sanitized input shown"
    );
    assert!(!t.contains("[31m") && !t.contains("pwned") && !t.contains('\u{1b}'));
}

#[test]
fn empty_session_renders() {
    let machine = common::machine(common::SEQUENCE);
    let m = Model::new(
        SessionInfo::default(),
        vec![Seq::new(machine, true)],
        "default",
    );
    let t = text(&draw(&m, &theme("default"), 80, 24));
    assert!(t.contains("waiting for hook events"));
    let m = Model::new(SessionInfo::default(), Vec::new(), "default");
    let t = text(&draw(&m, &theme("default"), 40, 20));
    assert!(t.contains("no sequence"));
}

fn with_keys(keys: &str) -> Model {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let mut m = model();
    for c in keys.chars() {
        let k = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        seed::tui::update(&mut m, seed::tui::Msg::Key(k));
    }
    m
}

#[test]
fn focused_graph_40x20_and_80x24() {
    let m = with_keys("g");
    let th = theme("default");
    let narrow = draw(&m, &th, 40, 20);
    let standard = draw(&m, &th, 80, 24);
    insta::assert_snapshot!("graph_40x20", text(&narrow));
    insta::assert_snapshot!("graph_80x24", text(&standard));
    // The current node is restyled in place in the graph too.
    let want = th.style(Role::StatechartCurrent);
    for buf in [&narrow, &standard] {
        let at = find(buf, "●mcp__waypoint__navigate").expect("current node in the graph, marked");
        assert_eq!(style_at(buf, (at.0 + 1, at.1)).bg, want.bg);
    }
}

#[test]
fn help_lists_every_key_and_scrolls_to_the_last() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let mut m = with_keys("?");
    let first = text(&draw(&m, &theme("default"), 80, 24));
    insta::assert_snapshot!(first);
    let mut seen = first;
    for _ in 0..4 {
        let k = KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE);
        seed::tui::update(&mut m, seed::tui::Msg::Key(k));
        seen.push_str(&text(&draw(&m, &theme("default"), 80, 24)));
    }
    for b in seed::tui::keys::labelled() {
        assert!(seen.contains(b.label), "help shows {}", b.label);
    }
    assert!(seen.contains("other keys close"), "scrolled to its end");
}

#[test]
fn session_picker_nests_subagents() {
    let mut m = with_keys("s");
    let e = |id: &str, parent: Option<&str>, agent: bool, label: &str| seed::tui::SessionEntry {
        id: id.into(),
        parent: parent.map(String::from),
        label: label.into(),
        modified: Some(1_768_485_720_000),
        agent,
    };
    seed::tui::update(
        &mut m,
        seed::tui::Msg::Sessions(vec![
            e("s-7f3a", None, false, "/repo · 33 records"),
            e("agent-a1b2", Some("s-7f3a"), true, "subagent"),
            e("s-0001", None, false, "/other · 5 records"),
        ]),
    );
    insta::assert_snapshot!(text(&draw(&m, &theme("default"), 80, 24)));
}

#[test]
fn filtered_timeline_100x30() {
    let m = with_keys("/waypoint");
    insta::assert_snapshot!(text(&draw(&m, &theme("default"), 100, 30)));
}

/// The `▾ N more` a region's frame carries when its text runs past what it shows.
fn hidden_rows(line: &str) -> Option<usize> {
    let (_, rest) = line.split_once("▾ ")?;
    rest.split_once(" more")?.0.parse().ok()
}

#[test]
fn a_region_cut_short_says_how_much_more_there_is() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let th = theme("default");
    let rule = |m: &Model, title: &str| {
        text(&draw(m, &th, 40, 20))
            .lines()
            .find(|l| l.starts_with(title))
            .unwrap_or_default()
            .to_string()
    };
    let mut m = model();
    let before = hidden_rows(&rule(&m, "tools")).expect("the side pane cuts the tools list");
    assert!(before > 3, "{before}");
    // Focus the tools region and scroll it three rows: three fewer below.
    let press = |m: &mut Model, code: KeyCode| {
        seed::tui::update(
            m,
            seed::tui::Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)),
        );
    };
    press(&mut m, KeyCode::BackTab);
    for _ in 0..3 {
        press(&mut m, KeyCode::Char('j'));
    }
    assert_eq!(hidden_rows(&rule(&m, "tools")), Some(before - 3));
    // Where the list fits, no mark.
    let wide = text(&draw(&model(), &th, 160, 48));
    assert!(!wide.contains(" more ─"), "{wide}");
}

/// A failure record as the hook writes it: `fail` and, for a lapse of the budget, `budget_ms`.
fn failure(hook: &str, extra: serde_json::Value) -> Entry {
    let mut record = seed::store::record::Record::new("2026-11-22T10:00:00.000Z", "s-7f3a", hook);
    record.error = Some("seed: ran out of time".into());
    record.extra = extra;
    Entry {
        offset: u64::MAX / 2,
        record,
    }
}

/// A fail-closed refusal did its job: the header counts it apart from lapses (a call let
/// through unjudged, a hook over its budget), with the failures only `errors.jsonl` holds.
#[test]
fn header_counts_lapses_apart_from_fail_closed_refusals() {
    use seed::store::failures::Tally;
    let mut m = model();
    m.apply_records(vec![
        failure("PreToolUse", serde_json::json!({"fail": "closed"})),
        failure(
            "PreToolUse",
            serde_json::json!({"fail": "closed", "budget_ms": 500}),
        ),
    ]);
    m.outside.session = Tally {
        lapses: 1,
        failed_closed: 1,
    };
    m.outside.unattributed = Tally {
        lapses: 2,
        failed_closed: 0,
    };
    for (w, h) in [(40, 20), (80, 24), (120, 40)] {
        let t = text(&draw(&m, &theme("default"), w, h));
        let header: String = t.lines().take(4).collect::<Vec<_>>().join("\n");
        insta::assert_snapshot!(format!("header_counts_failures_{w}x{h}"), header);
        // The demo's own failure (no fail mode: an older record, fail-open) and the lapse of
        // the budget are lapses; one refusal in the log and one in errors.jsonl failed closed.
        assert!(header.contains("3 hook failures"), "{header}");
        if w >= 80 {
            assert!(header.contains("2 fail-closed"), "{header}");
        }
        if w >= 120 {
            assert!(header.contains("2 unattributed · 4 denied"), "{header}");
        }
    }
}
