//! Recovery from the graph: the next expected step, the shortest legal path to a denied tool,
//! and the nearest ending's recovery text. Always concrete: the exact tool and its input.
//!
//! This file assembles a [`Recovery`]; `next_step` describes calls, `route` finds the way
//! ahead, `hints` words what is said about refusals and endings.
#![warn(clippy::too_many_lines)] // Past 80 lines (clippy.toml) a function is split or says why.

mod data;
mod hints;
mod next_step;
mod route;
pub(crate) mod search;
mod sites;
mod suggest;

use serde::{Deserialize, Serialize};

use super::event::Event;
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
        let mut rec = Recovery {
            next: self.next_steps(snap, reach),
            ..Recovery::default()
        };
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
        self.suggest(snap, denied, &mut rec);
        rec
    }

    /// The expected next step first (on the shortest path to an ending), then the other
    /// legal ones; steps an active policy refuses go last, marked. If that is all of them,
    /// there is no legal step until the deep state changes (tier 2 over tier 1).
    fn next_steps(&self, snap: &Snapshot, reach: &search::Reach) -> Vec<NextStep> {
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
        for n in &mut next {
            n.blocked_by = self.refusing(snap, n).map(|(_, text)| text);
        }
        next.sort_by_key(|n| n.blocked_by.is_some());
        next
    }
}
