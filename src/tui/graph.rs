//! The focused graph: only the children of the innermost active compound state, laid out by
//! `ascii-dag` (loops drawn as dashed back edges), the current node restyled in place from the
//! layout's node positions, and the view shifted so the current node stays on screen.

use ascii_dag::{Graph, RenderOptions};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;

use crate::engine::ir::Trigger;
use crate::engine::{Machine, Snapshot, StateId};

use super::common::{Chrome, glyphs, line, plain_if_ascii};
use super::model::{Focus, Model};
use super::pane::{self, Pane};
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

/// Longest node label (a longer one ends in `…`).
const LABEL_CHARS: usize = 30;

/// Lay out the children of `parent` and the transitions between them.
pub fn draw(m: &Machine, parent: StateId, ascii: bool) -> Drawn {
    let kids = &m.chart.state(parent).children;
    let labels: Vec<String> = kids
        .iter()
        .map(|k| {
            sanitize::clean(
                &super::common::as_called(&m.chart.state(*k).label),
                LABEL_CHARS,
            )
        })
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
    let Some((d, machine, snap)) = drawn else {
        let text = m.status().map_or("no sequence".to_string(), |s| {
            plain_if_ascii(theme, &s.breadcrumb)
        });
        let p = Pane::scrolled(
            line("graph", theme.style(Role::Title)),
            focused,
            vec![pane::note(&text, theme)],
            0,
            1,
        );
        pane::draw(p, area, buf, theme, chrome);
        return;
    };
    let inner = pane::inner(area, chrome);
    let cur = d
        .nodes
        .iter()
        .find(|(id, ..)| is_current(machine, snap, *id))
        .copied();
    let view = View::of(d, cur, inner, m.scroll.statechart);
    let title = format!(
        "graph {} {}",
        glyphs(theme).arrow,
        plain_if_ascii(theme, &d.title)
    );
    let rows: Vec<Line<'static>> = (view.dy..(view.dy + view.h).min(d.lines.len()))
        .map(|y| line(view.row(&d.lines[y]), theme.style(Role::Muted)))
        .collect();
    let p = Pane {
        title: line(title, theme.style(Role::Title)),
        focused,
        above: view.dy,
        below: d.lines.len().saturating_sub(view.dy + rows.len()),
        rows,
        highlight: None,
    };
    pane::draw(p, area, buf, theme, chrome);
    for &(id, x, y, nw) in &d.nodes {
        let current = cur.is_some_and(|c| c.0 == id);
        style_node(
            buf,
            theme,
            inner,
            &view,
            (x, y, nw),
            node_role(machine, snap, id, current),
        );
        if current {
            // Marked in text too, not only by colour: the active marker opens the node.
            view.put(
                buf,
                inner,
                (x, y),
                &theme.symbols.markers.active,
                theme.style(Role::StatechartCurrent),
            );
        }
    }
}

fn node_role(machine: &Machine, snap: &Snapshot, id: StateId, current: bool) -> Role {
    match (current, mark(machine, snap, id)) {
        (true, _) => Role::StatechartCurrent,
        (_, Mark::Active) => Role::Accent,
        (_, Mark::Done) => Role::StatechartDone,
        (_, Mark::Failed) => Role::StatechartFailed,
        (_, Mark::NotReached) => Role::StatechartNode,
    }
}

/// The part of the picture in view: `dx` columns and `dy` rows in, `w`×`h` cells.
struct View {
    dx: usize,
    dy: usize,
    w: usize,
    h: usize,
}

impl View {
    /// Centred on the current node when the picture is wider or taller than the region (the
    /// rows scrolled by `scroll` below that).
    fn of(
        d: &Drawn,
        cur: Option<(StateId, usize, usize, usize)>,
        inner: Rect,
        scroll: usize,
    ) -> View {
        let (w, h) = (inner.width as usize, inner.height as usize);
        let width = d.lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let (dx, dy) = match cur {
            Some((_, x, y, nw)) => (shift(x, nw, w, width), shift(y, 1, h, d.lines.len())),
            None => (0, 0),
        };
        let dy = (dy + scroll).min(d.lines.len().saturating_sub(h.max(1)));
        View { dx, dy, w, h }
    }

    /// One row of the picture in view; a row cut on the left or the right says so with `…`.
    fn row(&self, full: &str) -> String {
        let chars: Vec<char> = full.chars().collect();
        let end = (self.dx + self.w).min(chars.len());
        let mut shown: Vec<char> = chars
            .get(self.dx..end)
            .map(<[char]>::to_vec)
            .unwrap_or_default();
        let drawn = |c: &char| !c.is_whitespace();
        if self.dx > 0 && chars[..self.dx.min(chars.len())].iter().any(drawn) && !shown.is_empty() {
            shown[0] = '…';
        }
        if chars.len() > end && chars[end..].iter().any(drawn) && !shown.is_empty() {
            let last = shown.len() - 1;
            shown[last] = '…';
        }
        shown.into_iter().collect()
    }

    /// Where picture cell (`x`, `y`) is on screen, if in view.
    fn cell(&self, inner: Rect, (x, y): (usize, usize)) -> Option<(u16, u16)> {
        let inside = x >= self.dx && x < self.dx + self.w && y >= self.dy && y < self.dy + self.h;
        inside.then(|| {
            (
                inner.x + (x - self.dx) as u16,
                inner.y + (y - self.dy) as u16,
            )
        })
    }

    fn put(&self, buf: &mut Buffer, inner: Rect, at: (usize, usize), symbol: &str, style: Style) {
        if let Some(c) = self.cell(inner, at) {
            buf[c].set_symbol(symbol).set_style(style);
        }
    }
}

/// Colour a node's cells that are in view.
fn style_node(
    buf: &mut Buffer,
    theme: &Theme,
    inner: Rect,
    view: &View,
    (x, y, nw): (usize, usize, usize),
    role: Role,
) {
    for cx in x..x + nw {
        if let Some(c) = view.cell(inner, (cx, y)) {
            buf[c].set_style(theme.style(role));
        }
    }
}

/// Offset that brings `[pos, pos + len)` into a window of `view` cells out of `total`.
fn shift(pos: usize, len: usize, view: usize, total: usize) -> usize {
    if total <= view || pos + len <= view {
        return 0;
    }
    (pos + len / 2).saturating_sub(view / 2).min(total - view)
}
