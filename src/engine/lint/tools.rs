//! The tool lint: a transition's call that the policies of its own state (or an ancestor)
//! deny or leave out of their allow list for good, so it can never be used.

use super::Lint;
use crate::engine::ir::Trigger;
use crate::engine::machine::Machine;
use crate::engine::pattern::Pattern;

/// The alternatives of a deny pattern that refuse a tool whatever its input.
fn for_every_input(p: &Pattern) -> Pattern {
    Pattern {
        alts: p
            .alts
            .iter()
            .filter(|a| a.input.is_empty())
            .cloned()
            .collect(),
    }
}

impl Machine {
    pub(super) fn lint_tools(&self, out: &mut Vec<Lint>) {
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
                // A deny written with an input (`Bash(git commit*)`) refuses only those calls.
                let denied = always()
                    .flat_map(|p| &p.deny)
                    .any(|d| for_every_input(d).names_tool(&probe, &chart.aliases));
                let outside = always().any(|p| {
                    !p.allow.is_empty()
                        && !p.allow.iter().any(|a| a.names_tool(&probe, &chart.aliases))
                }) && !self.is_neutral(&probe);
                if denied || outside {
                    let by = if sid == crate::engine::ir::StateId::ROOT {
                        "the whole sequence".to_string()
                    } else {
                        format!("`{}`", st.key)
                    };
                    out.push(Lint::error(
                        "tool-never-allowed",
                        format!(
                            "`{p}` leads out of `{}`, but {by} {} it, so it can never be used",
                            chart.state(t.source).key,
                            if denied { "denies" } else { "does not allow" }
                        ),
                        t.span,
                    ));
                    break;
                }
            }
        }
    }
}
