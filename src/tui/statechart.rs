//! The statechart as an outline tree (the main view): breadcrumbs on top, one line per state with
//! a marker (● active, ✓ done, ○ not reached, ✗ failed, ◆ choice, ‖ parallel, ↺ in a loop), the
//! current step highlighted and kept in view. `g` swaps in the focused graph ([`super::graph`]).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::engine::EventKind;
use crate::engine::ir::{Outcome, StateKind, Trigger};
use crate::engine::wording::position;
use crate::engine::{Machine, Snapshot, StateId};

use super::common::{Chrome, Glyphs, as_called, glyphs, line, plain_if_ascii};
use super::model::{Focus, Model};
use super::pane::{self, Pane};
use super::sanitize;
use super::theme::{Role, Theme};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Active,
    Done,
    NotReached,
    Failed,
}

/// One line of the outline.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeLine {
    pub id: StateId,
    pub guides: String,
    pub mark: Mark,
    pub label: String,
    /// The label names the tool call that leads into the step (a railroad's step): it is
    /// spelled as the agent calls it.
    pub names_call: bool,
    /// The step the agent is on (an active atomic state outside monitor regions).
    pub current: bool,
    pub choice: bool,
    pub parallel: bool,
    pub in_loop: bool,
    pub hint: String,
}

pub fn mark(machine: &Machine, snap: &Snapshot, id: StateId) -> Mark {
    let st = machine.chart.state(id);
    let failed_end = matches!(
        st.kind,
        StateKind::Final {
            outcome: Outcome::Error,
            ..
        }
    );
    if snap.failed == Some(id) || (failed_end && snap.is_active(id)) {
        Mark::Failed
    } else if snap.is_active(id) {
        Mark::Active
    } else if snap.visited.contains(&id) {
        Mark::Done
    } else {
        Mark::NotReached
    }
}

pub fn is_current(machine: &Machine, snap: &Snapshot, id: StateId) -> bool {
    snap.is_active(id) && machine.chart.state(id).is_atomic_like() && !machine.is_monitor(id)
}

/// The outline of the whole chart, in document order; once the sequence has `ended`, the steps
/// of each level it never reached (branches not taken) are grouped after the ones it took.
pub fn outline(
    machine: &Machine,
    snap: &Snapshot,
    next: Option<&str>,
    g: &Glyphs,
    ended: bool,
) -> Vec<TreeLine> {
    let mut w = Walk {
        m: machine,
        snap,
        next,
        g,
        ended,
        out: Vec::new(),
    };
    w.children(StateId::ROOT, "");
    w.out
}

/// What the outline's walk reads, and the lines it writes.
struct Walk<'a> {
    m: &'a Machine,
    snap: &'a Snapshot,
    next: Option<&'a str>,
    g: &'a Glyphs,
    ended: bool,
    out: Vec<TreeLine>,
}

impl Walk<'_> {
    /// The children of `id`, in document order (untaken ones last once the sequence ended).
    fn children(&mut self, id: StateId, indent: &str) {
        let mut kids = self.m.chart.state(id).children.clone();
        if self.ended {
            kids.sort_by_key(|k| mark(self.m, self.snap, *k) == Mark::NotReached);
        }
        let n = kids.len();
        for (i, c) in kids.into_iter().enumerate() {
            self.state(c, indent, i + 1 == n);
        }
    }

    fn state(&mut self, id: StateId, indent: &str, last: bool) {
        let (m, snap, g) = (self.m, self.snap, self.g);
        let st = m.chart.state(id);
        let current = is_current(m, snap, id);
        // A step named after its call (the master dialect's `giint.respond`) needs no hint;
        // others show the call as the agent makes it, with the session's values.
        let named_so = st
            .activity
            .as_ref()
            .is_some_and(|a| [&st.label, &st.name].contains(&&a.to_string()));
        let activity = match named_so {
            true => String::new(),
            false => m.activity_call(id, Some(snap)).unwrap_or_default(),
        };
        let hint = match (current, self.next) {
            (true, Some(n)) => format!("next: {n}"),
            _ if !activity.is_empty() && activity != st.label && activity != st.name => activity,
            _ => String::new(),
        };
        self.out.push(TreeLine {
            id,
            guides: format!("{indent}{}", if last { g.last } else { g.branch }),
            mark: mark(m, snap, id),
            label: sanitize::clean(&st.label, 60),
            names_call: names_call(m, id, &st.label),
            current,
            choice: matches!(st.kind, StateKind::Choice),
            parallel: matches!(st.kind, StateKind::Parallel),
            in_loop: snap.is_active(id)
                && m.intervals
                    .in_loop
                    .get(id.index())
                    .copied()
                    .unwrap_or(false),
            hint: sanitize::clean(&hint, 60),
        });
        let child_indent = format!("{indent}{}", if last { g.blank } else { g.pipe });
        self.children(id, &child_indent);
    }
}

/// The current step, spelled as the agent calls it when it is named after a call.
fn step_as_called(st: &crate::engine::Status) -> String {
    match st.step_is_call {
        true => as_called(&st.step),
        false => st.step.clone(),
    }
}

/// A transition into `id` is triggered by a call of the tool `label` names.
fn names_call(m: &Machine, id: StateId, label: &str) -> bool {
    m.chart.transitions.iter().any(|t| {
        t.targets.contains(&id)
            && match &t.trigger {
                Trigger::Event(p) => p
                    .alts
                    .iter()
                    .any(|a| a.glob == label && matches!(a.kind, None | Some(EventKind::Tool))),
                _ => false,
            }
    })
}

/// Content rows the full outline takes (breadcrumb included).
pub fn wanted_rows(m: &Model) -> u16 {
    m.seq().map_or(1, |s| s.machine.chart.states.len() as u16)
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer, chrome: Chrome) {
    let focused = m.focus == Focus::Statechart;
    // Where the agent is, worded as the CLI and the guidance line word it: a railroad's step
    // is the last call made, not the next one.
    let title = match m.status() {
        Some(st) => format!(
            "statechart {} {}",
            glyphs(theme).dot,
            sanitize::clean(&position(&step_as_called(st), st.step_is_call), 80)
        ),
        None => "statechart".to_string(),
    };
    let title = line(plain_if_ascii(theme, &title), theme.style(Role::Title));
    let inner = pane::inner(area, chrome);
    let (Some(seq), Some(snap), Some(st)) = (m.seq(), m.snapshot(), m.status()) else {
        let p = Pane::scrolled(
            title,
            focused,
            vec![line("no sequence", theme.style(Role::Muted))],
            0,
            1,
        );
        pane::draw(p, area, buf, theme, chrome);
        return;
    };
    let g = glyphs(theme);
    // The next call as the agent makes it (`Skill(skill="hope:consult")`, `mcp__s__t`).
    let next = st.next.as_ref().map(|n| n.tool.as_str());
    // Once the sequence has ended, a step it never reached was a branch not taken, not work
    // left: it gets its own mark, said on the breadcrumb row.
    let ended = st.progress.done || st.progress.ended.is_some();
    let tree = outline(&seq.machine, snap, next, &g, ended);
    // The header already names the sequence; the path below it is what matters.
    let name = &seq.machine.chart.name;
    let crumb = st
        .breadcrumb
        .strip_prefix(name.as_str())
        .map_or(st.breadcrumb.as_str(), |r| r.trim_start_matches([' ', '▸']));
    let crumb = match st.step_is_call {
        true => crumb.replace(st.step.as_str(), &step_as_called(st)),
        false => crumb.to_string(),
    };
    let crumb = plain_if_ascii(theme, &crumb);
    let mut lines = vec![Line::from(vec![
        Span::styled(
            match ended {
                true => format!("{} not taken  ", theme.symbols.markers.skipped),
                false => String::new(),
            },
            theme.style(Role::Muted),
        ),
        Span::styled(crumb, theme.style(Role::Accent)),
    ])];
    let h = inner.height.saturating_sub(1) as usize;
    let cur = tree.iter().position(|l| l.current).unwrap_or(0);
    let auto = if cur < h * 2 / 3 { 0 } else { cur - h / 3 };
    let top = (auto + m.scroll.statechart).min(tree.len().saturating_sub(h));
    let mut current_row = None;
    for l in tree.iter().skip(top).take(h) {
        if l.current {
            current_row = Some(lines.len());
        }
        lines.push(tree_line(l, theme, ended));
    }
    // The frame says how many steps lie above and below the rows shown.
    let below = tree.len().saturating_sub(top + lines.len() - 1);
    let p = Pane {
        title,
        focused,
        rows: lines,
        above: top,
        below,
        highlight: None,
    };
    pane::draw(p, area, buf, theme, chrome);
    // The current step's whole row is highlighted, so it reads at a glance.
    if let Some(r) = current_row {
        let row = Rect::new(inner.x, inner.y + r as u16, inner.width, 1);
        if row.y < inner.y + inner.height {
            let start = tree
                .get(top + r - 1)
                .map_or(0, |l| l.guides.chars().count() as u16);
            let hl = Rect::new(
                row.x + start.min(row.width),
                row.y,
                row.width.saturating_sub(start),
                1,
            );
            buf.set_style(hl, theme.style(Role::StatechartCurrent));
        }
    }
}

fn tree_line(l: &TreeLine, theme: &Theme, ended: bool) -> Line<'static> {
    let mk = &theme.symbols.markers;
    let (sym, role) = match l.mark {
        Mark::NotReached if ended => (mk.skipped.clone(), Role::Muted),
        Mark::Active if l.current => (mk.active.clone(), Role::StatechartCurrent),
        Mark::Active => (mk.active.clone(), Role::Accent),
        Mark::Done => (mk.done.clone(), Role::StatechartDone),
        Mark::NotReached => (mk.not_reached.clone(), Role::StatechartNode),
        Mark::Failed => (mk.failed.clone(), Role::StatechartFailed),
    };
    let label_role = match l.mark {
        Mark::Active if l.current => Role::StatechartCurrent,
        Mark::Active => Role::Accent,
        Mark::Done => Role::StatechartDone,
        Mark::Failed => Role::StatechartFailed,
        Mark::NotReached => Role::StatechartNode,
    };
    let mut spans = vec![
        Span::styled(l.guides.clone(), theme.style(Role::Muted)),
        Span::styled(format!("{sym} "), theme.style(role)),
    ];
    if l.choice {
        spans.push(Span::styled(
            format!("{} ", mk.choice),
            theme.style(Role::StatechartChoice),
        ));
    }
    let label = match l.names_call {
        true => as_called(&l.label),
        false => l.label.clone(),
    };
    spans.push(Span::styled(label, theme.style(label_role)));
    if l.parallel {
        spans.push(Span::styled(
            format!(" {}", mk.parallel),
            theme.style(Role::StatechartParallel),
        ));
    }
    if l.in_loop {
        spans.push(Span::styled(
            format!(" {}", mk.loop_),
            theme.style(Role::ProgressLoop),
        ));
    }
    if !l.hint.is_empty() {
        spans.push(Span::styled(
            format!("  {}", l.hint),
            theme.style(Role::Muted),
        ));
    }
    Line::from(spans)
}
