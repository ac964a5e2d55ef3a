//! The chart's progress layout, computed once per chart: each state's interval inside its
//! parent from the longest weighted path over its siblings (loops collapsed), band members
//! placed inside their bands, and the weight each state counts for.

use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use serde::{Deserialize, Serialize};

use crate::engine::FxMap;
use crate::engine::ir::{Chart, StateId, StateKind, Trigger};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Intervals {
    /// Per state: its interval inside its parent, in [0, 1].
    pub span: Vec<(f64, f64)>,
    /// Per state: member of a loop (a strongly connected component with more than one member).
    pub in_loop: Vec<bool>,
    /// Per state: the weight it counts for.
    pub weight: Vec<f64>,
}

fn effective_weight(chart: &Chart, id: StateId) -> f64 {
    let s = chart.state(id);
    match s.kind {
        // A railroad ending is the last tool's own step: it counts like the steps before it
        // (a chain of n tools is k of n). Other endings are reached, not done.
        StateKind::Final { .. } if s.complete_on_entry => s.weight.max(0.0),
        StateKind::Choice | StateKind::Final { .. } => 0.0,
        StateKind::Atomic => s.weight.max(0.0),
        StateKind::Compound { .. } | StateKind::Parallel => {
            let sum: f64 = s.children.iter().map(|c| effective_weight(chart, *c)).sum();
            sum.max(if s.weight > 0.0 { 1.0 } else { 0.0 })
        }
    }
}

/// States the sequence pins inside their parent (`State::share`) take that interval.
fn pin_shares(chart: &Chart, kids: &[StateId], span: &mut [(f64, f64)]) {
    for k in kids {
        if let Some([lo, hi]) = chart.state(*k).share {
            span[k.index()] = ((lo / 100.0).clamp(0.0, 1.0), (hi / 100.0).clamp(0.0, 1.0));
        }
    }
}

/// The child of `ancestor` that contains `id`.
pub(in crate::engine) fn child_of(
    chart: &Chart,
    ancestor: StateId,
    id: StateId,
) -> Option<StateId> {
    let mut cur = id;
    loop {
        let p = chart.state(cur).parent?;
        if p == ancestor {
            return Some(cur);
        }
        cur = p;
    }
}

/// Longest weighted path ranks over a DAG of condensed components. Returns, per node, its
/// component's rank and weight (members of a loop share one interval) and whether it loops.
/// Linear in nodes and edges: a step with 100k ways out is one hub, and a condensation that
/// merged its parallel edges one at a time would search the hub's edges for each.
fn ranks(
    nodes: &[StateId],
    edges: &[(usize, usize)],
    weight: &[f64],
) -> (Vec<f64>, Vec<f64>, Vec<bool>) {
    let mut g: DiGraph<usize, ()> = DiGraph::with_capacity(nodes.len(), edges.len());
    let idx: Vec<NodeIndex> = (0..nodes.len()).map(|i| g.add_node(i)).collect();
    let mut self_loop = vec![false; nodes.len()];
    for &(a, b) in edges {
        if a != b {
            g.add_edge(idx[a], idx[b], ());
        } else {
            self_loop[a] = true;
        }
    }
    // Components in reverse topological order (Kosaraju: an iterative walk, so a 100k-step
    // chain cannot overflow the stack).
    let mut comps = kosaraju_scc(&g);
    comps.reverse();
    let mut comp_of = vec![0usize; nodes.len()];
    let mut comp_w = vec![0.0; comps.len()];
    let mut in_loop = vec![false; nodes.len()];
    for (ci, members) in comps.iter().enumerate() {
        for m in members {
            let m = m.index();
            comp_of[m] = ci;
            comp_w[ci] += weight[m];
            in_loop[m] = members.len() > 1 || self_loop[m];
        }
    }
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); comps.len()];
    for &(a, b) in edges {
        let (ca, cb) = (comp_of[a], comp_of[b]);
        if ca != cb {
            out[ca].push(cb);
        }
    }
    let mut rank = vec![0.0f64; comps.len()];
    for ci in 0..comps.len() {
        let cand = rank[ci] + comp_w[ci];
        for &next in &out[ci] {
            if cand > rank[next] {
                rank[next] = cand;
            }
        }
    }
    let node_rank = (0..nodes.len()).map(|i| rank[comp_of[i]]).collect();
    let node_w = (0..nodes.len()).map(|i| comp_w[comp_of[i]]).collect();
    (node_rank, node_w, in_loop)
}

/// Per compound state, the moves between its children, in document order: `(from, to)` for
/// each transition target where both the source and the target lie inside it. A transition
/// counts at every common ancestor of its source and target (walked once, from their nearest
/// common one up), not by scanning every transition for every compound.
fn child_edges(chart: &Chart) -> FxMap<StateId, Vec<(StateId, StateId)>> {
    let mut by_parent: FxMap<StateId, Vec<(StateId, StateId)>> = FxMap::default();
    let mut below: FxMap<StateId, StateId> = FxMap::default();
    for t in &chart.transitions {
        // Failures are not progress; an edge that never fires makes no loop.
        if matches!(t.trigger, Trigger::Error(_)) || t.guard.as_ref().is_some_and(|g| g.is_never())
        {
            continue;
        }
        // Each ancestor of the source, with the child of it that holds the source.
        below.clear();
        let mut child = t.source;
        for a in chart.ancestors(t.source) {
            below.insert(a, child);
            child = a;
        }
        for &target in &t.targets {
            let mut to = target;
            for a in chart.ancestors(target) {
                if let Some(&from) = below.get(&a) {
                    // A move between descendants of one child is no loop at this level.
                    if !(from == to && t.source != from && target != from) {
                        by_parent.entry(a).or_default().push((from, to));
                    }
                }
                to = a;
            }
        }
    }
    by_parent
}

impl Intervals {
    pub fn compute(chart: &Chart) -> Intervals {
        let n = chart.states.len();
        let weight: Vec<f64> = (0..n)
            .map(|i| effective_weight(chart, StateId(i as u32)))
            .collect();
        let mut span = vec![(0.0, 1.0); n];
        let mut in_loop = vec![false; n];
        let banded_parent = chart
            .bands
            .iter()
            .flat_map(|b| b.states.first())
            .next()
            .and_then(|s| chart.state(*s).parent);

        let moves = child_edges(chart);
        for parent in &chart.states {
            if !matches!(parent.kind, StateKind::Compound { .. }) || parent.children.is_empty() {
                continue;
            }
            let kids = &parent.children;
            let pos: FxMap<StateId, usize> =
                kids.iter().enumerate().map(|(i, k)| (*k, i)).collect();
            let edges: Vec<(usize, usize)> = moves
                .get(&parent.id)
                .into_iter()
                .flatten()
                .filter_map(|(a, b)| Some((*pos.get(a)?, *pos.get(b)?)))
                .collect();
            let mut own: Vec<f64> = kids.iter().map(|k| weight[k.index()]).collect();
            // Weights that are all zero say nothing about the steps' sizes: count them equally,
            // else every step spans nothing and progress stays at 0 until the ending.
            if own.iter().sum::<f64>() <= 0.0 {
                for (w, k) in own.iter_mut().zip(kids) {
                    if !chart.state(*k).is_final() && !chart.state(*k).is_pseudo() {
                        *w = 1.0;
                    }
                }
            }
            let (rank, w, looped) = ranks(kids, &edges, &own);
            for (i, k) in kids.iter().enumerate() {
                in_loop[k.index()] = looped[i];
            }
            if Some(parent.id) == banded_parent {
                Self::banded(chart, kids, &edges, &w, &rank, &mut span);
                pin_shares(chart, kids, &mut span);
                continue;
            }
            let finals: Vec<usize> = (0..kids.len())
                .filter(|&i| chart.state(kids[i]).is_final())
                .collect();
            let mut total = finals.iter().map(|&i| rank[i] + w[i]).fold(0.0, f64::max);
            if total <= 0.0 {
                total = (0..kids.len()).map(|i| rank[i] + w[i]).fold(0.0, f64::max);
            }
            if total <= 0.0 {
                total = 1.0;
            }
            for (i, k) in kids.iter().enumerate() {
                span[k.index()] = if chart.state(*k).is_final() {
                    (1.0, 1.0)
                } else {
                    (
                        (rank[i] / total).min(1.0),
                        ((rank[i] + w[i]) / total).min(1.0),
                    )
                };
            }
            pin_shares(chart, kids, &mut span);
        }
        Intervals {
            span,
            in_loop,
            weight,
        }
    }

    /// Children of the banded compound: band members fill their band by local rank; the rest
    /// sit at the end of the bands that lead to them.
    fn banded(
        chart: &Chart,
        kids: &[StateId],
        edges: &[(usize, usize)],
        w: &[f64],
        rank: &[f64],
        span: &mut [(f64, f64)],
    ) {
        let pos: FxMap<StateId, usize> = kids.iter().enumerate().map(|(i, k)| (*k, i)).collect();
        let mut band_of: Vec<Option<usize>> = vec![None; kids.len()];
        for (bi, b) in chart.bands.iter().enumerate() {
            for s in &b.states {
                if let Some(&i) = pos.get(s) {
                    band_of[i] = Some(bi);
                }
            }
        }
        // Each band's members (in child order), each child's place among them, and the
        // edges inside each band: one pass over children and edges for all bands.
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); chart.bands.len()];
        let mut local = vec![0usize; kids.len()];
        for (i, b) in band_of.iter().enumerate() {
            if let Some(bi) = b {
                local[i] = members[*bi].len();
                members[*bi].push(i);
            }
        }
        let mut local_edges: Vec<Vec<(usize, usize)>> = vec![Vec::new(); chart.bands.len()];
        for &(a, b) in edges {
            if let (Some(ba), Some(bb)) = (band_of[a], band_of[b])
                && ba == bb
            {
                local_edges[ba].push((local[a], local[b]));
            }
        }
        for (bi, band) in chart.bands.iter().enumerate() {
            let members = &members[bi];
            if members.is_empty() {
                continue;
            }
            let local_edges = &local_edges[bi];
            let own: Vec<f64> = members.iter().map(|&m| w[m]).collect();
            let ids: Vec<StateId> = members.iter().map(|&m| kids[m]).collect();
            let (lr, lw, _) = ranks(&ids, local_edges, &own);
            // What is left after each member: its rank on the reversed graph. A step's branch
            // fills the band on its own (k of n along it), so a short subchain beside a long
            // one is not stuck in the band's first part.
            let reversed: Vec<(usize, usize)> = local_edges.iter().map(|&(a, b)| (b, a)).collect();
            let (rest, _, _) = ranks(&ids, &reversed, &own);
            let (lo, hi) = (band.lo / 100.0, band.hi / 100.0);
            for (li, &m) in members.iter().enumerate() {
                if chart.state(kids[m]).is_final() {
                    // Reaching an ending finishes the sequence, whatever branch it ends.
                    span[kids[m].index()] = (1.0, 1.0);
                    continue;
                }
                let total = (lr[li] + lw[li] + rest[li]).max(1e-9);
                let a = lo + (hi - lo) * (lr[li] / total);
                let b = lo + (hi - lo) * ((lr[li] + lw[li]) / total);
                span[kids[m].index()] = (a.min(1.0), b.min(1.0));
            }
        }
        // Unbanded children: finals are done; others sit where their best predecessor ends.
        let mut order: Vec<usize> = (0..kids.len()).collect();
        order.sort_by(|a, b| rank[*a].total_cmp(&rank[*b]));
        let floor = chart
            .bands
            .iter()
            .map(|b| b.lo / 100.0)
            .fold(f64::INFINITY, f64::min);
        let floor = if floor.is_finite() { floor } else { 0.0 };
        let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); kids.len()];
        for &(a, b) in edges {
            if a != b {
                incoming[b].push(a);
            }
        }
        for i in order {
            if band_of[i].is_some() {
                continue;
            }
            let k = kids[i];
            if chart.state(k).is_final() {
                span[k.index()] = (1.0, 1.0);
                continue;
            }
            let best = incoming[i]
                .iter()
                .map(|&a| span[kids[a].index()].1)
                .fold(floor, f64::max);
            span[k.index()] = (best, best);
        }
    }
}
