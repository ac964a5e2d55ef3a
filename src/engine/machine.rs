//! A chart compiled for stepping: candidate order per state and progress intervals, computed once.

use super::ir::{Chart, StateId, StateKind, Trigger};
use super::progress::Intervals;

#[derive(Debug, Clone)]
pub struct Machine {
    pub chart: Chart,
    pub fingerprint: String,
    /// Per state: its transitions in candidate order — exact patterns first, then globs from
    /// the longest to the shortest, then the rest, each group in document order (XState).
    pub(crate) candidates: Vec<Vec<usize>>,
    pub(crate) intervals: Intervals,
}

impl Machine {
    pub fn new(chart: Chart) -> Machine {
        let fingerprint = chart.fingerprint();
        Machine::with_fingerprint(chart, fingerprint)
    }

    /// A machine whose chart fingerprint is already known (a host's compiled-chart cache saved
    /// it with the chart), skipping the serialization `new` does to compute it.
    pub fn with_fingerprint(chart: Chart, fingerprint: String) -> Machine {
        let mut candidates = vec![Vec::new(); chart.states.len()];
        for (i, t) in chart.transitions.iter().enumerate() {
            candidates[t.source.index()].push(i);
        }
        for list in &mut candidates {
            list.sort_by_key(|&i| {
                let rank = match &chart.transitions[i].trigger {
                    Trigger::Event(p) | Trigger::Error(p) if p.is_glob() => {
                        let len = p.alts.iter().map(|a| a.glob.len()).max().unwrap_or(0);
                        (1usize, usize::MAX - len)
                    }
                    _ => (0, 0),
                };
                (rank, i)
            });
        }
        let intervals = Intervals::compute(&chart);
        Machine {
            chart,
            fingerprint,
            candidates,
            intervals,
        }
    }
}

impl Machine {
    /// A state in a region of a parallel root that has no ending (seed 000's context region):
    /// it monitors deep state, it is not a step of the workflow.
    pub fn is_monitor(&self, id: StateId) -> bool {
        let chart = &self.chart;
        if !matches!(chart.root().kind, StateKind::Parallel) || id == StateId::ROOT {
            return false;
        }
        let mut region = id;
        while let Some(p) = chart.state(region).parent {
            if p == StateId::ROOT {
                break;
            }
            region = p;
        }
        !chart
            .states
            .iter()
            .any(|s| s.is_final() && chart.is_descendant_or_self(s.id, region))
    }
}
