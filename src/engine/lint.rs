//! `seed validate`'s checks on the IR, shared by every dialect.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::ir::{Action, Guard, Span, StateId, StateKind, Trigger};
use super::lint_flow::Dead;
use super::machine::Machine;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Warning,
    Error,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lint {
    pub severity: Severity,
    pub code: String,
    pub message: String,
    pub span: Option<Span>,
    /// The file `span` is in when it is not the loaded one (set by the host from
    /// `Chart::files`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl Lint {
    pub fn error(code: &str, message: impl Into<String>, span: Option<Span>) -> Lint {
        Lint {
            severity: Severity::Error,
            code: code.into(),
            message: message.into(),
            span,
            file: None,
        }
    }
    pub fn warning(code: &str, message: impl Into<String>, span: Option<Span>) -> Lint {
        Lint {
            severity: Severity::Warning,
            code: code.into(),
            message: message.into(),
            span,
            file: None,
        }
    }
}

impl Machine {
    pub fn lint(&self) -> Vec<Lint> {
        let mut out = Vec::new();
        let dead = self.dead_transitions();
        self.lint_reachability(&dead, &mut out);
        // A trap is a loop with no way out as drawn: a branch that is only shadowed is
        // reported as such (one finding per problem), not as a trap too.
        let unshadowed: Vec<Option<Dead>> = dead
            .iter()
            .map(|d| d.clone().filter(|d| !matches!(d, Dead::Shadowed { .. })))
            .collect();
        self.lint_cycles(&unshadowed, &mut out);
        self.lint_dead(&dead, &mut out);
        self.lint_choices(&mut out);
        self.lint_tools(&mut out);
        self.lint_bands(&mut out);
        self.lint_band_steps(&mut out);
        self.lint_guards(&mut out);
        self.lint_fills(&mut out);
        // One problem, one lint: a guard a dialect copies into several transitions (seed
        // 000's constraints negate every earlier `when`) is reported where it is first read.
        let mut seen = std::collections::HashSet::new();
        out.retain(|l| seen.insert((l.severity, l.code.clone(), l.message.clone())));
        out.sort_by_key(|l| std::cmp::Reverse(l.severity));
        out
    }

    /// A state's progress reads readers: both must be defined.
    fn lint_fills(&self, out: &mut Vec<Lint>) {
        for s in &self.chart.states {
            let Some(f) = &s.fill else { continue };
            for name in [&f.done, &f.total] {
                if self.chart.reader(name).is_none() {
                    out.push(Lint::error(
                        "undefined-reader",
                        format!(
                            "the progress of `{}` reads reader `{name}`, which is not defined",
                            s.key
                        ),
                        s.span,
                    ));
                }
            }
        }
    }

    /// Atomic successors including error and done edges, leaving out transitions that never
    /// fire (`dead`) and, with `shadowing`, those a deeper transition on the same trigger with
    /// no condition wins over (as the step does).
    fn all_edges_from(&self, u: StateId, dead: &[Option<Dead>], shadowing: bool) -> Vec<StateId> {
        let mut out = Vec::new();
        let mut taken: Vec<&Trigger> = Vec::new();
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
            if shadowing && taken.contains(&&t.trigger) {
                continue;
            }
            if t.guard.is_none() {
                taken.push(&t.trigger);
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

    fn lint_reachability(&self, dead: &[Option<Dead>], out: &mut Vec<Lint>) {
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
            if never[s.id.index()] && !s.is_atomic_like() && !reported_above {
                let why = self
                    .unreachable_reason(s.id, dead)
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default();
                out.push(Lint::warning(
                    "unreachable",
                    format!("state `{}` can never be entered{why}", s.key),
                    s.span,
                ));
                continue;
            }
            if !s.is_atomic_like() {
                continue;
            }
            if !seen.contains(&s.id) {
                if reported_above {
                    continue;
                }
                let why = self
                    .unreachable_reason(s.id, dead)
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default();
                out.push(Lint::warning(
                    "unreachable",
                    format!("state `{}` can never be entered{why}", s.key),
                    s.span,
                ));
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
    fn lint_cycles(&self, dead: &[Option<Dead>], out: &mut Vec<Lint>) {
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
                g.update_edge(nodes[s.id.index()], nodes[e.index()], ());
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

    fn lint_choices(&self, out: &mut Vec<Lint>) {
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
            } else if !ts
                .iter()
                .any(|(_, t)| t.guard.is_none() || t.guard == Some(Guard::True))
            {
                out.push(Lint::warning(
                    "choice-without-default",
                    format!("choice `{}` has no default branch: when no guard holds it raises error.choice", s.key),
                    s.span,
                ));
            }
        }
    }

    fn lint_tools(&self, out: &mut Vec<Lint>) {
        let chart = &self.chart;
        for t in &chart.transitions {
            let Trigger::Event(p) = &t.trigger else {
                continue;
            };
            let alt = &p.alts[0];
            if alt.kind.is_some_and(|k| !k.is_action()) {
                continue;
            }
            let probe = crate::engine::Event::new(
                alt.kind.unwrap_or(crate::engine::EventKind::Tool),
                alt.glob.clone(),
            );
            for sid in std::iter::once(t.source).chain(chart.ancestors(t.source)) {
                let st = chart.state(sid);
                // Only unconditional policies refuse a tool for good.
                let always = || st.all_policies().filter(|p| p.when.is_none());
                let denied = always()
                    .flat_map(|p| &p.deny)
                    .any(|d| d.names_tool(&probe, &chart.aliases));
                let outside = always().any(|p| {
                    !p.allow.is_empty()
                        && !p.allow.iter().any(|a| a.names_tool(&probe, &chart.aliases))
                }) && !chart
                    .neutral
                    .iter()
                    .any(|n| n.names_tool(&probe, &chart.aliases));
                if denied || outside {
                    out.push(Lint::error(
                        "tool-never-allowed",
                        format!(
                            "`{p}` leads out of `{}`, but `{}` {} it, so it can never be used",
                            chart.state(t.source).key,
                            st.key,
                            if denied { "denies" } else { "does not allow" }
                        ),
                        t.span,
                    ));
                    break;
                }
            }
        }
    }

    fn lint_bands(&self, out: &mut Vec<Lint>) {
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

    fn lint_guards(&self, out: &mut Vec<Lint>) {
        let chart = &self.chart;
        let mut flags: BTreeSet<String> = chart
            .vars
            .keys()
            .filter_map(|k| k.strip_prefix("flags."))
            .map(String::from)
            .collect();
        let mut vars: BTreeSet<String> = chart.vars.keys().cloned().collect();
        let actions = chart
            .transitions
            .iter()
            .flat_map(|t| t.actions.iter())
            .chain(chart.states.iter().flat_map(|s| s.on_entry.iter()));
        for a in actions {
            match a {
                Action::SetFlag { name, .. } => {
                    flags.insert(name.clone());
                }
                Action::SetVar { name, .. }
                | Action::SetVarFromInput { name, .. }
                | Action::SetVarFromResult { name, .. }
                | Action::AppendVar { name, .. }
                | Action::MergeVar { name, .. } => {
                    vars.insert(name.clone());
                }
                _ => {}
            }
        }
        for t in &chart.transitions {
            if let Some(g) = &t.guard {
                self.check_guard(g, &flags, &vars, t.span, out);
            }
        }
        // A policy's `when` reads the same data as a transition's guard.
        for s in &chart.states {
            for p in s.all_policies() {
                if let Some(g) = &p.when {
                    self.check_guard(g, &flags, &vars, p.span.or(s.span), out);
                }
            }
        }
    }

    fn check_guard(
        &self,
        g: &Guard,
        flags: &BTreeSet<String>,
        vars: &BTreeSet<String>,
        span: Option<Span>,
        out: &mut Vec<Lint>,
    ) {
        match g {
            Guard::All { of } | Guard::Any { of } => of
                .iter()
                .for_each(|g| self.check_guard(g, flags, vars, span, out)),
            Guard::Not { guard } => self.check_guard(guard, flags, vars, span, out),
            Guard::Flag { name } if !flags.contains(name) => {
                out.push(Lint::error(
                    "undefined-flag",
                    format!("guard reads flag `{name}`, which nothing sets or declares"),
                    span,
                ));
            }
            Guard::Var { name, .. } | Guard::Count { name, .. } => {
                let head = name.split('.').next().unwrap_or(name);
                if !vars.contains(name) && !vars.contains(head) {
                    out.push(Lint::error(
                        "undefined-var",
                        format!("guard reads `{name}`, which nothing sets or declares"),
                        span,
                    ));
                }
            }
            Guard::Reader { name, .. } | Guard::FileExists { reader: name }
                if self.chart.reader(name).is_none() =>
            {
                out.push(Lint::error(
                    "undefined-reader",
                    format!("guard reads reader `{name}`, which is not defined"),
                    span,
                ));
            }
            _ => {}
        }
    }
}
