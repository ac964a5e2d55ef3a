//! Every shipped sequence on the dashboard: a scripted session for each (built in
//! `tui_common::walks`, stepped through the real engine as the hook does), and the screen at its
//! end in a 40-column side pane and at 120×40. Beside each snapshot, what the screen must get
//! right: the current step, what is allowed and next, the recovery and the progress.

use crate::support::tui as tui_common;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use serde_json::json;

use seed::tui::layout::{self, Regions};
use seed::tui::{Entry, Model, Seq, SessionInfo, Theme};
use tui_common::{Script, walks};

/// The dashboard after every record of `s`, following the log as `seed tui` does.
fn model(s: &Script) -> Model {
    let machine = tui_common::machine(&s.sequence);
    let info = SessionInfo {
        id: s.session.clone(),
        source: String::new(),
        ..Default::default()
    };
    let mut m = Model::new(info, vec![Seq::new(machine, true)], "default");
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

fn draw(m: &Model, w: u16, h: u16) -> Buffer {
    let theme = Theme::load("default", None).expect("built-in theme");
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| seed::tui::render(f, m, &theme)).expect("draw");
    t.backend().buffer().clone()
}

/// The text of `area` of the screen, one line per row, trailing blanks dropped.
fn text_in(buf: &Buffer, area: Rect) -> String {
    let mut s = String::new();
    for y in area.y..area.y + area.height {
        let row: String = (area.x..area.x + area.width)
            .map(|x| buf[(x, y)].symbol())
            .collect();
        s.push_str(row.trim_end());
        s.push('\n');
    }
    s
}

fn screen(m: &Model, w: u16, h: u16) -> String {
    let buf = draw(m, w, h);
    text_in(&buf, buf.area)
}

/// The text of one region (empty when the layout left it out).
fn region(m: &Model, w: u16, h: u16, pick: fn(&Regions) -> Option<Rect>) -> String {
    let buf = draw(m, w, h);
    pick(&layout::compute(buf.area, m)).map_or_else(String::new, |r| text_in(&buf, r))
}

const SIZES: [(u16, u16); 4] = [(40, 20), (80, 24), (120, 40), (160, 48)];

/// The snapshots of a walk's end: the side pane, 80×24 and 120×40.
fn snapshots(s: &Script) -> Model {
    let m = model(s);
    for (w, h) in [(40, 20), (80, 24), (120, 40)] {
        let name = format!("{}_{w}x{h}", s.sequence);
        insta::assert_snapshot!(name, screen(&m, w, h));
    }
    m
}

/// A call the sequence waits for that failed is the recovery region's first line, with its
/// error, as `seed recovery` says it.
#[test]
fn a_failed_required_call_shows_its_error_in_the_recovery_region() {
    let mut s = Script::of(tui_common::SEQUENCE, "s-fail");
    s.call("mcp__seed__who_am_i", json!({}), 200, Some(true))
        .call("mcp__seed__what_do_i_do", json!({}), 200, Some(true))
        .fail(
            "mcp__starlog__check",
            json!({"path": "/p"}),
            "MCP server \"starlog\" is not connected",
        );
    let m = model(&s);
    let rec = region(&m, 120, 40, |r| r.recovery);
    // After the call to make: the failed one, with its error and how to make it work.
    assert!(
        rec.lines()
            .nth(1)
            .is_some_and(|l| l.contains("next: call mcp__starlog__check")),
        "{rec}"
    );
    let first = rec.lines().nth(2).unwrap_or_default();
    assert!(
        first.contains("▸ mcp__starlog__check failed: MCP server \"starlog\" is not"),
        "{rec}"
    );
    let st = m.status().expect("status");
    assert!(st.recovery.suggestions[0].starts_with("mcp__starlog__check failed: "));
}

#[test]
fn odyssean_anchor_at_identifying() {
    let m = snapshots(&walks::odyssean_anchor());
    let t = screen(&m, 120, 40);
    // Calls are spelled through the server the session called the anchor on.
    assert!(t.contains("├─● IDENTIFYING  next: mcp__hestai__odyssean_anchor(stage"));
    assert!(t.contains("allowed mcp__hestai__odyssean_anchor(stage=\"commit_ident…,"));
    assert!(t.contains("▲ highest 33% · ≥ 3 steps to go"));
    // The lobby's Write denials came before the sequence moved: the CLI drops them, so does
    // the panel; the way on is IDENTIFYING's.
    let rec = region(&m, 120, 40, |r| r.recovery);
    assert!(!rec.contains("Write") && !rec.contains('✗'), "{rec}");
    assert!(
        rec.contains("▸ No work permit yet: extract the identity"),
        "{rec}"
    );
    // The tier the init call chose is on screen.
    assert!(region(&m, 120, 40, |r| r.deep).contains("tier  \"LITE\""));
}

#[test]
fn a_denial_after_the_move_is_recovery_s_until_the_next_move() {
    let mut s = walks::odyssean_anchor();
    s.call("Bash", json!({"command": "cargo build"}), 0, Some(true));
    let m = model(&s);
    let rec = region(&m, 120, 40, |r| r.recovery);
    assert!(
        rec.contains("⊘ denied 14:02:06 Bash — by IDENTIFYING"),
        "{rec}"
    );
    assert!(!rec.contains("Write"), "{rec}");
    // The same denial `seed recovery` names, and its suggestions in the same order.
    let st = m.status().expect("status");
    assert_eq!(st.denied_call.as_deref(), Some("Bash"));
    let first = &st.recovery.suggestions[0];
    assert!(rec.contains(&first[..40]), "{first}\n{rec}");
    // The binding goes on: the denial is history.
    s.call(
        "mcp__hestai__odyssean_anchor",
        walks::anchor("commit_identity"),
        300,
        Some(true),
    );
    let m = model(&s);
    let rec = region(&m, 120, 40, |r| r.recovery);
    assert!(!rec.contains("Bash") && !rec.contains('✗'), "{rec}");
    assert!(rec.contains("bind the identity"), "{rec}");
}

#[test]
fn hope_shows_the_flags_its_gate_checks() {
    let m = snapshots(&walks::hope());
    let t = screen(&m, 120, 40);
    assert!(t.contains("└─● shape done  next: Skill(skill=\"hope:consult\")"));
    assert!(
        t.contains("Skill hope:consult"),
        "the timeline names the Skill call"
    );
    assert!(!t.contains("skill:"), "no pattern form on screen\n{t}");
    let deep = region(&m, 120, 40, |r| r.deep);
    assert!(
        deep.contains("flags          intent_brief, shape_done"),
        "{deep}"
    );
    assert!(!deep.contains("coverage_done"), "only set flags\n{deep}");
    // ExitPlanMode was refused at intent; hope has moved since.
    let rec = region(&m, 120, 40, |r| r.recovery);
    assert!(!rec.contains("ExitPlanMode") && !rec.contains('✗'), "{rec}");
    assert!(
        rec.contains("Next: call Skill(skill=\"hope:consult\")"),
        "{rec}"
    );
    // The next call is the bold one among the allowed.
    let buf = draw(&m, 120, 40);
    let tools = layout::compute(buf.area, &m).tools.expect("tools");
    let (x, y) = find(&buf, tools, "Skill(skill=\"hope:consult\")").expect("next allowed");
    assert!(buf[(x, y)].style().add_modifier.contains(Modifier::BOLD));
}

#[test]
fn hiivmind_add_source_names_steps_as_calls() {
    let m = snapshots(&walks::hiivmind_add_source());
    let t = screen(&m, 120, 40);
    assert!(t.contains("● cache_manifest  next: Write(file_path=\"data/llms/docs"));
    assert!(t.contains("try_llms_txt_detection  WebFetch(url=\"https://docs.ex"));
    assert!(t.contains("allowed Write(file_path=\"data/llms/docs/llms.txt\")"));
    let tools = region(&m, 120, 40, |r| r.tools);
    assert!(
        tools.contains("Skill(skill=\"hiivmind-corpus:hiivmind-corpus-add…"),
        "the workflow's own skill is neutral, spelled as a call\n{tools}"
    );
    for raw in ["skill:", "(/file_path", "|skill"] {
        assert!(!t.contains(raw), "{raw} on screen\n{t}");
    }
    let rec = region(&m, 120, 40, |r| r.recovery);
    assert!(!rec.contains("Bash") && !rec.contains('✗'), "{rec}");
}

#[test]
fn seaam_keeps_its_deep_state_at_every_size() {
    let m = snapshots(&walks::seaam_organ_lifecycle());
    let readers = m.seq().expect("seq").machine.chart.readers.len();
    for (w, h) in SIZES {
        let deep = region(&m, w, h, |r| r.deep);
        // The newest changes first when they do not all fit.
        assert!(deep.contains("goals_achieved     1"), "{w}x{h}\n{deep}");
        let tools = region(&m, w, h, |r| r.tools);
        assert!(!tools.contains("neutral tools only") && !tools.contains('—'));
    }
    let deep = region(&m, 120, 40, |r| r.deep);
    assert_eq!(
        deep.lines().filter(|l| l.contains("since")).count(),
        readers
    );
    let t = screen(&m, 120, 40);
    assert!(t.contains("├─● Running ↺"));
    assert!(t.contains("allowed every call (observe mode)"));
    assert!(t.contains("no call left to make"));
}

#[test]
fn compound_intelligence_drops_a_denial_the_railroad_moved_past() {
    let m = snapshots(&walks::compound_intelligence());
    let t = screen(&m, 120, 40);
    assert!(t.contains("● mcp__waypoint__navigate_to_next_waypoint ↺  next: m"));
    assert!(t.contains("allowed mcp__waypoint__complete_journey,"));
    assert!(t.contains("denied  mcp__heaven-subagent__* — waypoint_active_learning"));
    let rec = region(&m, 120, 40, |r| r.recovery);
    assert!(
        !rec.contains("heaven-subagent") && !rec.contains('✗'),
        "{rec}"
    );
    for (w, h) in SIZES {
        let deep = region(&m, w, h, |r| r.deep);
        assert!(
            deep.contains("waypoint_status \"active\""),
            "{w}x{h}\n{deep}"
        );
    }
}

#[test]
fn master_sequences_name_their_next_call() {
    for (s, current, next) in [
        (
            walks::giint_workflow(),
            "mcp__giint__add_task",
            "mcp__giint__respond",
        ),
        (
            walks::starlog_initialization(),
            "mcp__starlog__orient",
            "mcp__starship__fly",
        ),
        (
            walks::waypoint_journey(),
            "mcp__waypoint__navigate_to_next_waypoint",
            "mcp__waypoint__complete_journey",
        ),
    ] {
        let m = snapshots(&s);
        let t = screen(&m, 120, 40);
        assert!(t.contains(&format!("● {current}")), "{t}");
        assert!(t.contains(&format!("allowed {next}")), "{t}");
        assert!(t.contains(&format!("next: call {next}")), "{t}");
    }
}

#[test]
fn every_sequence_shows_its_current_step_and_the_cli_s_denial_at_every_size() {
    for s in walks::all() {
        let m = model(&s);
        let st = m.status().expect("status");
        let seq = m.seq().expect("seq");
        let label = |key: &String| {
            let c = &seq.machine.chart;
            c.states
                .iter()
                .find(|x| &x.key == key)
                .map(|x| x.label.clone())
        };
        let current = st.current.iter().filter_map(label).next().expect("a step");
        // A step named after a tool call reads as the agent calls it.
        let cut: String = current.chars().take(20).collect();
        let called: String = seed::tui::common::as_called(&current)
            .chars()
            .take(20)
            .collect();
        let denied = seed::tui::recovery::current_denial(&m).map(|(c, _)| c);
        assert_eq!(denied, st.denied_call, "{}", s.sequence);
        for (w, h) in SIZES {
            let t = screen(&m, w, h);
            assert!(
                t.contains(&format!("● {cut}")) || t.contains(&format!("● {called}")),
                "{} {w}x{h}\n{t}",
                s.sequence
            );
            assert!(!t.contains("skill:"), "{} {w}x{h}\n{t}", s.sequence);
            let has_readers = !seq.machine.chart.readers.is_empty();
            let deep = layout::compute(Rect::new(0, 0, w, h), &m).deep;
            assert!(!has_readers || deep.is_some(), "{} {w}x{h}", s.sequence);
        }
    }
}

/// The first cell where `needle` starts inside `area`.
fn find(buf: &Buffer, area: Rect, needle: &str) -> Option<(u16, u16)> {
    for y in area.y..area.y + area.height {
        let cells: Vec<&str> = (area.x..area.x + area.width)
            .map(|x| buf[(x, y)].symbol())
            .collect();
        let row = cells.concat();
        if let Some(byte) = row.find(needle) {
            let mut acc = 0;
            for (i, c) in cells.iter().enumerate() {
                if acc == byte {
                    return Some((area.x + i as u16, y));
                }
                acc += c.len();
            }
        }
    }
    None
}

#[test]
fn an_empty_session_shows_the_readers_not_sampled_yet() {
    let m = model(&Script::of("seaam_organ_lifecycle", "s-empty"));
    for (w, h) in SIZES {
        let deep = region(&m, w, h, |r| r.deep);
        assert!(deep.contains("not sampled"), "{w}x{h}\n{deep}");
        let rec = region(&m, w, h, |r| r.recovery);
        assert!(!rec.contains('✗'), "nothing denied yet: {w}x{h}\n{rec}");
    }
    assert!(screen(&m, 120, 40).contains("● Designed"));
}

#[test]
fn hostile_flags_values_and_denied_calls_are_cleaned_and_bounded() {
    let mut m = model(&walks::hope());
    let mut snap = m.snapshot().cloned().expect("snapshot");
    snap.flags.insert("\u{1b}[31mred\u{7}".into(), true);
    snap.flags.insert("f".repeat(100_000), true);
    snap.flags.insert("never_set".into(), false);
    let huge = format!("\u{1b}]0;title\u{7}{}", "v".repeat(1_000_000));
    snap.vars.insert("spec_route".into(), json!(huge));
    snap.denied = Some(seed::engine::Event::tool("\u{1b}[2Jwipe", json!({})));
    m.apply_cache(vec![("hope".into(), snap)]);
    for (w, h) in SIZES {
        let t = screen(&m, w, h);
        assert!(!t.contains(['\u{1b}', '\u{7}']), "{w}x{h}\n{t}");
    }
    let deep = region(&m, 160, 48, |r| r.deep);
    assert!(
        deep.contains("red") && !deep.contains("never_set"),
        "{deep}"
    );
    assert!(
        !deep.contains(&"f".repeat(41)),
        "a flag's name is cut\n{deep}"
    );
    assert!(!deep.contains(&"v".repeat(41)), "a value is cut\n{deep}");
    let rec = region(&m, 160, 48, |r| r.recovery);
    assert!(
        rec.contains("⊘ denied wipe") || rec.contains("⊘ denied [2Jwipe"),
        "{rec}"
    );
}

#[test]
fn no_call_left_is_said_in_words_by_the_cli_and_at_every_size() {
    let m = model(&walks::seaam_organ_lifecycle());
    let st = m.status().expect("status");
    assert!(!st.progress.done && st.progress.steps_remaining == Some(0));
    let cli = seed::report::status_text(st);
    assert!(
        cli.contains("no call left to make") && !cli.contains("≥ 0"),
        "{cli}"
    );
    for (w, h) in SIZES {
        let t = screen(&m, w, h);
        assert!(!t.contains("≥0") && !t.contains("≥ 0"), "{w}x{h}\n{t}");
    }
    assert!(screen(&m, 40, 20).contains("no call left"));
}
