//! How the enforcement mode and the deadlock breaker turn the sequence's objection into a
//! decision: the mode a state runs in, a plain allow, and `decide` (observe, advise, enforce).

use super::{Decision, DeniedBy, Verdict, VerdictKind};
use crate::engine::breaker;
use crate::engine::event::Event;
use crate::engine::ir::{Enforcement, StateId};
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;

pub(super) fn mode_for(m: &Machine, id: StateId) -> Enforcement {
    std::iter::once(id)
        .chain(m.chart.ancestors(id))
        .find_map(|s| m.chart.state(s).enforcement)
        .unwrap_or(m.chart.settings.enforcement)
}

/// The override of the deepest active state that has one.
pub(super) fn active_mode(m: &Machine, snap: &Snapshot) -> Enforcement {
    snap.active
        .iter()
        .filter_map(|s| {
            m.chart
                .state(*s)
                .enforcement
                .map(|e| (m.chart.depth(*s), e))
        })
        .max_by_key(|(d, _)| *d)
        .map(|(_, e)| e)
        .unwrap_or(m.chart.settings.enforcement)
}

pub(super) fn allow(kind: VerdictKind, mode: Enforcement, next: Option<String>) -> Verdict {
    Verdict {
        kind,
        decision: Decision::Allow,
        mode,
        reason: String::new(),
        warning: None,
        denied_by: None,
        next,
        repeat: 0,
        escalated: false,
        rule: None,
    }
}

/// Apply the enforcement mode and the deadlock breaker to an objection.
#[allow(clippy::too_many_arguments)]
pub(super) fn decide(
    m: &Machine,
    snap: &mut Snapshot,
    ev: &Event,
    kind: VerdictKind,
    mode: Enforcement,
    reason: String,
    denied_by: Option<DeniedBy>,
    next: Option<String>,
) -> Verdict {
    let base = Verdict {
        kind,
        decision: Decision::Allow,
        mode,
        reason: reason.clone(),
        warning: None,
        denied_by,
        next,
        repeat: 0,
        escalated: false,
        rule: None,
    };
    match mode {
        Enforcement::Observe => base,
        Enforcement::Advise => Verdict {
            warning: Some(reason),
            ..base
        },
        Enforcement::Enforce => breaker::enforce(m, snap, ev, base),
    }
}
