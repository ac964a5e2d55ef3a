//! How `seed explain` words each rule: the state and tier that refuses, the step a call
//! takes, the list that lets it through, and what put a deep-state constraint in force.

use serde_json::Value;

use super::{as_calls_seen, state_in_tier};
use crate::engine::ir::{Guard, InputMatcher, StateId, Trigger};
use crate::engine::machine::Machine;
use crate::engine::pattern::Pattern;
use crate::engine::snapshot::Snapshot;
use crate::engine::verdict::{Objection, Rule, tier_of};

fn calls(m: &Machine, snap: &Snapshot, p: &Pattern) -> String {
    as_calls_seen(p, &m.seen_servers(snap), &m.seen_plugins(snap))
}

fn state(m: &Machine, sid: StateId) -> String {
    let label = &m.chart.state(sid).label;
    state_in_tier(&format!("\"{label}\""), label, &tier_of(m, sid))
}

/// `"flight" (context) denies Write`, with the policy's gate when it has one.
pub(crate) fn objection(m: &Machine, snap: &Snapshot, o: &Objection<'_>) -> String {
    let gate = o
        .policy
        .gate
        .as_ref()
        .map(|g| format!(" (gate \"{g}\")"))
        .unwrap_or_default();
    format!("{} {}{gate}", state(m, o.state), o.rule(m, snap))
}

/// What put a deep-state constraint in force: the policy's `when` and the fact that entered
/// its state, each with the facts it reads as they are now.
pub fn in_force(
    m: &Machine,
    snap: &Snapshot,
    when: Option<&Guard>,
    entered: Option<&Guard>,
) -> Option<String> {
    let parts: Vec<String> = entered
        .into_iter()
        .chain(when)
        .filter(|g| **g != Guard::True)
        .map(|g| guard(m, snap, g))
        .collect();
    (!parts.is_empty()).then(|| format!("in force while {}", parts.join(" and ")))
}

/// A guard in words, each fact with its value now: `flight_status == "active" (now "active")`.
pub fn guard(m: &Machine, snap: &Snapshot, g: &Guard) -> String {
    let now = |v: Option<&Value>| match v {
        Some(v) => format!(" (now {v})"),
        None => " (not sampled)".to_string(),
    };
    let join = |of: &[Guard], sep: &str| {
        let parts: Vec<String> = of
            .iter()
            .map(|g| format!("({})", guard(m, snap, g)))
            .collect();
        parts.join(sep)
    };
    match g {
        Guard::True => "always".into(),
        Guard::All { of } => join(of, " and "),
        Guard::Any { of } => join(of, " or "),
        Guard::Not { guard: inner } => format!("not ({})", guard(m, snap, inner)),
        Guard::Flag { name } => format!(
            "flag {name}{}",
            now(snap.flags.get(name).map(|b| Value::Bool(*b)).as_ref())
        ),
        Guard::Var { name, op, value } => {
            format!("{name} {} {value}{}", op.as_str(), now(snap.vars.get(name)))
        }
        Guard::Count { name, op, value } => format!("len({name}) {} {value}", op.as_str()),
        Guard::In { state: s } => format!("in \"{}\"", m.chart.state(*s).label),
        Guard::FileExists { reader } => format!("{reader} exists{}", now(snap.facts.get(reader))),
        Guard::Reader { name, op, value } => {
            format!(
                "{name} {} {value}{}",
                op.as_str(),
                now(snap.facts.get(name))
            )
        }
        Guard::Input { pointer, matcher } => {
            let at = format!("input{}", pointer.replace('/', "."));
            match matcher {
                InputMatcher::Glob(g) => format!("{at} == {:?}", g),
                InputMatcher::Equals(v) => format!("{at} == {v}"),
                InputMatcher::Present => format!("{at} is given"),
            }
        }
        Guard::Result { pointer, op, value } => {
            format!("the call's result at \"{pointer}\" {} {value}", op.as_str())
        }
        Guard::InList { pointer, var } => format!("the call's input at {pointer} is in {var}"),
    }
}

/// `step "plan" → "build" takes ExitPlanMode`, or a transition that stays where it is.
pub fn transition(m: &Machine, snap: &Snapshot, t: usize) -> String {
    let chart = &m.chart;
    let tr = &chart.transitions[t];
    let on = match &tr.trigger {
        Trigger::Event(p) => calls(m, snap, p),
        _ => "no call".into(),
    };
    let guard = tr
        .guard
        .as_ref()
        .map(|g| format!(" if {}", guard(m, snap, g)))
        .unwrap_or_default();
    let from = &chart.state(tr.source).label;
    match tr.targets.first() {
        Some(to) => format!(
            "step \"{from}\" → \"{}\" takes {on}{guard}",
            chart.state(*to).label
        ),
        None => format!("\"{from}\" takes {on}{guard} without moving"),
    }
}

/// The neutral list naming the call, or the calls neutral in every sequence.
pub fn neutral(m: &Machine, snap: &Snapshot, p: Option<&Pattern>) -> String {
    match p {
        Some(p) => format!("the neutral list names {}", calls(m, snap, p)),
        None => "neutral in every sequence (seed's own tools, tool loading, task lists)".into(),
    }
}

/// `"build" allows Edit`: an allow list of a step naming the call.
pub fn allow_list(m: &Machine, snap: &Snapshot, sid: StateId, p: &Pattern) -> String {
    format!("{} allows {}", state(m, sid), calls(m, snap, p))
}

/// What decides when no rule names the call.
pub fn fallback(m: &Machine, snap: &Snapshot, rule: &Rule) -> String {
    let name = &m.chart.name;
    match rule {
        Rule::Ended => format!("\"{name}\" has ended: it gates no call any more"),
        Rule::OffPath { ahead } => {
            let setting = match m.chart.settings.off_path {
                crate::engine::ir::OffPathPolicy::Deny => "deny",
                crate::engine::ir::OffPathPolicy::Warn => "warn",
                crate::engine::ir::OffPathPolicy::Observe => "observe",
            };
            let when = match ahead {
                Some(n) => format!(
                    "it comes later (after {n} more call{})",
                    if *n == 1 { "" } else { "s" }
                ),
                None => "nothing in it expects the call now".into(),
            };
            format!(
                "off the path of \"{name}\" ({when}; {}): off_path = \"{setting}\"",
                crate::engine::verdict::where_now(m, snap)
            )
        }
        _ => String::new(),
    }
}
