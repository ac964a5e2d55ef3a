//! A chart compiled for stepping: candidate order per state and progress intervals, computed once.

use super::ir::{Chart, Trigger};
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
        let fingerprint = chart.fingerprint();
        Machine { chart, fingerprint, candidates, intervals }
    }
}
