//! Why an active state refuses a call: the policies that apply now (their `when`), a deny
//! pattern naming the call, or an allow list leaving it out.

use serde_json::Value;

use crate::engine::event::Event;
use crate::engine::guard;
use crate::engine::ir::{Policy, StateId};
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;
use crate::engine::wording::as_calls_seen;

/// An active state's refusal of a call: which state, which of its policies, and the rule.
pub(crate) struct Objection<'a> {
    pub state: StateId,
    pub policy: &'a Policy,
    pub rule: String,
}

/// The policies of state `sid` that apply now: those without a `when`, and those whose `when`
/// holds (on the call's input when one is judged).
pub(crate) fn policies_now<'a>(
    m: &'a Machine,
    snap: &'a Snapshot,
    sid: StateId,
    input: Option<&'a Value>,
) -> impl Iterator<Item = &'a Policy> + 'a {
    m.chart.state(sid).all_policies().filter(move |p| {
        p.when.as_ref().is_none_or(|g| match input {
            Some(i) => guard::eval(g, snap, i),
            None => guard::eval_ignoring_input(g, snap),
        })
    })
}

/// Why state `sid`'s policies refuse `ev` now, if they do: a deny pattern naming it, or an
/// allow list that does not. Neutral tools pass the allow lists of the workflow's own states;
/// a deep-state constraint's list is exact ("only these tools", seed 000 tier 2).
pub(crate) fn objection<'a>(
    m: &'a Machine,
    snap: &'a Snapshot,
    sid: StateId,
    ev: &'a Event,
    neutral: bool,
) -> Option<Objection<'a>> {
    denies(m, snap, sid, ev).or_else(|| excludes(m, snap, sid, ev, neutral))
}

/// The first active state that refuses `ev`, with the rule.
pub(crate) fn first_objection(
    m: &Machine,
    snap: &Snapshot,
    ev: &Event,
    neutral: bool,
) -> Option<(StateId, String)> {
    first_objecting(m, snap, ev, neutral).map(|o| (o.state, o.rule))
}

/// The first refusal of `ev` by an active state: explicit deny patterns first (they say
/// why), then allow lists that leave it out.
pub(crate) fn first_objecting<'a>(
    m: &'a Machine,
    snap: &'a Snapshot,
    ev: &'a Event,
    neutral: bool,
) -> Option<Objection<'a>> {
    let active = || snap.active.iter().copied();
    active()
        .find_map(|s| denies(m, snap, s, ev))
        .or_else(|| active().find_map(|s| excludes(m, snap, s, ev, neutral)))
}

fn denies<'a>(
    m: &'a Machine,
    snap: &'a Snapshot,
    sid: StateId,
    ev: &'a Event,
) -> Option<Objection<'a>> {
    let aliases = &m.chart.aliases;
    policies_now(m, snap, sid, Some(&ev.input)).find_map(|policy| {
        policy
            .deny
            .iter()
            .find(|p| p.matches(ev, aliases))
            .map(|p| Objection {
                state: sid,
                policy,
                rule: format!(
                    "denies {}",
                    as_calls_seen(p, &m.seen_servers(snap), &m.seen_plugins(snap))
                ),
            })
    })
}

fn excludes<'a>(
    m: &'a Machine,
    snap: &'a Snapshot,
    sid: StateId,
    ev: &'a Event,
    neutral: bool,
) -> Option<Objection<'a>> {
    let aliases = &m.chart.aliases;
    let exempt = neutral && (!m.is_monitor(sid) || m.loads_tools(ev));
    if exempt {
        return None;
    }
    policies_now(m, snap, sid, Some(&ev.input)).find_map(|policy| {
        if policy.allow.is_empty() || policy.allow.iter().any(|p| p.matches(ev, aliases)) {
            return None;
        }
        let list: Vec<String> = policy
            .allow
            .iter()
            .map(|p| as_calls_seen(p, &m.seen_servers(snap), &m.seen_plugins(snap)))
            .collect();
        Some(Objection {
            state: sid,
            policy,
            rule: format!("allows only {}", list.join(", ")),
        })
    })
}
