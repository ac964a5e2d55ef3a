//! Recovery from the graph: the next expected step, the shortest legal path to a denied tool,
//! and the nearest ending's recovery text. Always concrete: the exact tool and its input.
//!
//! This file assembles a [`Recovery`]; `next_step` describes calls, `route` finds the way
//! ahead, `hints` words what is said about refusals and endings.

mod data;
mod hints;
mod next_step;
mod route;
pub(crate) mod search;
mod sites;

use serde::{Deserialize, Serialize};

use super::event::Event;
use super::ir::StateKind;
use super::machine::Machine;
use super::snapshot::Snapshot;

pub use next_step::NextStep;
pub(crate) use next_step::input_fits;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Recovery {
    /// The expected next step (on the shortest path to an ending), then the other legal ones.
    pub next: Vec<NextStep>,
    /// For a denied call: the calls to make first, ending with the call itself.
    pub path_to_denied: Option<Vec<NextStep>>,
    /// The denied call's input fits no step: the path ends with the same tool called with the
    /// input its step needs (the last step names it), not with the call as it was made.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub denied_input_differs: bool,
    /// The nearest ending's recovery or message.
    pub ending: Option<String>,
    /// Ready-to-print suggestions, most important first.
    pub suggestions: Vec<String>,
}

impl Machine {
    pub fn recovery(&self, snap: &Snapshot, denied: Option<&Event>) -> Recovery {
        self.recovery_with(snap, denied, &self.reach(snap))
    }

    /// `recovery` with the path search already made.
    pub(crate) fn recovery_with(
        &self,
        snap: &Snapshot,
        denied: Option<&Event>,
        reach: &search::Reach,
    ) -> Recovery {
        let mut rec = Recovery::default();
        let enabled = self.enabled_calls(snap);
        let mut next = Vec::new();
        if let Some(primary) = self.expected_next_with(snap, reach, &enabled) {
            next.push(primary);
        }
        for s in enabled {
            if !next.iter().any(|n: &NextStep| n.call == s.call) {
                next.push(s.spelled_for(self, snap));
            }
        }
        // Steps an active policy refuses go last, marked; if that is all of them, there is no
        // legal step until the deep state changes (tier 2 over tier 1).
        for n in &mut next {
            n.blocked_by = self.refusing(snap, n).map(|(_, text)| text);
        }
        next.sort_by_key(|n| n.blocked_by.is_some());
        let stuck = next.first().and_then(|n| n.blocked_by.clone());
        // The state that refuses the first step when none is legal: its own text says what
        // lifts the refusal (a constraint's `when`), in place of a general "when it changes".
        let stuck_by = next
            .first()
            .filter(|n| n.blocked_by.is_some())
            .and_then(|n| self.refusing(snap, n))
            .map(|(sid, _)| sid);
        rec.next = next;

        if let Some(ev) = denied {
            // A step the call fits as it was made; else one of the same tool with other input.
            let (path, differs) = match self.path_to_call(snap, ev, reach, true) {
                Some(p) => (Some(p), false),
                None => (self.path_to_call(snap, ev, reach, false), true),
            };
            rec.denied_input_differs = differs && path.is_some();
            rec.path_to_denied =
                path.map(|p| p.into_iter().map(|n| n.spelled_for(self, snap)).collect());
        }
        rec.ending = self.nearest_ending_hint(&reach.dist);

        // Suggestions, most important first: no legal step, then the states' own recovery texts.
        let lift = stuck_by.and_then(|sid| {
            let r = self.chart.state(sid).policy.recovery.as_deref()?;
            Some(self.fill_facts(r, snap))
        });
        if let (Some(by), Some(n)) = (&stuck, rec.next.first()) {
            let then = match &lift {
                Some(l) => format!("{l} Until then, ask the user."),
                None => "It becomes legal when that deep state changes; until then, ask the user."
                    .to_string(),
            };
            rec.suggestions.push(format!(
                "No legal step now: the next step of \"{}\" is {}, but {}. {then}",
                self.chart.name,
                n.tool,
                by.trim_end_matches('.')
            ));
        }
        rec.suggestions.extend(
            self.policy_hints(snap, denied)
                .into_iter()
                .filter(|h| lift.as_ref() != Some(h)),
        );
        if let Some(about) = denied.and_then(|ev| self.about_denied(snap, ev, &rec)) {
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
        if let Some(n) = rec.next.first().filter(|n| n.blocked_by.is_none()) {
            // Two steps can read as one call (a command and its skill, a filled `${var}`):
            // each call is named once.
            let mut others: Vec<String> = Vec::new();
            for s in rec.next.iter().skip(1) {
                if s.tool != n.tool && !others.contains(&s.tool) && others.len() < 3 {
                    others.push(s.tool.clone());
                }
            }
            if others.is_empty() {
                rec.suggestions.push(format!("Next: call {}.", n.tool));
            } else {
                rec.suggestions
                    .push(format!("Next: call {} (or {}).", n.tool, others.join(", ")));
            }
            if let Some(u) = self.unavailable(snap, &n.tool) {
                rec.suggestions.push(u.sentence());
            }
        }
        if let Some(id) = snap.failed {
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
        rec
    }
}
