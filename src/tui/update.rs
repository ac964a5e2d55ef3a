//! `update(&mut Model, Msg) -> Vec<Effect>`: the only place the model changes. The shell turns
//! terminal input, tail batches and timers into messages, and performs the effects returned.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent};

use crate::engine::Facts;
use crate::store::record::Record;

use super::detail::Detail;
use super::select;

use super::fold::{Deep, Seq};
use super::keys::{self, Action};
use super::model::{ChartView, Entry, Focus, Model, Overlay, SessionEntry};

#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Resize(u16, u16),
    /// A batch of new log records, in order.
    Records(Vec<Entry>),
    /// The start of the log that a saved snapshot covers, folded by the feed for the timeline,
    /// health and deep state (not the engines).
    Backlog(Box<super::fold::Backlog>),
    /// A backlog is being read (the header says so until `Cache`).
    Loading,
    /// The engines' state after the backlog: (sequence name, snapshot) from the hook's cache.
    Cache(Vec<(String, crate::engine::Snapshot)>),
    /// Checkpoints folded off the UI thread, for replay.
    Checkpoints(Vec<super::fold::Fold>),
    /// Lines of the log that are not records.
    Malformed(u64),
    /// The log was truncated or replaced; the records that follow start over.
    LogReset(String),
    /// A sequence to follow (sent before the first record that names it).
    Sequence(Seq),
    /// Deep-state values read from their files, at `now` (unix ms).
    Facts {
        facts: Facts,
        now: i64,
    },
    /// Each item's facts (seed 002's organs) read from their files, and how many items were
    /// left out.
    Items(Vec<crate::store::reader_each::Item>, usize),
    Sessions(Vec<SessionEntry>),
    Themes(Vec<String>),
    /// The time (unix ms).
    Tick(i64),
    /// A session of this project more recent than the one followed.
    NewerSession(String),
    Notice(String),
    /// What `errors.jsonl` holds for the session (failures its log could not take).
    Outside(super::outside::Outside),
    /// Replay playback: the delay [`super::replay::next_delay`] asked for has passed; show the
    /// next record.
    PlayStep,
    Mouse(MouseEvent),
    /// The records of the call `Effect::ReadCall` asked for (`None`: not in the log).
    CallRead {
        title: String,
        pre: Option<Box<Record>>,
        post: Option<Box<Record>>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Quit,
    /// Follow another session; for a subagent, filter the timeline to its lane.
    SwitchSession {
        id: String,
        agent: Option<String>,
    },
    /// Load and use this theme (the model already names it).
    SetTheme(String),
    /// Render the current frame to a file.
    WriteScreenshot,
    /// Send `Msg::Tick` at this interval, or stop (`None`).
    SetTick(Option<Duration>),
    /// Refresh the session list.
    ListSessions,
    /// Read a call's records from the log: reading starts at the record numbered `from.0`, at
    /// byte `from.1`; `pre` and `post` are the record numbers wanted.
    ReadCall {
        title: String,
        from: (usize, u64),
        pre: Option<usize>,
        post: Option<usize>,
    },
    /// Put text on the clipboard (OSC 52).
    Copy(String),
    /// Have the terminal report the mouse, or not.
    SetMouse(bool),
    /// Write the settings remembered between runs (theme, layout, mouse).
    SaveSettings,
}

pub fn update(m: &mut Model, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Key(k) => return key(m, k),
        Msg::Resize(w, h) => m.size = (w, h),
        Msg::Records(batch) => m.apply_records(batch),
        Msg::Backlog(b) => m.apply_backlog(*b),
        Msg::Loading => m.loading = true,
        Msg::Cache(snaps) => m.apply_cache(snaps),
        Msg::Checkpoints(found) => m.checkpoints.merge(found),
        Msg::Malformed(n) => m.malformed += n,
        Msg::LogReset(why) => {
            m.reset_log();
            m.notice = Some(why);
        }
        Msg::Sequence(seq) => m.add_sequence(seq),
        Msg::Facts { facts, now } => {
            for (k, v) in facts {
                if m.live_facts.get(&k).is_none_or(|d| d.value != v) {
                    let changed_at = m.fold.applied;
                    m.live_facts.insert(
                        k,
                        Deep {
                            value: v,
                            changed_ts: Some(now),
                            changed_at,
                        },
                    );
                }
            }
            // The files may move the state before the next record does.
            m.recompute();
        }
        Msg::Items(items, left_out) => {
            m.live_items = Some((items, left_out));
            m.recompute();
        }
        Msg::Sessions(list) => {
            m.sessions = list;
            if let Overlay::Sessions { selected } = &mut m.overlay {
                *selected = (*selected).min(m.sessions.len().saturating_sub(1));
            }
        }
        Msg::Themes(names) => {
            if !names.is_empty() {
                m.themes = names;
            }
        }
        Msg::Tick(now) => m.now = Some(now),
        Msg::NewerSession(id) => {
            if m.follow_latest && id != m.session.id {
                return vec![Effect::SwitchSession { id, agent: None }];
            }
        }
        Msg::Notice(text) => m.notice = Some(text),
        Msg::Outside(o) => m.outside = o,
        Msg::PlayStep => m.play_step(),
        Msg::Mouse(e) => return mouse(m, e),
        Msg::CallRead { title, pre, post } => {
            if m.overlay == Overlay::Detail {
                m.detail = Some(Detail::of(&title, pre.as_deref(), post.as_deref()));
            }
        }
    }
    Vec::new()
}

fn key(m: &mut Model, k: KeyEvent) -> Vec<Effect> {
    if k.kind == KeyEventKind::Release {
        return Vec::new();
    }
    if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL) {
        m.quit = true;
        return vec![Effect::Quit];
    }
    m.flash = None;
    if m.filter.editing {
        filter_key(m, k);
        return Vec::new();
    }
    let action = keys::lookup_in(m.replay.is_some(), k.code, k.modifiers);
    match m.overlay.clone() {
        Overlay::Help => return help_key(m, action),
        Overlay::Detail => return detail_key(m, action),
        Overlay::Sessions { selected } => return sessions_key(m, k, action, selected),
        Overlay::None => {}
    }
    match action {
        Some(action) => act(m, action),
        None => Vec::new(),
    }
}

/// What a key's action does on the dashboard (no popup open).
fn act(m: &mut Model, action: Action) -> Vec<Effect> {
    let page = (m.size.1 / 2).max(1) as i64;
    match action {
        Action::Quit => {
            m.quit = true;
            return vec![Effect::Quit];
        }
        Action::Help => m.overlay = Overlay::Help,
        Action::FocusNext => m.focus = m.focus.next(),
        Action::FocusPrev => m.focus = m.focus.prev(),
        Action::Filter => {
            m.filter.editing = true;
            m.focus = Focus::Timeline;
        }
        Action::CycleTheme => return cycle_theme(m),
        Action::Sessions => return open_sessions(m),
        Action::ToggleGraph => {
            m.chart_view = match m.chart_view {
                ChartView::Outline => ChartView::Graph,
                ChartView::Graph => ChartView::Outline,
            };
            m.focus = Focus::Statechart;
            return vec![Effect::SaveSettings];
        }
        Action::NextSequence => {
            if !m.seqs.is_empty() {
                m.selected = (m.selected + 1) % m.seqs.len();
                m.recompute();
            }
        }
        Action::Up => scroll(m, -1),
        Action::Down => scroll(m, 1),
        Action::PageUp => scroll(m, -page),
        Action::PageDown => scroll(m, page),
        Action::Top => scroll(m, i64::MIN / 2),
        Action::Bottom => scroll(m, i64::MAX / 2),
        Action::Screenshot => return vec![Effect::WriteScreenshot],
        Action::Close => close(m),
        Action::Zoom => return zoom(m),
        Action::Open => return open(m),
        Action::CopyNext => return copy(m, super::copy::next_call(m), "the next call"),
        Action::CopyReason => return copy(m, super::copy::last_reason(m), "the refusal's reason"),
        Action::ToggleMouse => {
            m.mouse = !m.mouse;
            m.flash = Some(match m.mouse {
                true => "mouse on: click focuses, the wheel scrolls (m: off)".into(),
                false => "mouse off: the terminal selects text (m: on)".into(),
            });
            return vec![Effect::SetMouse(m.mouse), Effect::SaveSettings];
        }
        Action::PlayPause
        | Action::Faster
        | Action::Slower
        | Action::StepForward
        | Action::StepBack
        | Action::Start
        | Action::End
        | Action::NextDenial
        | Action::PrevDenial
        | Action::NextChange
        | Action::PrevChange => m.replay_key(action),
    }
    Vec::new()
}

fn cycle_theme(m: &mut Model) -> Vec<Effect> {
    let Some(name) = next_theme(&m.theme, &m.themes) else {
        return Vec::new();
    };
    m.theme = name.clone();
    m.flash = Some(format!("theme {name} (t: the next one)"));
    vec![Effect::SetTheme(name), Effect::SaveSettings]
}

fn open_sessions(m: &mut Model) -> Vec<Effect> {
    let selected = session_order(&m.sessions)
        .iter()
        .position(|(_, i)| m.sessions[*i].id == m.session.id && !m.sessions[*i].agent)
        .unwrap_or(0);
    m.overlay = Overlay::Sessions { selected };
    vec![Effect::ListSessions]
}

/// `Esc`: the notice goes, then a zoom, the pick and the filter.
fn close(m: &mut Model) {
    m.notice = None;
    if m.zoom {
        m.zoom = false;
    } else if m.picked.is_some() {
        select::unpick(m);
    } else if m.filter.active() {
        m.filter.text.clear();
        m.filter.reset(&m.rows);
        select::unpick(m);
    }
}

fn zoom(m: &mut Model) -> Vec<Effect> {
    m.zoom = !m.zoom;
    if m.zoom {
        m.flash = Some("zoomed: z or Esc goes back".into());
    }
    vec![Effect::SaveSettings]
}

/// `Enter`: the picked timeline row whole (the newest when none is picked).
fn open(m: &mut Model) -> Vec<Effect> {
    if m.focus != Focus::Timeline {
        return Vec::new();
    }
    if m.picked.is_none() {
        select::move_by(m, -1);
    }
    let Some(row) = m.picked.and_then(|i| m.rows.get(i).copied()) else {
        return Vec::new();
    };
    let title = m.rows.name(&row).to_string();
    // A row with no gate record is its own completion; a call completes only once the cursor
    // has passed its completing record.
    let own = row.post == row.index;
    let pre = (!own).then_some(row.index as usize);
    let post = (row.post != super::rows::NONE && (row.post as usize) < m.at())
        .then_some(row.post as usize);
    m.overlay = Overlay::Detail;
    m.scroll.detail = 0;
    if let Some(rp) = &m.replay {
        let rec = |i: Option<usize>| i.and_then(|i| rp.records.get(i));
        m.detail = Some(Detail::of(&title, rec(pre), rec(post)));
        return Vec::new();
    }
    m.detail = Some(Detail::loading(&title));
    let first = row.index as usize;
    let every = m.checkpoints.every.max(1);
    let offset = m.marks.get(first / every).copied().unwrap_or(0);
    vec![Effect::ReadCall {
        title,
        from: ((first / every) * every, offset),
        pre,
        post,
    }]
}

fn copy(m: &mut Model, text: Option<String>, what: &str) -> Vec<Effect> {
    let text = match (&m.overlay, &m.detail) {
        (Overlay::Detail, Some(d)) => d.reason.clone().or(text),
        _ => text,
    };
    match text {
        Some(t) => {
            m.flash = Some(format!("copied {what}: {}", super::sanitize::clean(&t, 60)));
            vec![Effect::Copy(t)]
        }
        None => {
            m.flash = Some(format!(
                "nothing to copy: no {}",
                what.trim_start_matches("the ")
            ));
            Vec::new()
        }
    }
}

/// How far a scrolling key moves a popup (the `?` help, a call's detail) whose content scrolls
/// `max` rows at most; `None` for any other key.
fn popup_scroll(m: &Model, action: Option<Action>, max: usize) -> Option<i64> {
    let (max, page) = (max as i64, (m.size.1 / 2).max(1) as i64);
    Some(match action? {
        Action::Up => -1,
        Action::Down => 1,
        Action::PageUp => -page,
        Action::PageDown => page,
        Action::Top => -max,
        Action::Bottom => max,
        _ => return None,
    })
}

/// In a call's detail the scrolling keys scroll it, `y` copies its reason, `q` quits and any
/// other key closes it.
fn detail_key(m: &mut Model, action: Option<Action>) -> Vec<Effect> {
    let max = super::detail::max_scroll(m, m.size);
    if let Some(by) = popup_scroll(m, action, max) {
        m.scroll.detail = (m.scroll.detail as i64 + by).clamp(0, max as i64) as usize;
        return Vec::new();
    }
    match action {
        Some(Action::CopyNext | Action::CopyReason) => copy(m, None, "the call's reason"),
        Some(Action::Quit) => {
            m.quit = true;
            vec![Effect::Quit]
        }
        _ => {
            m.overlay = Overlay::None;
            m.detail = None;
            Vec::new()
        }
    }
}

/// The mouse, when the dashboard has it: on the dashboard only (a popup ignores it).
fn mouse(m: &mut Model, e: MouseEvent) -> Vec<Effect> {
    if !m.mouse || m.overlay != Overlay::None {
        return Vec::new();
    }
    if let Some(by) = select::mouse(m, e) {
        scroll(m, by);
    }
    Vec::new()
}

/// On the `?` screen the scrolling keys scroll it, `q` quits and any other key closes it.
fn help_key(m: &mut Model, action: Option<Action>) -> Vec<Effect> {
    let max = super::help::max_scroll(m, m.size);
    if let Some(by) = popup_scroll(m, action, max) {
        m.scroll.help = (m.scroll.help as i64 + by).clamp(0, max as i64) as usize;
        return Vec::new();
    }
    if action == Some(Action::Quit) {
        m.quit = true;
        return vec![Effect::Quit];
    }
    m.overlay = Overlay::None;
    m.scroll.help = 0;
    Vec::new()
}

/// Scroll the focused region: negative is up (older, for the timeline).
fn scroll(m: &mut Model, by: i64) {
    let s = &mut m.scroll;
    let slot = match m.focus {
        Focus::Statechart => &mut s.statechart,
        Focus::Tools => &mut s.tools,
        Focus::Recovery => &mut s.recovery,
        Focus::Deep => &mut s.deep,
        Focus::Timeline => {
            // The arrows move the pick; End follows the newest again.
            if by >= i64::MAX / 2 {
                select::unpick(m);
            } else {
                select::move_by(m, by);
            }
            return;
        }
    };
    *slot = (*slot as i64 + by).clamp(0, u16::MAX as i64) as usize;
}

fn filter_key(m: &mut Model, k: KeyEvent) {
    match k.code {
        KeyCode::Enter => m.filter.editing = false,
        KeyCode::Esc => {
            m.filter.editing = false;
            m.filter.text.clear();
            m.filter.reset(&m.rows);
        }
        KeyCode::Backspace => {
            m.filter.text.pop();
            m.filter.reset(&m.rows);
        }
        KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) && !c.is_control() => {
            m.filter.text.push(c);
            m.filter.reset(&m.rows);
        }
        _ => return,
    }
    m.scroll.timeline = 0;
}

fn sessions_key(
    m: &mut Model,
    k: KeyEvent,
    action: Option<Action>,
    selected: usize,
) -> Vec<Effect> {
    let order = session_order(&m.sessions);
    let n = order.len();
    match (k.code, action) {
        (KeyCode::Enter, _) => {
            m.overlay = Overlay::None;
            let Some(entry) = order.get(selected).and_then(|(_, i)| m.sessions.get(*i)) else {
                return Vec::new();
            };
            let (id, agent) = match (&entry.parent, entry.agent) {
                (Some(p), true) => (p.clone(), Some(entry.id.clone())),
                _ => (entry.id.clone(), None),
            };
            if id != m.session.id {
                return vec![Effect::SwitchSession { id, agent }];
            }
            // A subagent of the session already followed: show its lane.
            if let Some(a) = agent {
                m.filter.text = a;
                m.filter.reset(&m.rows);
                m.scroll.timeline = 0;
            }
        }
        (_, Some(Action::Quit)) => {
            m.quit = true;
            return vec![Effect::Quit];
        }
        (_, Some(Action::Close | Action::Sessions)) => m.overlay = Overlay::None,
        (_, Some(Action::Up)) => {
            m.overlay = Overlay::Sessions {
                selected: selected.saturating_sub(1),
            }
        }
        (_, Some(Action::Down)) => {
            m.overlay = Overlay::Sessions {
                selected: (selected + 1).min(n.saturating_sub(1)),
            }
        }
        _ => {}
    }
    Vec::new()
}

/// Sessions as a tree: each top-level session (most recent first) followed by its subagents.
/// Returns (depth, index into `list`).
pub fn session_order(list: &[SessionEntry]) -> Vec<(usize, usize)> {
    let is_top = |s: &SessionEntry| {
        s.parent
            .as_ref()
            .is_none_or(|p| !list.iter().any(|o| &o.id == p))
    };
    let mut top: Vec<usize> = (0..list.len()).filter(|&i| is_top(&list[i])).collect();
    top.sort_by_key(|&i| std::cmp::Reverse(list[i].modified));
    let mut out = Vec::new();
    for t in top {
        out.push((0, t));
        let mut kids: Vec<usize> = (0..list.len())
            .filter(|&i| list[i].parent.as_deref() == Some(list[t].id.as_str()))
            .collect();
        kids.sort_by_key(|&i| list[i].modified);
        out.extend(kids.into_iter().map(|k| (1, k)));
    }
    out
}

fn next_theme(current: &str, names: &[String]) -> Option<String> {
    if names.len() < 2 {
        return None;
    }
    let i = names.iter().position(|n| n == current).map_or(0, |i| i + 1);
    names.get(i % names.len()).cloned()
}
