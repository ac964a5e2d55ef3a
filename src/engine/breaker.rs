//! The deadlock breaker (seed 004 "max 3 denials", "every cycle has a break condition"): the
//! same refusal of a tool is counted, whatever the call's input, and the attempt after the
//! `limit`-th denial escalates as the sequence says (keep denying, ask the user, or advise).

use std::ops::Bound;

use super::event::Event;
use super::ir::DeadlockFallback;
use super::machine::Machine;
use super::snapshot::{DenialNote, RECENT_DENIALS, Snapshot};
use super::verdict::{Decision, DeniedBy, Verdict};

/// How the keys of gates begin in [`Snapshot::denials`]: they outlive state changes.
pub(crate) const GATE_KEY: &str = "gate ";

/// A stable key for "the same denied call": the tool and what objected to it (the denying
/// state and rule, or the sequence's path). Not the input: an agent retrying a refused step
/// revises it (a new plan text, another command), and that is still the same deadlock. A
/// policy's gate is the key of every policy sharing it: one count for a whole chain.
pub(crate) fn denial_key(ev: &Event, by: Option<&DeniedBy>) -> String {
    match by {
        Some(DeniedBy {
            gate: Some(gate), ..
        }) => format!("{GATE_KEY}{gate}"),
        Some(by) => format!("{} @{}/{} {}", ev.key(), by.tier, by.state, by.rule),
        None => format!("{} off path", ev.key()),
    }
}

/// A state change resets the breaker (the agent made progress), except a gate's count: the
/// chain's links are passed by moving on, and "max N denials" is for the chain.
pub(crate) fn on_progress(snap: &mut Snapshot) {
    snap.denials.retain(|k, _| k.starts_with(GATE_KEY));
}

/// Whether any gate has a count: gate keys sort together, so one ordered lookup tells (a scan
/// of every key on each allowed call made a long session's fold quadratic).
fn any_gate_counted(snap: &Snapshot) -> bool {
    snap.denials
        .range::<str, _>((Bound::Included(GATE_KEY), Bound::Unbounded))
        .next()
        .is_some_and(|(k, _)| k.starts_with(GATE_KEY))
}

/// `ev` was let through: every gate with a policy that would deny it (were its `when` to
/// hold) has been passed, and counts afresh.
pub(crate) fn passed_gates(m: &Machine, snap: &mut Snapshot, ev: &Event) {
    if !any_gate_counted(snap) {
        return;
    }
    let aliases = &m.chart.aliases;
    for st in &m.chart.states {
        for p in st.all_policies() {
            if let Some(gate) = &p.gate
                && p.deny.iter().any(|d| d.matches(ev, aliases))
            {
                snap.denials.remove(&format!("{GATE_KEY}{gate}"));
            }
        }
    }
}

/// The most calls whose denials the snapshot counts between two moves of the sequence. An
/// agent cycling through more distinct refused calls than this is not retrying one of them;
/// without a bound the snapshot, saved on every call, would grow with each new name.
pub(crate) const MAX_DENIAL_KEYS: usize = 256;

/// Past [`MAX_DENIAL_KEYS`] calls, forget the half counted least (ties by key order), never
/// `keep` (the call just counted) nor a gate's count.
fn bound_denials(snap: &mut Snapshot, keep: &str) {
    let calls = snap.denials.len()
        - snap
            .denials
            .keys()
            .filter(|k| k.starts_with(GATE_KEY))
            .count();
    if calls <= MAX_DENIAL_KEYS {
        return;
    }
    let mut counted: Vec<(u32, String)> = snap
        .denials
        .iter()
        .filter(|(k, _)| !k.starts_with(GATE_KEY) && k.as_str() != keep)
        .map(|(k, c)| (*c, k.clone()))
        .collect();
    counted.sort();
    for (_, k) in counted.into_iter().take(calls - MAX_DENIAL_KEYS / 2) {
        snap.denials.remove(&k);
    }
}

/// An objection in enforce mode: denied, counted, and escalated past the limit.
pub(crate) fn enforce(m: &Machine, snap: &mut Snapshot, ev: &Event, base: Verdict) -> Verdict {
    let key = denial_key(ev, base.denied_by.as_ref());
    let count = snap
        .denials
        .get(&key)
        .copied()
        .unwrap_or(0)
        .saturating_add(1);
    snap.denials.insert(key.clone(), count);
    bound_denials(snap, &key);
    let dl = m.chart.settings.deadlock;
    // "max N denials": N denials, then the next attempt escalates.
    let escalated = dl.limit > 0 && count > dl.limit;
    let mut v = Verdict {
        decision: Decision::Deny,
        repeat: count,
        escalated,
        ..base
    };
    if escalated {
        let msg = super::wording::verdict::escalated(
            &v.reason,
            &super::verdict::called(ev),
            dl.limit,
            v.denied_by.as_ref().and_then(|b| b.gate.as_deref()),
        );
        v.reason = msg.clone();
        match dl.fallback {
            DeadlockFallback::Deny => {}
            DeadlockFallback::Ask => v.decision = Decision::Ask,
            DeadlockFallback::Advise => {
                v.decision = Decision::Allow;
                v.warning = Some(msg);
            }
        }
    }
    if v.decision == Decision::Deny || v.decision == Decision::Ask {
        snap.recent_denials.push(DenialNote {
            event: ev.key(),
            count,
        });
        if snap.recent_denials.len() > RECENT_DENIALS {
            snap.recent_denials.remove(0);
        }
    }
    v
}
