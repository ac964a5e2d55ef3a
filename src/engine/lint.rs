//! `seed validate`'s checks on the IR, shared by every dialect.
//!
//! This file holds the lint and runs every check: [`graph`] (the chart's shape), [`flow`]
//! (transitions never taken), [`tools`], [`refs`] (names read but never defined) and [`bands`]
//! (progress bands).

mod bands;
pub mod flow;
mod graph;
mod refs;
mod tools;

use serde::{Deserialize, Serialize};

use super::ir::Span;
use super::machine::Machine;
use flow::Dead;

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
        self.lint_reader_globs(&mut out);
        // One problem, one lint: a guard a dialect copies into several transitions (seed
        // 000's constraints negate every earlier `when`) is reported where it is first read.
        let mut seen = std::collections::HashSet::new();
        out.retain(|l| seen.insert((l.severity, l.code.clone(), l.message.clone())));
        out.sort_by_key(|l| std::cmp::Reverse(l.severity));
        out
    }
}
