//! `seed tui --replay`: scrubbing to k equals folding k records, the replay keys, playback timing
//! under a fake clock, what-if marks on exactly the calls whose verdict differs, and the screen.

use crate::support::tui as common;

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

use seed::engine::{Decision, Phase};
use seed::store::record::Record;
use seed::tui::fold::{Checkpoints, Fold};
use seed::tui::replay::next_delay;
use seed::tui::{Mode, Model, Msg, Seq, SessionInfo, Theme, update};

fn records() -> Vec<Record> {
    common::demo_session().records
}

/// A replay of `rs` through the demo's sequence (as the hook stepped it, or what-if).
fn replay(rs: Vec<Record>, what_if: bool) -> Model {
    let seq = Seq::new(common::machine(common::SEQUENCE), !what_if);
    let info = SessionInfo {
        id: "s-7f3a".into(),
        source: String::new(),
        ..Default::default()
    };
    let mut m = Model::new(info, vec![seq], "default");
    m.start_replay(rs);
    m
}

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn code(k: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(k, KeyModifiers::NONE))
}

fn fold_prefix(m: &Model, rs: &[Record], k: usize) -> Fold {
    let mut f = Fold::new(m.seqs.len());
    for r in &rs[..k] {
        f.apply(&m.seqs, r, seed::tui::model::parse_ts(&r.ts));
    }
    f
}

fn draw(m: &Model, w: u16, h: u16) -> Buffer {
    let theme = Theme::load("default", None).expect("built-in theme");
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| seed::tui::render(f, m, &theme)).expect("draw");
    t.backend().buffer().clone()
}

fn lines(buf: &Buffer) -> Vec<String> {
    (0..buf.area.height)
        .map(|y| {
            let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
            row.trim_end().to_string()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn scrubbing_to_k_equals_folding_k(
        every in 1usize..9,
        ks in proptest::collection::vec(0usize..80, 1..12),
    ) {
        let rs = records();
        let seq = Seq::new(common::machine(common::SEQUENCE), true);
        let mut m = Model::new(SessionInfo::default(), vec![seq], "default");
        m.checkpoints = Checkpoints::new(1, every);
        m.start_replay(rs.clone());
        prop_assert_eq!(m.mode, Mode::Replay { cursor: 0 });
        for k in ks {
            let k = k.min(rs.len());
            m.jump(k);
            prop_assert_eq!(m.mode, Mode::Replay { cursor: k });
            prop_assert_eq!(m.cursor_fold.as_ref(), Some(&fold_prefix(&m, &rs, k)));
            prop_assert_eq!(m.derived.at, k);
        }
    }
}

#[test]
fn starts_paused_at_the_start_with_the_whole_log_folded() {
    let rs = records();
    let m = replay(rs.clone(), false);
    assert_eq!(m.mode, Mode::Replay { cursor: 0 });
    assert_eq!(m.fold.applied, rs.len());
    let rp = m.replay.as_ref().expect("replay");
    assert!(!rp.playing);
    assert_eq!(rp.speed_label(), "1×");
    assert!(rp.diffs.is_empty() && rp.what_if.is_none());
    assert_eq!(next_delay(&m), None);
}

#[test]
fn step_jump_and_speed_keys() {
    let rs = records();
    let n = rs.len();
    let mut m = replay(rs, false);
    for (msg, want) in [
        (code(KeyCode::Right), 1),
        (key('l'), 2),
        (code(KeyCode::Left), 1),
        (key('h'), 0),
        (key('h'), 0),
        (key('>'), n),
        (key('l'), n),
        (key('<'), 0),
        (key('>'), n),
        // Home and End scroll the focused region, as they do live: the cursor stays.
        (code(KeyCode::Home), n),
        (code(KeyCode::End), n),
    ] {
        update(&mut m, msg);
        assert_eq!(m.cursor(), want);
    }
    let speed = |m: &Model| m.replay.as_ref().map(|r| r.speed_label());
    for _ in 0..10 {
        update(&mut m, key('+'));
    }
    assert_eq!(speed(&m).as_deref(), Some("64×"));
    for _ in 0..10 {
        update(&mut m, key('-'));
    }
    assert_eq!(speed(&m).as_deref(), Some("0.5×"));
    update(&mut m, key('='));
    assert_eq!(speed(&m).as_deref(), Some("1×"));
    // `g` is the statechart view, as it is live.
    update(&mut m, key('g'));
    assert_eq!(m.chart_view, seed::tui::model::ChartView::Graph);
}

#[test]
fn n_and_brackets_jump_to_denials_and_state_changes() {
    let rs = records();
    let mut m = replay(rs.clone(), false);
    let denials: Vec<usize> = (0..rs.len())
        .filter(|&i| rs[i].verdict.as_ref().is_some_and(|v| v.blocks()))
        .map(|i| i + 1)
        .collect();
    assert!(denials.len() >= 2, "the demo has denials");
    let mut seen = Vec::new();
    while update(&mut m, key('n')).is_empty() && seen.last() != Some(&m.cursor()) {
        seen.push(m.cursor());
    }
    assert_eq!(seen, denials);
    update(&mut m, key('N'));
    assert_eq!(m.cursor(), denials[denials.len() - 2]);

    // `]` lands just after each record whose step changed the configuration (the engine's
    // report, stepping the machine on its own).
    let machine = common::machine(common::SEQUENCE);
    let mut snap = None;
    let mut changes = Vec::new();
    for (i, r) in rs.iter().enumerate() {
        if let Some((phase, ev, facts)) = r.step() {
            let s = snap.get_or_insert_with(|| machine.start(facts));
            if machine.step(s, phase, ev, facts).changed {
                changes.push(i + 1);
            }
        }
    }
    assert!(changes.len() > 2);
    update(&mut m, key('<'));
    let mut seen = Vec::new();
    loop {
        update(&mut m, key(']'));
        if seen.last() == Some(&m.cursor()) {
            break;
        }
        seen.push(m.cursor());
    }
    assert_eq!(seen, changes);
    update(&mut m, key('['));
    assert_eq!(m.cursor(), changes[changes.len() - 2]);
}

/// Records `gaps` ms apart (`None`: a record without a time).
fn timed(gaps: &[Option<i64>]) -> Vec<Record> {
    let mut t = 1_768_485_720_000;
    let mut out = vec![Record::new(common::rfc3339(t), "s-1", "Notification")];
    for g in gaps {
        let ts = match g {
            Some(g) => {
                t += g;
                common::rfc3339(t)
            }
            None => String::new(),
        };
        out.push(Record::new(ts, "s-1", "Notification"));
    }
    out
}

/// Play under a fake clock: wait what `next_delay` asks, then step. Returns (ms, cursor).
fn play(m: &mut Model) -> Vec<(u128, usize)> {
    let mut clock = Duration::ZERO;
    let mut seen = Vec::new();
    while let Some(d) = next_delay(m) {
        clock += d;
        update(m, Msg::PlayStep);
        seen.push((clock.as_millis(), m.cursor()));
    }
    seen
}

#[test]
fn playback_follows_the_real_gaps_capped_and_scaled() {
    // 1 s, 9 s (capped to 2 s), 0.5 s, no time (0.2 s), then from no time (0.2 s).
    let rs = timed(&[Some(1_000), Some(9_000), Some(500), None, Some(300)]);
    let mut m = Model::new(SessionInfo::default(), Vec::new(), "default");
    m.start_replay(rs);
    update(&mut m, key('+'));
    update(&mut m, key(' '));
    assert_eq!(
        play(&mut m),
        vec![(0, 1), (500, 2), (1500, 3), (1750, 4), (1850, 5), (1950, 6)]
    );
    assert!(
        !m.replay.as_ref().is_some_and(|r| r.playing),
        "stops at the end"
    );
    // Space at the end plays again from the start; half speed doubles the waits.
    update(&mut m, key('-'));
    update(&mut m, key('-'));
    update(&mut m, key(' '));
    assert_eq!(m.cursor(), 0);
    let slow = play(&mut m);
    assert_eq!(slow.get(1), Some(&(2000, 2)));
    assert_eq!(slow.last(), Some(&(7800, 6)));
}

#[test]
fn pausing_or_moving_by_hand_stops_playback() {
    let rs = timed(&[Some(1_000), Some(1_000), Some(1_000)]);
    let mut m = Model::new(SessionInfo::default(), Vec::new(), "default");
    m.start_replay(rs);
    update(&mut m, key(' '));
    update(&mut m, Msg::PlayStep);
    update(&mut m, Msg::PlayStep);
    assert_eq!(next_delay(&m), Some(Duration::from_secs(1)));
    update(&mut m, key(' '));
    assert_eq!(next_delay(&m), None);
    update(&mut m, Msg::PlayStep);
    assert_eq!(m.cursor(), 2, "a late timer does nothing once paused");
    update(&mut m, key(' '));
    update(&mut m, code(KeyCode::Right));
    assert_eq!((m.cursor(), next_delay(&m)), (3, None));
}

/// The demo with two recorded verdicts flipped: an allowed call recorded as denied and a denied
/// one recorded as allowed. Replayed what-if through the same sequence, exactly those differ.
fn tampered() -> (Vec<Record>, [usize; 2]) {
    let mut rs = records();
    let gate = |r: &Record| r.phase == Some(Phase::Gate) && r.hook == "PreToolUse";
    let allowed = rs
        .iter()
        .position(|r| gate(r) && r.verdict.as_ref().is_some_and(|v| !v.blocks()))
        .expect("an allowed call");
    let denied = rs
        .iter()
        .position(|r| gate(r) && r.verdict.as_ref().is_some_and(|v| v.blocks()))
        .expect("a denied call");
    for (i, d) in [(allowed, Decision::Deny), (denied, Decision::Allow)] {
        if let Some(v) = rs[i].verdict.as_mut() {
            v.decision = d;
        }
    }
    (rs, [allowed, denied])
}

#[test]
fn what_if_marks_exactly_the_differing_calls() {
    assert!(
        replay(records(), true)
            .replay
            .is_some_and(|r| r.diffs.is_empty())
    );
    let (rs, want) = tampered();
    let mut m = replay(rs.clone(), true);
    let mut want = want.to_vec();
    want.sort();
    let rp = m.replay.as_ref().expect("replay");
    assert_eq!(rp.diffs, want);
    assert_eq!(rp.what_if.as_deref(), Some(common::SEQUENCE));
    update(&mut m, key('>'));
    // Wide: the timeline is a full-height column, every row on screen.
    let screen = lines(&draw(&m, 160, 60));
    assert!(screen[0].contains(&format!("what-if: {}", common::SEQUENCE)));
    let marked: Vec<&String> = screen.iter().filter(|l| l.contains('◆')).collect();
    assert_eq!(marked.len(), 2, "{screen:#?}");
    for (line, i) in marked.iter().zip(&want) {
        let name = rs[*i]
            .event
            .as_ref()
            .map(|e| e.claude_tool_name())
            .unwrap_or_default();
        assert!(line.contains(&name), "{line} marks {name}");
    }
}

#[test]
fn transcripts_differ_wherever_the_what_if_sequence_denies() {
    // No recorded verdicts (a transcript): the calls ran, so every replayed denial differs.
    let mut rs = records();
    for r in &mut rs {
        r.verdict = None;
    }
    let mut m = replay(rs.clone(), true);
    let rp = m.replay.as_ref().expect("replay");
    let denied: Vec<usize> = rp.denials.iter().map(|p| p - 1).collect();
    assert!(!denied.is_empty());
    assert!(denied.iter().all(|i| rp.differs(*i)));

    // The header counts, and the recovery view explains, what the what-if sequence denies.
    update(&mut m, key('>'));
    let screen = lines(&draw(&m, 160, 60));
    assert!(
        screen[1].contains(&format!("{} denied", denied.len())),
        "{}",
        screen[1]
    );
    let last = denied.last().and_then(|i| rs[*i].event.as_ref());
    let name = last.map(|e| e.name.clone()).unwrap_or_default();
    let shown = name
        .strip_prefix("mcp__")
        .unwrap_or(&name)
        .replace("__", ".");
    assert!(
        screen.iter().any(|l| l.contains('⊘') && l.contains(&shown)),
        "no denial of {shown} in recovery: {screen:#?}"
    );
}

#[test]
fn header_shows_playback_and_the_scrubber_marks_denials() {
    let mut m = replay(records(), false);
    update(&mut m, key('n'));
    let screen = lines(&draw(&m, 100, 30));
    assert!(
        screen[0].contains("REPLAY") && screen[0].contains("‖ 1×"),
        "{}",
        screen[0]
    );
    let bar = &screen[2];
    assert_eq!(bar.matches('●').count(), 1, "{bar}");
    assert!(bar.matches('┃').count() >= 2, "{bar}");
    assert_eq!(bar.chars().count(), 99);
    update(&mut m, key(' '));
    assert!(lines(&draw(&m, 100, 30))[0].contains("▶ 1×"));
}

#[test]
fn help_lists_the_replay_keys() {
    let mut m = replay(records(), false);
    update(&mut m, key('?'));
    let t = lines(&draw(&m, 100, 50)).join("\n");
    for b in seed::tui::keys::labelled().filter(|b| b.when.applies(true)) {
        assert!(t.contains(b.label), "help shows {}", b.label);
    }
}

#[test]
fn replay_screen_100x30() {
    let (rs, _) = tampered();
    let mut m = replay(rs, true);
    // Just after the first what-if denial: both differing calls are on screen.
    update(&mut m, key('n'));
    insta::assert_snapshot!(lines(&draw(&m, 100, 30)).join("\n"));
}

#[test]
fn replay_target_loads_a_session_log_and_the_sequences_it_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("s-7f3a.jsonl");
    std::fs::write(&log, common::demo_session().jsonl()).expect("write");
    let opts = seed::tui::start::Options {
        state: dir.path().to_path_buf(),
        ..Default::default()
    };
    let source = log.display().to_string();
    let (t, rs) = seed::tui::start::replay_target(&opts, &source).expect("loads");
    assert_eq!(rs.len(), records().len());
    assert_eq!(t.seqs.len(), 1);
    assert!(t.seqs[0].follows_log);
    let what_if = seed::tui::start::Options {
        sequence: Some("waypoint_journey".into()),
        ..opts.clone()
    };
    let (t, _) = seed::tui::start::replay_target(&what_if, &source).expect("loads");
    assert_eq!(t.seqs.len(), 1);
    assert!(!t.seqs[0].follows_log);
    assert!(seed::tui::start::replay_target(&opts, "no-such-session").is_err());
}
