//! Recovery's suggestions, most important first: no legal step, the states' own recovery
//! texts, the refused call, the next call, a failure, the nearest ending, a livelock.

use super::Recovery;
use crate::engine::event::Event;
use crate::engine::ir::StateKind;
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;

impl Machine {
    pub(super) fn suggest(&self, snap: &Snapshot, denied: Option<&Event>, rec: &mut Recovery) {
        let lift = self.suggest_stuck(snap, rec);
        rec.suggestions.extend(
            self.policy_hints(snap, denied)
                .into_iter()
                .filter(|h| lift.as_ref() != Some(h)),
        );
        if let Some(about) = denied.and_then(|ev| self.about_denied(snap, ev, rec)) {
            // Said once: the refusal of the stuck next step may be this same refusal.
            let who = about.split_once(" is not allowed now: ").map(|(_, w)| w);
            let said = who.is_some_and(|w| {
                let w = w.trim_end_matches('.');
                rec.suggestions.iter().any(|s| s.contains(w))
            });
            if !said {
                rec.suggestions.push(about);
            }
        }
        self.suggest_next(snap, rec);
        self.suggest_failure(snap, rec);
        // Said once: at an ending, its recovery is already what it ended in.
        if let Some(e) = rec
            .ending
            .as_ref()
            .filter(|e| !rec.suggestions.iter().any(|s| s.contains(e.as_str())))
        {
            rec.suggestions.push(format!("If stuck: {e}"));
        }
        if snap.livelock {
            // Not the agent's to solve: the sequence never settles.
            rec.suggestions.insert(
                0,
                format!(
                    "The sequence is in a livelock at \"{}\": its eventless transitions kept firing up to the microstep cap, so no call moves it reliably. Fix its eventless loop (`seed validate` names it) or run it with enforcement = \"observe\" until then; meanwhile ask the user before relying on its verdicts.",
                    crate::engine::verdict::current_label(self, snap)
                ),
            );
        }
    }

    /// When no step is legal: the first step and who refuses it, then what lifts the refusal
    /// (the refusing state's own text, a constraint's `when`), returned so it is said once.
    fn suggest_stuck(&self, snap: &Snapshot, rec: &mut Recovery) -> Option<String> {
        let n = rec.next.first()?;
        let by = n.blocked_by.as_ref()?;
        let lift = self.refusing(snap, n).and_then(|(sid, _)| {
            let r = self.chart.state(sid).policy.recovery.as_deref()?;
            Some(self.fill_facts(r, snap))
        });
        let then = match &lift {
            Some(l) => format!("{l} Until then, ask the user."),
            None => {
                "It becomes legal when that deep state changes; until then, ask the user.".into()
            }
        };
        let said = format!(
            "No legal step now: the next step of \"{}\" is {}, but {}. {then}",
            self.chart.name,
            n.tool,
            by.trim_end_matches('.')
        );
        rec.suggestions.push(said);
        lift
    }

    /// The next call (and up to three others), and what stands in its way (no server).
    fn suggest_next(&self, snap: &Snapshot, rec: &mut Recovery) {
        let Some(n) = rec.next.first().filter(|n| n.blocked_by.is_none()) else {
            return;
        };
        // Two steps can read as one call (a command and its skill, a filled `${var}`): each
        // call is named once.
        let mut others: Vec<String> = Vec::new();
        for s in rec.next.iter().skip(1) {
            if s.tool != n.tool && !others.contains(&s.tool) && others.len() < 3 {
                others.push(s.tool.clone());
            }
        }
        let said = if others.is_empty() {
            format!("Next: call {}.", n.tool)
        } else {
            format!("Next: call {} (or {}).", n.tool, others.join(", "))
        };
        let unavailable = self.unavailable(snap, &n.tool).map(|u| u.sentence());
        rec.suggestions.push(said);
        rec.suggestions.extend(unavailable);
    }

    /// A failed state: the error ending it reached, or the choice with no branch.
    fn suggest_failure(&self, snap: &Snapshot, rec: &mut Recovery) {
        let Some(id) = snap.failed else { return };
        let st = self.chart.state(id);
        if let Some(ended) = self.ended_in(snap) {
            rec.suggestions.push(ended);
        } else if matches!(st.kind, StateKind::Choice) {
            rec.suggestions.push(format!(
                "Choice \"{}\" has no branch for the current state; set the flag or value one of its branches needs.",
                st.label
            ));
        }
    }
}
