//! Which states a transition leaves and enters: its domain, exit set and entry set (with
//! default completion of compound and parallel states), as SCXML defines them.

use std::collections::BTreeSet;

use super::ir::{StateId, StateKind};
use super::machine::Machine;
use super::snapshot::Snapshot;

impl Machine {
    /// The state whose descendants a transition exits: its least common compound ancestor, or
    /// the source itself when every target lies inside a compound source (no re-entry).
    pub fn domain(&self, ti: usize) -> Option<StateId> {
        let t = &self.chart.transitions[ti];
        if t.targets.is_empty() {
            return None;
        }
        let src = self.chart.state(t.source);
        if matches!(src.kind, StateKind::Compound { .. })
            && t.targets
                .iter()
                .all(|&x| x != t.source && self.chart.is_descendant_or_self(x, t.source))
        {
            return Some(t.source);
        }
        let mut cand = self.chart.state(t.source).parent;
        while let Some(c) = cand {
            let st = self.chart.state(c);
            let compound_like = c == StateId::ROOT || matches!(st.kind, StateKind::Compound { .. });
            if compound_like
                && t.targets
                    .iter()
                    .all(|&x| self.chart.is_descendant_or_self(x, c))
            {
                return Some(c);
            }
            cand = st.parent;
        }
        Some(StateId::ROOT)
    }

    pub(crate) fn exit_set(&self, snap: &Snapshot, ti: usize) -> BTreeSet<StateId> {
        match self.domain(ti) {
            None => BTreeSet::new(),
            Some(d) => snap
                .active
                .iter()
                .copied()
                .filter(|&s| s != d && self.chart.is_descendant_or_self(s, d))
                .collect(),
        }
    }

    /// States entered when `targets` are entered below `domain`, with default completion.
    pub(crate) fn entry_set(
        &self,
        targets: &[StateId],
        domain: Option<StateId>,
    ) -> BTreeSet<StateId> {
        let mut set = BTreeSet::new();
        for &t in targets {
            set.insert(t);
            for a in self.chart.ancestors(t) {
                if Some(a) == domain {
                    break;
                }
                set.insert(a);
            }
        }
        loop {
            let mut added = Vec::new();
            for &s in &set {
                let st = self.chart.state(s);
                match &st.kind {
                    StateKind::Compound { initial }
                        if !st.children.iter().any(|c| set.contains(c)) =>
                    {
                        added.push(*initial);
                    }
                    StateKind::Parallel => {
                        for c in &st.children {
                            if !set.contains(c) {
                                added.push(*c);
                            }
                        }
                    }
                    _ => {}
                }
            }
            if added.is_empty() {
                break;
            }
            set.extend(added);
        }
        set
    }
}
