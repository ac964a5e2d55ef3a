//! The reducer: keys and messages in, model changes and effects out; and the replay contract:
//! the state at event k is the fold of the first k records, however it is reached.

use crate::support::tui as common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use proptest::prelude::*;
use serde_json::json;

use seed::engine::Facts;
use seed::store::record::Record;
use seed::tui::fold::{Checkpoints, Fold};
use seed::tui::model::ChartView;
use seed::tui::{
    Effect, Entry, Focus, Mode, Model, Msg, Overlay, Seq, SessionEntry, SessionInfo, update,
};

fn records() -> Vec<Record> {
    common::demo_session().records
}

fn entries(rs: &[Record]) -> Vec<Entry> {
    rs.iter()
        .enumerate()
        .map(|(i, r)| Entry {
            offset: i as u64 * 100,
            record: r.clone(),
        })
        .collect()
}

fn model_with(rs: &[Record]) -> Model {
    let seq = Seq::new(common::machine(common::SEQUENCE), true);
    let mut m = Model::new(
        SessionInfo {
            id: "s-1".into(),
            source: String::new(),
            ..Default::default()
        },
        vec![seq],
        "default",
    );
    m.themes = vec!["default".into(), "light".into(), "ascii".into()];
    update(&mut m, Msg::Records(entries(rs)));
    m
}

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn code(k: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(k, KeyModifiers::NONE))
}

#[test]
fn q_and_ctrl_c_quit() {
    let mut m = model_with(&[]);
    assert_eq!(update(&mut m, key('q')), vec![Effect::Quit]);
    assert!(m.quit);
    let mut m = model_with(&[]);
    let ctrl_c = Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert_eq!(update(&mut m, ctrl_c), vec![Effect::Quit]);
}

#[test]
fn help_opens_and_any_key_closes_it() {
    let mut m = model_with(&[]);
    assert!(update(&mut m, key('?')).is_empty());
    assert_eq!(m.overlay, Overlay::Help);
    update(&mut m, key('x'));
    assert_eq!(m.overlay, Overlay::None);
    update(&mut m, key('?'));
    assert_eq!(update(&mut m, key('q')), vec![Effect::Quit]);
}

#[test]
fn tab_cycles_focus_both_ways() {
    let mut m = model_with(&[]);
    let start = m.focus;
    let mut seen = vec![start];
    for _ in 0..Focus::ALL.len() {
        update(&mut m, code(KeyCode::Tab));
        seen.push(m.focus);
    }
    assert_eq!(m.focus, start);
    assert_eq!(seen.len(), Focus::ALL.len() + 1);
    update(&mut m, code(KeyCode::BackTab));
    assert_eq!(m.focus, start.prev());
}

#[test]
fn slash_filters_the_timeline_and_esc_clears() {
    let mut m = model_with(&records());
    let all = m.rows.len();
    update(&mut m, key('/'));
    assert!(m.filter.editing);
    assert_eq!(m.focus, Focus::Timeline);
    for c in "waypoint".chars() {
        update(&mut m, key(c));
    }
    let n = m.filter.matches.len();
    assert!(n > 0 && n < all, "{n} of {all}");
    // Keys while typing go to the filter, not the keymap.
    update(&mut m, key('q'));
    assert!(!m.quit);
    update(&mut m, code(KeyCode::Backspace));
    update(&mut m, code(KeyCode::Enter));
    assert!(!m.filter.editing);
    assert_eq!(m.filter.text, "waypoint");
    // New rows that match are added as they arrive.
    let more = common::demo_session().records[..3].to_vec();
    let before = m.filter.matches.len();
    update(&mut m, Msg::Records(entries(&more)));
    assert!(m.filter.matches.len() >= before);
    update(&mut m, code(KeyCode::Esc));
    assert!(m.filter.text.is_empty() && m.filter.matches.is_empty());
}

#[test]
fn t_cycles_themes() {
    let mut m = model_with(&[]);
    assert_eq!(
        update(&mut m, key('t')),
        vec![Effect::SetTheme("light".into()), Effect::SaveSettings]
    );
    assert_eq!(
        update(&mut m, key('t')),
        vec![Effect::SetTheme("ascii".into()), Effect::SaveSettings]
    );
    assert_eq!(
        update(&mut m, key('t')),
        vec![Effect::SetTheme("default".into()), Effect::SaveSettings]
    );
    assert_eq!(m.theme, "default");
}

fn sessions() -> Vec<SessionEntry> {
    let e = |id: &str, parent: Option<&str>, modified: i64, agent: bool| SessionEntry {
        id: id.into(),
        parent: parent.map(String::from),
        label: String::new(),
        modified: Some(modified),
        agent,
    };
    vec![
        e("s-0", None, 10, false),
        e("a-9", Some("s-0"), 10, true),
        e("s-1", None, 30, false),
        e("a-1", Some("s-1"), 30, true),
        e("s-2", None, 20, false),
    ]
}

#[test]
fn session_list_nests_subagents_and_switches() {
    let mut m = model_with(&[]);
    assert_eq!(update(&mut m, key('s')), vec![Effect::ListSessions]);
    update(&mut m, Msg::Sessions(sessions()));
    let order: Vec<&str> = seed::tui::update::session_order(&m.sessions)
        .iter()
        .map(|(d, i)| {
            if *d == 0 {
                m.sessions[*i].id.as_str()
            } else {
                "  sub"
            }
        })
        .collect();
    assert_eq!(order, ["s-1", "  sub", "s-2", "s-0", "  sub"]);
    // s-1 (followed) is selected; down twice is s-2.
    update(&mut m, code(KeyCode::Down));
    update(&mut m, code(KeyCode::Down));
    let fx = update(&mut m, code(KeyCode::Enter));
    assert_eq!(
        fx,
        vec![Effect::SwitchSession {
            id: "s-2".into(),
            agent: None
        }]
    );
    assert_eq!(m.overlay, Overlay::None);
    // A subagent of the followed session filters the timeline to its lane.
    update(&mut m, key('s'));
    update(&mut m, code(KeyCode::Down));
    assert!(update(&mut m, code(KeyCode::Enter)).is_empty());
    assert_eq!(m.filter.text, "a-1");
    // A subagent of another session switches to its parent, lane filtered.
    update(&mut m, key('s'));
    for _ in 0..4 {
        update(&mut m, code(KeyCode::Down));
    }
    let fx = update(&mut m, code(KeyCode::Enter));
    assert_eq!(
        fx,
        vec![Effect::SwitchSession {
            id: "s-0".into(),
            agent: Some("a-9".into())
        }]
    );
}

#[test]
fn a_newer_session_is_followed_only_without_session_flag() {
    let mut m = model_with(&[]);
    assert!(update(&mut m, Msg::NewerSession("s-9".into())).is_empty());
    m.follow_latest = true;
    let fx = update(&mut m, Msg::NewerSession("s-9".into()));
    assert_eq!(
        fx,
        vec![Effect::SwitchSession {
            id: "s-9".into(),
            agent: None
        }]
    );
}

#[test]
fn g_swaps_the_statechart_view_and_o_the_sequence() {
    let mut m = model_with(&records());
    update(&mut m, key('g'));
    assert_eq!(m.chart_view, ChartView::Graph);
    assert_eq!(m.focus, Focus::Statechart);
    update(&mut m, key('g'));
    assert_eq!(m.chart_view, ChartView::Outline);
    update(
        &mut m,
        Msg::Sequence(Seq::new(common::machine("waypoint_journey"), false)),
    );
    assert_eq!(m.seqs.len(), 2);
    update(&mut m, key('o'));
    assert_eq!(m.selected, 1);
    assert_eq!(
        m.status().map(|s| s.sequence.as_str()),
        Some("waypoint_journey")
    );
}

#[test]
fn timeline_arrows_pick_rows_and_end_follows_again() {
    let mut m = model_with(&records());
    m.focus = Focus::Timeline;
    let n = m.rows.len();
    assert_eq!(m.picked, None, "following the newest, nothing picked");
    update(&mut m, code(KeyCode::Up));
    assert_eq!(m.picked, Some(n - 1), "the first ↑ picks the newest row");
    update(&mut m, code(KeyCode::Up));
    assert_eq!(m.picked, Some(n - 2));
    update(&mut m, code(KeyCode::Home));
    assert_eq!(m.picked, Some(0), "Home picks the oldest");
    let shown = seed::tui::timeline::window(&m, seed::tui::select::timeline_rows(&m));
    assert!(shown.contains(&0), "the picked row is on screen: {shown:?}");
    update(&mut m, code(KeyCode::End));
    assert_eq!(
        (m.picked, m.scroll.timeline),
        (None, 0),
        "End follows again"
    );
}

#[test]
fn records_update_health_rows_and_deep_state() {
    let m = model_with(&records());
    let h = &m.fold.health;
    assert_eq!((h.failures.lapses, h.failures.failed_closed), (1, 0));
    assert_eq!(h.denials, 4);
    assert!(h.last_ms.is_some());
    assert!(m.rows.len() < records().len(), "Pre and Post share a row");
    let deep = m.deep_values();
    let wp = deep
        .iter()
        .find(|(n, _)| n == "waypoint_status")
        .and_then(|(_, d)| d.clone());
    assert_eq!(wp.map(|d| d.value), Some(json!("active")));
}

#[test]
fn live_facts_show_while_following() {
    let mut m = model_with(&records());
    let mut facts = Facts::new();
    facts.insert("flight_status".into(), json!("debugging"));
    update(&mut m, Msg::Facts { facts, now: 5 });
    let v = m
        .deep_values()
        .into_iter()
        .find(|(n, _)| n == "flight_status");
    assert_eq!(
        v.and_then(|(_, d)| d).map(|d| (d.value, d.changed_ts)),
        Some((json!("debugging"), Some(5)))
    );
}

#[test]
fn log_reset_starts_over() {
    let mut m = model_with(&records());
    update(&mut m, Msg::LogReset("the log was truncated".into()));
    assert_eq!(m.fold.applied, 0);
    assert!(m.rows.is_empty() && m.marks.is_empty());
    assert!(m.notice.is_some());
}

#[test]
fn the_fold_equals_the_engine_fold_of_the_log() {
    let rs = records();
    let m = model_with(&rs);
    let machine = common::machine(common::SEQUENCE);
    let want = seed::session::fold::fold(&machine, &rs);
    assert_eq!(m.fold.snaps[0].as_ref(), Some(&want));
}

/// The fold of the first `k` records, from scratch.
fn fold_prefix(m: &Model, rs: &[Record], k: usize) -> Fold {
    let mut f = Fold::new(m.seqs.len());
    for r in &rs[..k] {
        f.apply(&m.seqs, r, seed::tui::model::parse_ts(&r.ts));
    }
    f
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn seek_to_k_equals_the_fold_of_k(every in 1usize..9, k in 0usize..40) {
        let rs = records();
        let k = k.min(rs.len());
        let seq = Seq::new(common::machine(common::SEQUENCE), true);
        let mut m = Model::new(SessionInfo::default(), vec![seq], "default");
        m.checkpoints = Checkpoints::new(1, every);
        update(&mut m, Msg::Records(entries(&rs)));
        let mut asked = None;
        m.seek(k, |range| {
            asked = Some(range.clone());
            rs[range].to_vec()
        });
        let range = asked.unwrap_or(0..0);
        prop_assert!(range.len() <= every, "read {range:?} with checkpoints every {every}");
        prop_assert_eq!(m.mode, Mode::Replay { cursor: k });
        prop_assert_eq!(m.cursor_fold.as_ref(), Some(&fold_prefix(&m, &rs, k)));
        prop_assert_eq!(m.derived.at, k);
        // The timeline at k shows the rows that exist after k records.
        let vis = m.rows.visible(k);
        prop_assert!(m.rows.iter().take(vis).all(|r| (r.index as usize) < k));
        m.go_live();
        prop_assert_eq!(m.derived.at, rs.len());
    }
}
