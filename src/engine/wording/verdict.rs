//! The verdict's words: what the model reads when the sequence refuses, warns or holds the
//! turn. The gate decides with data ([`Rule`](crate::engine::verdict::Rule)); only this file
//! turns a decision into sentences.

use super::{as_calls_seen, ended_text, state_in_tier};
use crate::engine::ir::Policy;
use crate::engine::machine::Machine;
use crate::engine::progress::Ended;
use crate::engine::snapshot::Snapshot;
use crate::engine::verdict::{Clause, DeniedBy, where_now};

/// A policy's clause: `denies Bash(command="rm *")`, `allows only Read, Grep`.
pub fn clause(m: &Machine, snap: &Snapshot, policy: &Policy, clause: Clause) -> String {
    let (servers, plugins) = (m.seen_servers(snap), m.seen_plugins(snap));
    match clause {
        Clause::Denies(k) => format!(
            "denies {}",
            as_calls_seen(&policy.deny[k], &servers, &plugins)
        ),
        Clause::AllowsOnly => {
            let list: Vec<String> = policy
                .allow
                .iter()
                .map(|p| as_calls_seen(p, &servers, &plugins))
                .collect();
            format!("allows only {}", list.join(", "))
        }
    }
}

/// A policy's refusal: the call, the state (and tier) that refuses it and its rule, the
/// policy's own recovery text, then the advice.
pub fn policy_refusal(tool: &str, by: &DeniedBy, hint: Option<&str>, advice: &str) -> String {
    let hint = hint.map(|h| format!(" {h}")).unwrap_or_default();
    let text = format!(
        "seed: {tool} is not allowed now — {} {}.{hint} {advice}",
        state_in_tier(&format!("\"{}\"", by.state), &by.state, &by.tier),
        by.rule
    );
    text.trim().to_string()
}

/// A call nothing in the chart expects now: early (`ahead` calls come first) or foreign.
pub fn off_path(
    m: &Machine,
    snap: &Snapshot,
    tool: &str,
    ahead: Option<usize>,
    advice: &str,
) -> String {
    let name = &m.chart.name;
    let text = match ahead {
        Some(n) => format!(
            "seed: {tool} comes later in \"{name}\" (after {n} more call{}; {}). {advice}",
            if n == 1 { "" } else { "s" },
            where_now(m, snap)
        ),
        None => format!(
            "seed: {tool} is not part of \"{name}\" now ({}). {advice}",
            where_now(m, snap)
        ),
    };
    text.trim().to_string()
}

/// A call after an error ending: the ending and its recovery.
pub fn after_error_ending(m: &Machine, ended: &Ended) -> String {
    format!("seed: {}", ended_text(&m.chart.name, ended))
}

/// Stop while a policy holds the turn open: where, and the policy's recovery text.
pub fn stop_held(m: &Machine, state: &str, recovery: Option<&str>) -> String {
    format!(
        "seed: \"{}\" is at \"{state}\", where the turn does not end yet.{}",
        m.chart.name,
        recovery.map(|r| format!(" {r}")).unwrap_or_default()
    )
}

/// Stop while the sequence is unfinished: how far it got and the call to continue with.
pub fn stop_unfinished(m: &Machine, done: f64, at: &str, next: Option<&str>) -> String {
    format!(
        "seed: \"{}\" is not finished ({done:.0}% done, at \"{at}\").{}",
        m.chart.name,
        next.map(|n| format!(" Continue with {n}."))
            .unwrap_or_default()
    )
}

/// The deadlock breaker's escalation, after the refusal it closes.
pub fn escalated(reason: &str, call: &str, limit: u32, gate: Option<&str>) -> String {
    let whom = match gate {
        Some(gate) => format!("by the \"{gate}\" checks"),
        None => "here".into(),
    };
    format!(
        "{reason} {call} was denied {limit} times {whom}: stop retrying it and ask the user how to proceed."
    )
}
