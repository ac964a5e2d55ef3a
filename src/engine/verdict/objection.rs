//! Why an active state refuses a call: the policies that apply now (their `when`), a deny
//! pattern naming the call, or an allow list leaving it out.

use serde_json::Value;

use crate::engine::event::Event;
use crate::engine::guard;
use crate::engine::ir::{Policy, StateId};
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;
use crate::engine::wording;

/// How a policy refuses a call: a deny pattern naming it (its index in `deny`), or an allow
/// list leaving it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Clause {
    Denies(usize),
    AllowsOnly,
}

/// An active state's refusal of a call: which state, which of its policies (and its index in
/// [`State::all_policies`](crate::engine::ir::State::all_policies)), and the clause.
pub(crate) struct Objection<'a> {
    pub state: StateId,
    pub policy: &'a Policy,
    pub index: usize,
    pub clause: Clause,
}

impl Objection<'_> {
    /// The rule in words (`denies Bash(command="git push*")`, `allows only Read, Grep`).
    pub fn rule(&self, m: &Machine, snap: &Snapshot) -> String {
        wording::verdict::clause(m, snap, self.policy, self.clause)
    }
}

/// The policies of state `sid` that apply now: those without a `when`, and those whose `when`
/// holds (on the call's input when one is judged).
pub(crate) fn policies_now<'a>(
    m: &'a Machine,
    snap: &'a Snapshot,
    sid: StateId,
    input: Option<&'a Value>,
) -> impl Iterator<Item = &'a Policy> + 'a {
    indexed_policies_now(m, snap, sid, input).map(|(_, p)| p)
}

/// [`policies_now`] with each policy's index in the state's `all_policies`.
pub(crate) fn indexed_policies_now<'a>(
    m: &'a Machine,
    snap: &'a Snapshot,
    sid: StateId,
    input: Option<&'a Value>,
) -> impl Iterator<Item = (usize, &'a Policy)> + 'a {
    m.chart
        .state(sid)
        .all_policies()
        .enumerate()
        .filter(move |(_, p)| {
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
    first_objecting(m, snap, ev, neutral).map(|o| (o.state, o.rule(m, snap)))
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

/// Every refusal of `ev` by an active state now: each deny pattern naming it, each allow list
/// leaving it out (what `seed explain` lists; the verdict takes the first).
pub(crate) fn all_objections<'a>(
    m: &'a Machine,
    snap: &'a Snapshot,
    ev: &'a Event,
    neutral: bool,
) -> Vec<Objection<'a>> {
    let aliases = &m.chart.aliases;
    let mut out = Vec::new();
    for &sid in &snap.active {
        let exempt = neutral && (!m.is_monitor(sid) || m.loads_tools(ev));
        for (index, policy) in indexed_policies_now(m, snap, sid, Some(&ev.input)) {
            let at = |clause| Objection {
                state: sid,
                policy,
                index,
                clause,
            };
            for (k, _) in policy
                .deny
                .iter()
                .enumerate()
                .filter(|(_, p)| p.matches(ev, aliases))
            {
                out.push(at(Clause::Denies(k)));
            }
            let left_out =
                !policy.allow.is_empty() && !policy.allow.iter().any(|p| p.matches(ev, aliases));
            if left_out && !exempt {
                out.push(at(Clause::AllowsOnly));
            }
        }
    }
    out
}

fn denies<'a>(
    m: &'a Machine,
    snap: &'a Snapshot,
    sid: StateId,
    ev: &'a Event,
) -> Option<Objection<'a>> {
    let aliases = &m.chart.aliases;
    indexed_policies_now(m, snap, sid, Some(&ev.input)).find_map(|(index, policy)| {
        policy
            .deny
            .iter()
            .position(|p| p.matches(ev, aliases))
            .map(|k| Objection {
                state: sid,
                policy,
                index,
                clause: Clause::Denies(k),
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
    indexed_policies_now(m, snap, sid, Some(&ev.input)).find_map(|(index, policy)| {
        if policy.allow.is_empty() || policy.allow.iter().any(|p| p.matches(ev, aliases)) {
            return None;
        }
        Some(Objection {
            state: sid,
            policy,
            index,
            clause: Clause::AllowsOnly,
        })
    })
}
