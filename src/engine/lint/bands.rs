//! Lints on progress bands: a band with an empty or out-of-range span, gaps and overlaps
//! between bands, and what would make the bars jump or fall: a step counted in two bands, a
//! band with no step, and a move along the graph into a band that comes earlier.

use std::collections::HashMap;

use petgraph::algo::kosaraju_scc;
use petgraph::graph::DiGraph;

use super::Lint;
use crate::engine::ir::{StateId, Trigger};
use crate::engine::machine::Machine;
use crate::engine::progress::child_of;

impl Machine {
    pub(super) fn lint_bands(&self, out: &mut Vec<Lint>) {
        let mut bands: Vec<_> = self.chart.bands.iter().collect();
        if bands.is_empty() {
            return;
        }
        bands.sort_by(|a, b| a.lo.total_cmp(&b.lo));
        for b in &bands {
            if b.lo.partial_cmp(&b.hi) != Some(std::cmp::Ordering::Less)
                || b.lo < 0.0
                || b.hi > 100.0
            {
                out.push(Lint::error(
                    "band-range",
                    format!(
                        "band `{}` has an empty or out-of-range span [{}, {}]",
                        b.name, b.lo, b.hi
                    ),
                    b.span,
                ));
            }
        }
        if bands[0].lo > 0.0 {
            out.push(Lint::error(
                "band-gap",
                format!("bands leave a gap: nothing covers [0, {}]", bands[0].lo),
                bands[0].span,
            ));
        }
        for w in bands.windows(2) {
            if w[1].lo < w[0].hi {
                out.push(Lint::error(
                    "band-overlap",
                    format!("bands `{}` and `{}` overlap", w[0].name, w[1].name),
                    w[1].span,
                ));
            } else if w[1].lo > w[0].hi {
                out.push(Lint::error(
                    "band-gap",
                    format!(
                        "bands leave a gap between `{}` and `{}`: [{}, {}]",
                        w[0].name, w[1].name, w[0].hi, w[1].lo
                    ),
                    w[1].span,
                ));
            }
        }
        if let Some(last) = bands.last()
            && last.hi < 100.0
        {
            out.push(Lint::error(
                "band-gap",
                format!("bands leave a gap: nothing covers [{}, 100]", last.hi),
                last.span,
            ));
        }
    }

    pub(super) fn lint_band_steps(&self, out: &mut Vec<Lint>) {
        let chart = &self.chart;
        let mut owner: HashMap<StateId, usize> = HashMap::new();
        for (bi, band) in chart.bands.iter().enumerate() {
            if band.states.is_empty() {
                out.push(Lint::warning(
                    "band-empty",
                    format!(
                        "band `{}` holds no step: its bar stays empty until the sequence passes it, then fills at once",
                        band.name
                    ),
                    band.span,
                ));
            }
            for s in &band.states {
                match owner.insert(*s, bi) {
                    Some(prev) if prev != bi => out.push(Lint::error(
                        "band-duplicate-step",
                        format!(
                            "`{}` is in bands `{}` and `{}`: a step counts in one band only",
                            chart.state(*s).key,
                            chart.bands[prev].name,
                            band.name
                        ),
                        band.span,
                    )),
                    _ => {}
                }
            }
        }
        self.lint_band_order(&owner, out);
    }

    /// A transition that leaves a loop (or is in none) moves forward: its target's interval
    /// must not start before its source's ends, or the overall bar falls.
    fn lint_band_order(&self, owner: &HashMap<StateId, usize>, out: &mut Vec<Lint>) {
        let chart = &self.chart;
        // The compound whose children the bands pin (as progress computes it).
        let Some(parent) = chart
            .bands
            .iter()
            .flat_map(|b| b.states.first())
            .next()
            .and_then(|s| chart.state(*s).parent)
        else {
            return;
        };
        let kids = &chart.state(parent).children;
        let pos: HashMap<StateId, usize> = kids.iter().enumerate().map(|(i, k)| (*k, i)).collect();
        let mut g: DiGraph<usize, ()> = DiGraph::new();
        let nodes: Vec<_> = (0..kids.len()).map(|i| g.add_node(i)).collect();
        let mut edges = Vec::new();
        for t in &chart.transitions {
            if matches!(t.trigger, Trigger::Error(_))
                || t.guard.as_ref().is_some_and(|g| g.is_never())
            {
                continue;
            }
            let Some(from) = child_of(chart, parent, t.source) else {
                continue;
            };
            for &target in &t.targets {
                if let Some(to) = child_of(chart, parent, target).filter(|to| *to != from) {
                    g.add_edge(nodes[pos[&from]], nodes[pos[&to]], ());
                    edges.push((from, to, t.span));
                }
            }
        }
        let mut scc = vec![0usize; kids.len()];
        for (ci, comp) in kosaraju_scc(&g).into_iter().enumerate() {
            for n in comp {
                scc[g[n]] = ci;
            }
        }
        for (from, to, span) in edges {
            if scc[pos[&from]] == scc[pos[&to]] {
                continue;
            }
            let (_, ends) = self.interval(from);
            let (starts, _) = self.interval(to);
            if starts + 1e-9 >= ends {
                continue;
            }
            // Bands listed in path order that overlap: the fall is the overlap's, which
            // `band-overlap` reports; reordering would not help.
            if let (Some(&bf), Some(&bt)) = (owner.get(&from), owner.get(&to))
                && bf != bt
                && chart.bands[bt].lo >= chart.bands[bf].lo
            {
                continue;
            }
            let band = |s: StateId| {
                owner
                    .get(&s)
                    .map(|&b| format!(" (band `{}`)", chart.bands[b].name))
                    .unwrap_or_default()
            };
            out.push(Lint::error(
                "band-order",
                format!(
                    "`{}`{} leads on to `{}`{}, which sits earlier in the bands: progress would fall from {:.0}% to {:.0}%; list the bands in path order",
                    chart.state(from).key,
                    band(from),
                    chart.state(to).key,
                    band(to),
                    ends * 100.0,
                    starts * 100.0
                ),
                span.or_else(|| owner.get(&to).and_then(|&b| chart.bands[b].span)),
            ));
        }
    }
}
