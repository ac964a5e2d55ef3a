//! Lints on the chart's shape, with transitions that never fire left out: states that can never
//! be entered, dead ends, loops with no way out, and choices without branches or a default.

use std::collections::BTreeSet;

use super::Lint;
use super::flow::Dead;
use crate::engine::FxSet;
use crate::engine::ir::{CmpOp, Guard, StateId, StateKind, Trigger};
use crate::engine::machine::Machine;

impl Machine {
    /// Atomic successors including error and done edges, leaving out transitions that never
    /// fire (`dead`) and, with `shadowing`, those a deeper transition on the same trigger with
    /// no condition wins over (as the step does).
    fn all_edges_from(&self, u: StateId, dead: &[Option<Dead>], shadowing: bool) -> Vec<StateId> {
        let mut out = Vec::new();
        let mut taken: FxSet<&Trigger> = FxSet::default();
        for ti in self.transitions_for(u) {
            let t = &self.chart.transitions[ti];
            if dead[ti].is_some() || !self.may_fire_at(ti, u) {
                continue;
            }
            if let Trigger::Done(x) = t.trigger
                && !self.ends_composite(u, x)
            {
                continue;
            }
            if shadowing && taken.contains(&t.trigger) {
                continue;
            }
            if t.guard.is_none() {
                taken.insert(&t.trigger);
            }
            if t.targets.is_empty() {
                continue;
            }
            for s in self.entry_set(&t.targets, self.domain(ti)) {
                if self.chart.state(s).is_atomic_like() {
                    out.push(s);
                }
            }
        }
        out
    }

    pub(super) fn lint_reachability(&self, dead: &[Option<Dead>], out: &mut Vec<Lint>) {
        let seen = self.reachable_with(dead);
        // One finding per problem: a composite none of whose states can be entered (a
        // workflow node of several steps) is reported once, not once per state inside.
        let chart = &self.chart;
        let mut never = vec![false; chart.states.len()];
        for s in chart.states.iter().rev() {
            never[s.id.index()] = if s.is_atomic_like() {
                !seen.contains(&s.id)
            } else {
                s.id != StateId::ROOT
                    && !s.children.is_empty()
                    && s.children.iter().all(|c| never[c.index()])
            };
        }
        for s in &self.chart.states {
            let reported_above = s.parent.is_some_and(|p| never[p.index()]);
            // A composite is never entered when no way into it fires; a step when no walk
            // from the start reaches it. Said once, at the outermost such state.
            let unentered = if s.is_atomic_like() {
                !seen.contains(&s.id)
            } else {
                never[s.id.index()]
            };
            if unentered && !reported_above {
                let why = self
                    .unreachable_reason(s.id, dead)
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default();
                out.push(Lint::warning(
                    "unreachable",
                    format!("state `{}` can never be entered{why}", s.key),
                    s.span,
                ));
            }
            if unentered || !s.is_atomic_like() {
                continue;
            }
            if s.is_final() {
                continue;
            }
            if self.all_edges_from(s.id, dead, true).is_empty() && !self.is_monitor(s.id) {
                out.push(Lint::error(
                    "dead-end",
                    format!("state `{}` has no way out and is not an ending", s.key),
                    s.span,
                ));
            }
        }
    }

    /// Atomic states some path of transitions enters from the start.
    pub(crate) fn reachable_atomic(&self) -> BTreeSet<StateId> {
        self.reachable_with(&self.dead_transitions())
    }

    fn reachable_with(&self, dead: &[Option<Dead>]) -> BTreeSet<StateId> {
        // From the default entry, before eventless moves: settling with no facts would take one
        // branch of an initial choice on readers and call every other branch unreachable.
        let mut seen: BTreeSet<StateId> = self
            .entry_set(&[StateId::ROOT], None)
            .into_iter()
            .filter(|s| self.chart.state(*s).is_atomic_like())
            .collect();
        let mut stack: Vec<StateId> = seen.iter().copied().collect();
        while let Some(u) = stack.pop() {
            for e in self.all_edges_from(u, dead, true) {
                if seen.insert(e) {
                    stack.push(e);
                }
            }
        }
        seen
    }

    /// A loop (strongly connected set of atomic states) that no transition leaves and that
    /// holds no ending traps the agent forever.
    pub(super) fn lint_cycles(&self, dead: &[Option<Dead>], out: &mut Vec<Lint>) {
        // Kosaraju: petgraph's walk is iterative, so a 100k-state chain cannot overflow the stack.
        use petgraph::algo::kosaraju_scc;
        use petgraph::graph::DiGraph;
        let chart = &self.chart;
        let mut g: DiGraph<StateId, ()> = DiGraph::new();
        let nodes: Vec<_> = chart.states.iter().map(|s| g.add_node(s.id)).collect();
        let mut self_loop = vec![false; chart.states.len()];
        for s in chart.states.iter().filter(|s| s.is_atomic_like()) {
            for e in self.all_edges_from(s.id, dead, false) {
                if e == s.id {
                    self_loop[s.id.index()] = true;
                }
                // Parallel edges are harmless to the components, and merging them one by one
                // would search a step's edges again for each of its 100k ways out.
                g.add_edge(nodes[s.id.index()], nodes[e.index()], ());
            }
        }
        for comp in kosaraju_scc(&g) {
            let members: BTreeSet<StateId> = comp.iter().map(|n| g[*n]).collect();
            let Some(&first) = members.iter().next() else {
                continue;
            };
            let cyclic = members.len() > 1 || self_loop[first.index()];
            if !cyclic
                || self.is_monitor(first)
                || members.iter().any(|m| chart.state(*m).is_final())
            {
                continue;
            }
            let leaves = comp
                .iter()
                .any(|n| g.neighbors(*n).any(|x| !members.contains(&g[x])));
            if !leaves {
                // Name a few members: a one-line error, however large the trap.
                const SHOWN: usize = 8;
                let mut keys: Vec<String> = members
                    .iter()
                    .take(SHOWN)
                    .map(|x| chart.state(*x).key.clone())
                    .collect();
                if members.len() > SHOWN {
                    keys.push(format!("… ({} states in all)", members.len()));
                }
                out.push(Lint::error(
                    "cycle-without-exit",
                    format!("cycle with no exit to an ending: {}", keys.join(" → ")),
                    chart.state(first).span,
                ));
            }
        }
    }

    pub(super) fn lint_choices(&self, out: &mut Vec<Lint>) {
        for s in &self.chart.states {
            if !matches!(s.kind, StateKind::Choice) {
                continue;
            }
            let ts: Vec<_> = self.chart.transitions_from(s.id).collect();
            if ts.is_empty() {
                out.push(Lint::error(
                    "choice-without-branches",
                    format!("choice `{}` has no branches", s.key),
                    s.span,
                ));
            } else if !ts.iter().any(|(_, t)| t.guard.is_none())
                && !covers_every_case(ts.iter().filter_map(|(_, t)| t.guard.as_ref()))
            {
                out.push(Lint::warning(
                    "choice-without-default",
                    format!("choice `{}` has no default branch: when no guard holds it raises error.choice", s.key),
                    s.span,
                ));
            }
        }
    }
}

/// Atoms beyond this many are not enumerated (2^n cases): such a choice is not decided.
const MAX_ATOMS: usize = 12;

/// Whether some guard holds in every case, so the choice has a default in effect (`g` /
/// `!g`, `flag x` / `!flag x`, `x == v` / `x != v`). The guards' atoms (flags, comparisons,
/// `in`, readers, inputs) are taken as independent booleans: a case that no data can
/// produce only makes the answer no, so a yes is sound.
fn covers_every_case<'a>(guards: impl Iterator<Item = &'a Guard>) -> bool {
    let guards: Vec<&Guard> = guards.collect();
    let mut atoms: Vec<Guard> = Vec::new();
    for g in &guards {
        if !collect_atoms(g, &mut atoms) {
            return false;
        }
    }
    (0u32..1 << atoms.len()).all(|case| guards.iter().any(|g| holds(g, &atoms, case)))
}

/// Add `g`'s atoms to `atoms`; false when there are too many to enumerate.
fn collect_atoms(g: &Guard, atoms: &mut Vec<Guard>) -> bool {
    match g {
        Guard::True => true,
        Guard::All { of } | Guard::Any { of } => of.iter().all(|x| collect_atoms(x, atoms)),
        Guard::Not { guard } => collect_atoms(guard, atoms),
        _ => {
            let (a, _) = atom(g);
            if !atoms.contains(&a) {
                atoms.push(a);
            }
            atoms.len() <= MAX_ATOMS
        }
    }
}

/// `g` in the case whose bit `i` is the truth of `atoms[i]`.
fn holds(g: &Guard, atoms: &[Guard], case: u32) -> bool {
    match g {
        Guard::True => true,
        Guard::All { of } => of.iter().all(|x| holds(x, atoms, case)),
        Guard::Any { of } => of.iter().any(|x| holds(x, atoms, case)),
        Guard::Not { guard } => !holds(guard, atoms, case),
        _ => {
            let (a, negated) = atom(g);
            let i = atoms.iter().position(|x| *x == a).unwrap_or(0);
            ((case >> i) & 1 == 1) != negated
        }
    }
}

/// An atom as a positive one and whether it is negated: `!=` is exactly not `==` (see
/// `guard::compare`), and a length, always a number, is below `v` exactly when not `>= v`.
fn atom(g: &Guard) -> (Guard, bool) {
    match g {
        Guard::Var {
            name,
            op: CmpOp::Ne,
            value,
        } => (
            Guard::Var {
                name: name.clone(),
                op: CmpOp::Eq,
                value: value.clone(),
            },
            true,
        ),
        Guard::Reader {
            name,
            op: CmpOp::Ne,
            value,
        } => (
            Guard::Reader {
                name: name.clone(),
                op: CmpOp::Eq,
                value: value.clone(),
            },
            true,
        ),
        Guard::Count { name, op, value } if value.is_finite() => {
            let (op, negated) = match op {
                CmpOp::Lt => (CmpOp::Ge, true),
                CmpOp::Le => (CmpOp::Gt, true),
                CmpOp::Ne => (CmpOp::Eq, true),
                op => (*op, false),
            };
            (
                Guard::Count {
                    name: name.clone(),
                    op,
                    value: *value,
                },
                negated,
            )
        }
        g => (g.clone(), false),
    }
}
