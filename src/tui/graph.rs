//! The focused graph: only the children of the innermost active compound state, laid out by
//! `ascii-dag` (loops drawn as dashed back edges), the current node restyled in place from the
//! layout's node positions, and the view shifted so the current node stays on screen.

use ascii_dag::{Graph, RenderOptions};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use crate::engine::ir::Trigger;
use crate::engine::{Machine, Snapshot, StateId};

use super::common::{Chrome, frame, line, plain_if_ascii};
use super::model::{Focus, Model};
use super::sanitize;
use super::statechart::{Mark, is_current, mark};
use super::theme::{Role, Theme};

/// The focused graph in both charsets, laid out once per focus change (not per frame).
#[derive(Debug, Clone, PartialEq)]
pub struct Graphs {
    pub sequence: String,
    pub parent: StateId,
    pub unicode: Drawn,
    pub ascii: Drawn,
}

impl Graphs {
    /// Reuse `old` when it shows the same compound of the same sequence.
    pub fn update(old: Option<Graphs>, m: &Machine, snap: &Snapshot) -> Option<Graphs> {
        let parent = focus_state(m, snap)?;
        if let Some(g) = old
            && g.parent == parent
            && g.sequence == m.chart.name
        {
            return Some(g);
        }
        Some(Graphs {
            sequence: m.chart.name.clone(),
            parent,
            unicode: draw(m, parent, false),
            ascii: draw(m, parent, true),
        })
    }
}

/// A laid-out graph as text, with where each node landed.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    /// Label of the compound whose children are drawn.
    pub title: String,
    pub lines: Vec<String>,
    /// (state, x, y, width) in characters of `lines`.
    pub nodes: Vec<(StateId, usize, usize, usize)>,
}

/// The compound state to focus: the parent of the current step.
pub fn focus_state(m: &Machine, snap: &Snapshot) -> Option<StateId> {
    let cur = snap
        .active
        .iter()
        .copied()
        .find(|s| is_current(m, snap, *s))?;
    m.chart.state(cur).parent
}

/// The child of `ancestor` that contains `id`.
fn child_of(m: &Machine, ancestor: StateId, id: StateId) -> Option<StateId> {
    let mut cur = id;
    loop {
        let p = m.chart.state(cur).parent?;
        if p == ancestor {
            return Some(cur);
        }
        cur = p;
    }
}

/// Lay out the children of `parent` and the transitions between them.
pub fn draw(m: &Machine, parent: StateId, ascii: bool) -> Drawn {
    let kids = &m.chart.state(parent).children;
    let labels: Vec<String> = kids
        .iter()
        .map(|k| sanitize::clean(&m.chart.state(*k).label, 28))
        .collect();
    let mut g = Graph::new();
    for (i, l) in labels.iter().enumerate() {
        g.add_node(i, l.as_str());
    }
    let mut seen = std::collections::HashSet::new();
    for t in &m.chart.transitions {
        if matches!(t.trigger, Trigger::Error(_)) {
            continue;
        }
        let Some(a) = child_of(m, parent, t.source) else {
            continue;
        };
        for &target in &t.targets {
            let Some(b) = child_of(m, parent, target) else {
                continue;
            };
            let (Some(ia), Some(ib)) = (
                kids.iter().position(|k| *k == a),
                kids.iter().position(|k| *k == b),
            ) else {
                continue;
            };
            if seen.insert((ia, ib)) {
                g.add_edge(ia, ib, None);
            }
        }
    }
    let ir = g.compute_layout();
    let opts = if ascii {
        RenderOptions::ascii()
    } else {
        RenderOptions::plain()
    };
    let text = ir.render_string(&opts);
    let nodes = kids
        .iter()
        .enumerate()
        .filter_map(|(i, k)| ir.node_by_id(i).map(|n| (*k, n.x, n.y, n.width)))
        .collect();
    let title = if parent == StateId::ROOT {
        m.chart.name.clone()
    } else {
        m.chart.state(parent).label.clone()
    };
    Drawn {
        title: sanitize::clean(&title, 40),
        lines: text.lines().map(str::to_string).collect(),
        nodes,
    }
}

/// Rows the graph wants (its height), when it can be drawn.
pub fn wanted_rows(m: &Model) -> u16 {
    m.derived
        .graph
        .as_ref()
        .map_or(1, |g| g.unicode.lines.len() as u16)
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer, chrome: Chrome) {
    let focused = m.focus == Focus::Statechart;
    let ascii = theme.symbols.bar_full.is_ascii();
    let drawn = match (m.seq(), m.snapshot(), &m.derived.graph) {
        (Some(s), Some(snap), Some(g)) => {
            Some((if ascii { &g.ascii } else { &g.unicode }, &s.machine, snap))
        }
        _ => None,
    };
    let title = match &drawn {
        Some((d, ..)) => format!("graph {} {}", if ascii { ">" } else { "▸" }, d.title),
        None => "graph".to_string(),
    };
    let block = frame(
        line(title, theme.style(Role::Title)),
        focused,
        theme,
        chrome,
    );
    let inner = block.inner(area);
    block.render(area, buf);
    let Some((d, machine, snap)) = drawn else {
        let text = m.status().map_or("no sequence".to_string(), |s| {
            plain_if_ascii(theme, &s.breadcrumb)
        });
        Paragraph::new(line(text, theme.style(Role::Muted))).render(inner, buf);
        return;
    };
    // Shift the picture so the current node is inside the region.
    let cur = d
        .nodes
        .iter()
        .find(|(id, ..)| is_current(machine, snap, *id));
    let (w, h) = (inner.width as usize, inner.height as usize);
    let width = d.lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let (dx, dy) = match cur {
        Some(&(_, x, y, nw)) => (
            shift(x, nw, w, width),
            shift(y, 1, h, d.lines.len()) + m.scroll.statechart,
        ),
        None => (0, m.scroll.statechart),
    };
    let dy = dy.min(d.lines.len().saturating_sub(1));
    let lines: Vec<Line> = d
        .lines
        .iter()
        .skip(dy)
        .take(h)
        .map(|l| {
            line(
                l.chars().skip(dx).collect::<String>(),
                theme.style(Role::Muted),
            )
        })
        .collect();
    Paragraph::new(lines).render(inner, buf);
    for &(id, x, y, nw) in &d.nodes {
        let role = match (is_current(machine, snap, id), mark(machine, snap, id)) {
            (true, _) => Role::StatechartCurrent,
            (_, Mark::Active) => Role::Accent,
            (_, Mark::Done) => Role::StatechartDone,
            (_, Mark::Failed) => Role::StatechartFailed,
            (_, Mark::NotReached) => Role::StatechartNode,
        };
        if y < dy || y - dy >= h || x + nw <= dx {
            continue;
        }
        let x0 = x.saturating_sub(dx);
        let cut = dx.saturating_sub(x);
        let cells = (nw - cut).min(w.saturating_sub(x0));
        let r = Rect::new(
            inner.x + x0 as u16,
            inner.y + (y - dy) as u16,
            cells as u16,
            1,
        );
        buf.set_style(r, theme.style(role));
    }
}

/// Offset that brings `[pos, pos + len)` into a window of `view` cells out of `total`.
fn shift(pos: usize, len: usize, view: usize, total: usize) -> usize {
    if total <= view || pos + len <= view {
        return 0;
    }
    (pos + len / 2).saturating_sub(view / 2).min(total - view)
}
