//! Lints on the names a chart reads: a guard or a policy's `when` reading a flag, variable or
//! reader that nothing sets or declares, and a state's progress reading an undefined reader.

use std::collections::BTreeSet;

use super::Lint;
use crate::engine::ir::{Action, Guard, Span};
use crate::engine::machine::Machine;

impl Machine {
    /// A state's progress reads readers: both must be defined.
    pub(super) fn lint_fills(&self, out: &mut Vec<Lint>) {
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

    pub(super) fn lint_guards(&self, out: &mut Vec<Lint>) {
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
                | Action::MergeVar { name, .. }
                | Action::CountVar { name, .. }
                | Action::Remember { name, .. } => {
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
            Guard::Var { name, .. }
            | Guard::Count { name, .. }
            | Guard::InList { var: name, .. } => {
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

/// Wildcard directories in a reader's path (`/*/*/x.json` has two): each multiplies the
/// directories a walk may enter. The file name's own wildcard walks one directory.
pub(crate) fn wildcard_dirs(path: &str) -> usize {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    parts
        .iter()
        .take(parts.len().saturating_sub(1))
        .filter(|p| p.contains(['*', '?', '[']))
        .count()
}

impl Machine {
    /// A reader whose glob has several wildcard directories can walk a whole tree, on every
    /// hook (the host stops it after its budget, and its value is then unknown). Reported
    /// where a guard first reads it.
    pub(super) fn lint_reader_globs(&self, out: &mut Vec<Lint>) {
        let chart = &self.chart;
        let guards = chart
            .transitions
            .iter()
            .filter_map(|t| Some((t.guard.as_ref()?, t.span)))
            .chain(chart.states.iter().flat_map(|s| {
                s.all_policies()
                    .filter_map(move |p| Some((p.when.as_ref()?, p.span.or(s.span))))
            }));
        let mut read_at: std::collections::HashMap<&str, Option<Span>> = Default::default();
        fn readers<'g>(g: &'g Guard, out: &mut Vec<&'g str>) {
            match g {
                Guard::All { of } | Guard::Any { of } => of.iter().for_each(|x| readers(x, out)),
                Guard::Not { guard } => readers(guard, out),
                Guard::Reader { name, .. } | Guard::FileExists { reader: name } => out.push(name),
                _ => {}
            }
        }
        for (g, span) in guards {
            let mut names = Vec::new();
            readers(g, &mut names);
            for name in names {
                read_at.entry(name).or_insert(span);
            }
        }
        for r in &chart.readers {
            if matches!(r.kind, crate::engine::ir::ReaderKind::OnPath { .. }) {
                continue;
            }
            let path = r.kind.path();
            let n = wildcard_dirs(path);
            if n < 2 {
                continue;
            }
            out.push(Lint::warning(
                "costly-glob",
                format!(
                    "reader `{}` reads `{path}`: {n} wildcard directories can reach a whole tree, walked on every hook (a reader stops after {} entries or {} ms, and its value is then unknown); name the directories",
                    r.name,
                    crate::engine::ir::SCAN_ENTRIES,
                    crate::engine::ir::SCAN_MS,
                ),
                read_at.get(r.name.as_str()).copied().flatten(),
            ));
        }
    }
}
