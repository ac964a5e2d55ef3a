//! `seed validate`'s checks on the IR, shared by every dialect.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::ir::{Action, Guard, Span, StateId, StateKind, Trigger};
use super::machine::Machine;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
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
}

impl Lint {
    pub fn error(code: &str, message: impl Into<String>, span: Option<Span>) -> Lint {
        Lint {
            severity: Severity::Error,
            code: code.into(),
            message: message.into(),
            span,
        }
    }
    pub fn warning(code: &str, message: impl Into<String>, span: Option<Span>) -> Lint {
        Lint {
            severity: Severity::Warning,
            code: code.into(),
            message: message.into(),
            span,
        }
    }
}

impl Machine {
    pub fn lint(&self) -> Vec<Lint> {
        let mut out = Vec::new();
        self.lint_reachability(&mut out);
        self.lint_cycles(&mut out);
        self.lint_choices(&mut out);
        self.lint_tools(&mut out);
        self.lint_bands(&mut out);
        self.lint_guards(&mut out);
        out.sort_by_key(|l| std::cmp::Reverse(l.severity));
        out
    }

    /// Atomic successors including error and done edges.
    fn all_edges_from(&self, u: StateId) -> Vec<StateId> {
        let mut out = Vec::new();
        for ti in self.transitions_for(u) {
            let t = &self.chart.transitions[ti];
            if let Trigger::Done(x) = t.trigger {
                let st = self.chart.state(u);
                if !(st.is_final() && st.parent == Some(x)) {
                    continue;
                }
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

    fn lint_reachability(&self, out: &mut Vec<Lint>) {
        let seen = self.reachable_atomic();
        for s in &self.chart.states {
            if !s.is_atomic_like() {
                continue;
            }
            if !seen.contains(&s.id) {
                out.push(Lint::warning(
                    "unreachable",
                    format!("state `{}` can never be entered", s.key),
                    s.span,
                ));
                continue;
            }
            if s.is_final() {
                continue;
            }
            if self.all_edges_from(s.id).is_empty() {
                out.push(Lint::error(
                    "dead-end",
                    format!("state `{}` has no way out and is not an ending", s.key),
                    s.span,
                ));
            }
        }
    }

    fn reachable_atomic(&self) -> BTreeSet<StateId> {
        let start = self.start(&Default::default());
        let mut seen: BTreeSet<StateId> = self.atomic_active(&start).into_iter().collect();
        let mut stack: Vec<StateId> = seen.iter().copied().collect();
        while let Some(u) = stack.pop() {
            for e in self.all_edges_from(u) {
                if seen.insert(e) {
                    stack.push(e);
                }
            }
        }
        seen
    }

    fn lint_cycles(&self, out: &mut Vec<Lint>) {
        // Tarjan-free approach: a set of atomic states closed under successors, with no final
        // among them, is a trap. Check each state's forward closure.
        let atomics: Vec<StateId> = self
            .chart
            .states
            .iter()
            .filter(|s| s.is_atomic_like())
            .map(|s| s.id)
            .collect();
        let mut reported: BTreeSet<StateId> = BTreeSet::new();
        for &s in &atomics {
            if reported.contains(&s) || self.chart.state(s).is_final() {
                continue;
            }
            let mut seen = BTreeSet::from([s]);
            let mut stack = vec![s];
            let mut escapes = false;
            while let Some(u) = stack.pop() {
                let succ = self.all_edges_from(u);
                if self.chart.state(u).is_final() {
                    escapes = true;
                    break;
                }
                for e in succ {
                    if seen.insert(e) {
                        stack.push(e);
                    }
                }
            }
            // Only a real cycle counts: the start must be reachable from itself.
            let cyclic = self.all_edges_from(s).iter().any(|e| self.reaches(*e, s));
            if !escapes && cyclic && !self.is_monitor(s) {
                let members: Vec<String> = seen
                    .iter()
                    .map(|x| self.chart.state(*x).key.clone())
                    .collect();
                reported.extend(seen.iter().copied());
                out.push(Lint::error(
                    "cycle-without-exit",
                    format!("cycle with no exit to an ending: {}", members.join(" → ")),
                    self.chart.state(s).span,
                ));
            }
        }
    }

    fn reaches(&self, from: StateId, to: StateId) -> bool {
        let mut seen = BTreeSet::from([from]);
        let mut stack = vec![from];
        while let Some(u) = stack.pop() {
            if u == to {
                return true;
            }
            for e in self.all_edges_from(u) {
                if seen.insert(e) {
                    stack.push(e);
                }
            }
        }
        false
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
                let denied = st
                    .policy
                    .deny
                    .iter()
                    .any(|d| d.names_tool(&probe, &chart.aliases));
                let outside = !st.policy.allow.is_empty()
                    && !st
                        .policy
                        .allow
                        .iter()
                        .any(|a| a.names_tool(&probe, &chart.aliases))
                    && !chart
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
                    None,
                ));
            }
        }
        if bands[0].lo > 0.0 {
            out.push(Lint::error(
                "band-gap",
                format!("bands leave a gap: nothing covers [0, {}]", bands[0].lo),
                None,
            ));
        }
        for w in bands.windows(2) {
            if w[1].lo < w[0].hi {
                out.push(Lint::error(
                    "band-overlap",
                    format!("bands `{}` and `{}` overlap", w[0].name, w[1].name),
                    None,
                ));
            } else if w[1].lo > w[0].hi {
                out.push(Lint::error(
                    "band-gap",
                    format!(
                        "bands leave a gap between `{}` and `{}`: [{}, {}]",
                        w[0].name, w[1].name, w[0].hi, w[1].lo
                    ),
                    None,
                ));
            }
        }
        if let Some(last) = bands.last()
            && last.hi < 100.0
        {
            out.push(Lint::error(
                "band-gap",
                format!("bands leave a gap: nothing covers [{}, 100]", last.hi),
                None,
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
