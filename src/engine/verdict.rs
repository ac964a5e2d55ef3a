//! PreToolUse gating and Stop decisions: advance / neutral / deny / off-path, then the
//! enforcement mode and the deadlock breaker turn that into allow / deny / ask / block.
//!
//! This file holds the verdict and the gate and stop decisions; `objection` finds a state's
//! refusal, `advice` words where the sequence is and what to do, `enforcement` applies the
//! mode and the deadlock breaker.

mod advice;
mod enforcement;
mod objection;

use serde::{Deserialize, Serialize};

use super::breaker;
use super::event::Event;
use super::ir::{Enforcement, OffPathPolicy, Outcome};
use super::machine::Machine;
use super::snapshot::Snapshot;
use super::wording::ended_text;
use super::wording::state_in_tier;
use advice::{advice, where_now};
use enforcement::{active_mode, allow, decide, mode_for};

pub use advice::current_label;
pub(crate) use advice::{called, called_as_judged, tier_of};
pub(crate) use objection::{first_objecting, first_objection, objection, policies_now};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// The call enables a transition.
    Advance,
    /// Allowed without moving the sequence (neutral list, an allow list, a self-loop).
    Neutral,
    /// A policy of an active state denies it.
    Deny,
    /// Nothing in the chart expects it.
    OffPath,
    /// Stop allowed.
    StopAllowed,
    /// Stop blocked: the sequence is not finished.
    StopBlocked,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
    Deny,
    Ask,
    /// Stop hooks: keep the agent working.
    Block,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
            Decision::Ask => "ask",
            Decision::Block => "block",
        }
    }
}

/// Which state (and which tier: the region it lives in) denied a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeniedBy {
    pub state: String,
    pub tier: String,
    pub rule: String,
    /// The gate of the denying policy: its denials are counted together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub kind: VerdictKind,
    pub decision: Decision,
    pub mode: Enforcement,
    /// For the model: why, and what to do instead.
    pub reason: String,
    /// Set when the call goes through although the sequence objects (advise / warn).
    pub warning: Option<String>,
    pub denied_by: Option<DeniedBy>,
    /// The exact next call, when one is known.
    pub next: Option<String>,
    /// How many times in a row the same objection met this tool, this call included.
    pub repeat: u32,
    pub escalated: bool,
}

impl Verdict {
    pub fn blocks(&self) -> bool {
        matches!(self.decision, Decision::Deny | Decision::Block)
    }
}

pub fn gate(m: &Machine, snap: &mut Snapshot, ev: &Event) -> Verdict {
    gate_with(m, snap, ev, true)
}

/// [`gate`]; without `advise`, a refusal's reason leaves out the advice (the next call, the
/// way to the refused one: a search of the graph) and `next` is unset. The state change is
/// the same: folding a log needs only that, and the record already holds the reason given.
pub(crate) fn gate_with(m: &Machine, snap: &mut Snapshot, ev: &Event, advise: bool) -> Verdict {
    let chart = &m.chart;
    let advice = |snap: &Snapshot| {
        if advise {
            advice(m, snap, ev)
        } else {
            (None, String::new(), None)
        }
    };
    let aliases = &chart.aliases;
    let tool = called_as_judged(m, ev);
    let neutral = m.is_neutral(ev);

    // 1. Policies of every active state intersect: any deny wins. A pattern with input
    //    matchers (`Bash(rm *)`, `odyssean_anchor(stage=init)`) covers only calls with that
    //    input, as in Claude Code's permission rules.
    let denied_by = first_objecting(m, snap, ev, neutral).map(|o| {
        let st = chart.state(o.state);
        let mode = o.policy.enforcement.unwrap_or_else(|| mode_for(m, o.state));
        let by = DeniedBy {
            state: st.label.clone(),
            tier: tier_of(m, o.state),
            rule: o.rule,
            gate: o.policy.gate.clone(),
        };
        (mode, o.policy.recovery.as_deref(), by)
    });

    if let Some((mode, recovery, by)) = denied_by {
        let (next, next_text, _) = advice(snap);
        let hint = recovery
            .map(|r| m.fill_facts(r, snap))
            // Said once: the advice may already quote it (what lifts a deep-state refusal).
            .filter(|r| !next_text.contains(r.as_str()))
            .map(|r| format!(" {r}"))
            .unwrap_or_default();
        let reason = format!(
            "seed: {tool} is not allowed now — {} {}.{hint} {next_text}",
            state_in_tier(&format!("\"{}\"", by.state), &by.state, &by.tier),
            by.rule
        );
        return decide(
            m,
            snap,
            ev,
            VerdictKind::Deny,
            mode,
            reason.trim().to_string(),
            Some(by),
            next,
        );
    }

    // 2. Does it move the sequence?
    let selected = m.select(snap, Some(ev));
    if selected
        .iter()
        .any(|&t| !chart.transitions[t].targets.is_empty())
    {
        breaker::passed_gates(m, snap, ev);
        return allow(VerdictKind::Advance, active_mode(m, snap), None);
    }
    // 3. Neutral: the neutral list, an allow list naming it, or a self-loop. Only the
    //    workflow's own states grant this way: a deep-state constraint (seed 000 tier 2) only
    //    narrows what the railroad allows, so a tool on its list that the railroad does not
    //    expect stays off the path (tier 1 ∩ tier 2).
    let allowed_by_list = snap.active.iter().any(|s| {
        !m.is_monitor(*s)
            && chart
                .state(*s)
                .policy
                .allow
                .iter()
                .any(|p| p.matches(ev, aliases))
    });
    // An allowed call forgives no refusal of its tool: refusals can depend on the input
    // (`Bash(rm *)`), and the state change a call makes resets the breaker (see `step`).
    if neutral || allowed_by_list || !selected.is_empty() {
        breaker::passed_gates(m, snap, ev);
        return allow(VerdictKind::Neutral, active_mode(m, snap), None);
    }
    // 4. Off path.
    breaker::passed_gates(m, snap, ev);
    // A sequence that has ended gates nothing more: a finished one lets calls through, and a
    // failed one does too, with its ending's recovery (what to do instead of a lock-out).
    if let Some(ended) = m.ended(snap) {
        let mode = active_mode(m, snap);
        let mut v = allow(VerdictKind::OffPath, mode, None);
        if ended.outcome == Outcome::Error {
            let text = ended_text(&m.chart.name, &ended);
            v.reason = format!("seed: {text}");
            if mode != Enforcement::Observe {
                v.warning = Some(v.reason.clone());
            }
        }
        return v;
    }
    let (next, next_text, ahead) = advice(snap);
    let mode = active_mode(m, snap);
    // A call the sequence reaches later is early, not foreign to it.
    let reason = match ahead {
        Some(n) => format!(
            "seed: {tool} comes later in \"{}\" (after {n} more call{}; {}). {next_text}",
            chart.name,
            if n == 1 { "" } else { "s" },
            where_now(m, snap)
        ),
        None => format!(
            "seed: {tool} is not part of \"{}\" now ({}). {next_text}",
            chart.name,
            where_now(m, snap)
        ),
    };
    let reason = reason.trim().to_string();
    match chart.settings.off_path {
        OffPathPolicy::Deny => decide(m, snap, ev, VerdictKind::OffPath, mode, reason, None, next),
        OffPathPolicy::Warn if mode != Enforcement::Observe => Verdict {
            kind: VerdictKind::OffPath,
            decision: Decision::Allow,
            mode,
            warning: Some(reason.clone()),
            reason,
            denied_by: None,
            next,
            repeat: 0,
            escalated: false,
        },
        _ => Verdict {
            kind: VerdictKind::OffPath,
            decision: Decision::Allow,
            mode,
            reason,
            warning: None,
            denied_by: None,
            next,
            repeat: 0,
            escalated: false,
        },
    }
}

/// The Stop decision. An unfinished sequence (or a policy denying `Stop`) blocks while seed's
/// own blocks since the user's last prompt are fewer than `max_blocks`, and never at
/// `max_blocks`: so a turn always ends. `stop_hook_active` decides nothing: Claude Code keeps
/// it true for the rest of a turn after one block, even after more calls, which would make
/// every limit one.
pub fn stop(m: &Machine, snap: &mut Snapshot) -> Verdict {
    let gate = m.chart.settings.stop;
    let progress = m.progress(snap);
    let finished = progress.ended.is_some() || snap.halted;
    let held = (!finished).then(|| held_stop(m, snap)).flatten();
    let mode = match &held {
        Some(h) => h.mode,
        None => m.chart.settings.enforcement,
    };
    let unfinished = gate.block_until_final && !finished;
    let may_block = (unfinished || held.is_some())
        && snap.stop_blocks < gate.max_blocks
        && mode == Enforcement::Enforce;
    let next = m.expected_next(snap).map(|n| n.tool);
    let reason = match &held {
        Some(h) => format!(
            "seed: \"{}\" is at \"{}\", where the turn does not end yet.{}",
            m.chart.name,
            h.state,
            h.recovery
                .as_ref()
                .map(|r| format!(" {}", m.fill_facts(r, snap)))
                .unwrap_or_default()
        ),
        None => format!(
            "seed: \"{}\" is not finished ({:.0}% done, at \"{}\").{}",
            m.chart.name,
            progress.overall,
            current_label(m, snap),
            next.as_ref()
                .map(|n| format!(" Continue with {n}."))
                .unwrap_or_default()
        ),
    };
    if may_block {
        snap.stop_blocks += 1;
        return Verdict {
            kind: VerdictKind::StopBlocked,
            decision: Decision::Block,
            mode,
            reason,
            warning: None,
            denied_by: None,
            next,
            repeat: snap.stop_blocks,
            escalated: false,
        };
    }
    let mut v = allow(VerdictKind::StopAllowed, mode, next);
    // A policy that holds the stop, in advise mode (or with no block left), warns instead.
    if held.is_some() && mode != Enforcement::Observe {
        v.warning = Some(reason.clone());
        v.reason = reason;
    }
    v
}

/// A policy that holds the turn open: one of an active state that applies now and denies
/// `Stop` (`deny = ["Stop"]`: "not done while the tests fail").
struct HeldStop {
    state: String,
    recovery: Option<String>,
    mode: Enforcement,
}

fn held_stop(m: &Machine, snap: &Snapshot) -> Option<HeldStop> {
    let names_stop = |p: &super::pattern::Pattern| {
        p.alts.iter().any(|a| {
            matches!(a.kind, None | Some(super::event::EventKind::Lifecycle))
                && a.glob == "Stop"
                && a.input.is_empty()
        })
    };
    snap.active.iter().find_map(|&sid| {
        let policy = policies_now(m, snap, sid, None).find(|p| p.deny.iter().any(names_stop))?;
        Some(HeldStop {
            state: m.chart.state(sid).label.clone(),
            recovery: policy.recovery.clone(),
            mode: policy.enforcement.unwrap_or_else(|| mode_for(m, sid)),
        })
    })
}
