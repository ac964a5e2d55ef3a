//! The tool lint: a transition's call that the policies of its own state (or an ancestor)
//! deny or leave out of their allow list for good, so it can never be used.

use super::ir::Trigger;
use super::lint::Lint;
use super::machine::Machine;

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
                let denied = always()
                    .flat_map(|p| &p.deny)
                    .any(|d| d.names_tool(&probe, &chart.aliases));
                let outside = always().any(|p| {
                    !p.allow.is_empty()
                        && !p.allow.iter().any(|a| a.names_tool(&probe, &chart.aliases))
                }) && !self.is_neutral(&probe);
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
}
