//! PreToolUse gating and Stop decisions: advance / neutral / deny / off-path, then the
//! enforcement mode and the deadlock breaker turn that into allow / deny / ask / block.
//!
//! This file holds the verdict and the gate and stop decisions; `objection` finds a state's
//! refusal, `advice` words where the sequence is and what to do, `enforcement` applies the
//! mode and the deadlock breaker.
#![warn(clippy::too_many_lines)] // Past 80 lines (clippy.toml) a function is split or says why.

mod advice;
mod enforcement;
mod objection;
mod rule;

use serde::{Deserialize, Serialize};

use super::breaker;
use super::event::Event;
use super::ir::{Enforcement, OffPathPolicy, Outcome};
use super::machine::Machine;
use super::snapshot::Snapshot;
use super::wording::verdict as words;
use advice::advice;
use enforcement::{active_mode, allow, decide, mode_for};
pub(crate) use objection::Objection;

pub use advice::current_label;
pub(crate) use advice::{called, called_as_judged, tier_of, where_now};
pub(crate) use objection::{
    all_objections, first_objecting, first_objection, objection, policies_now,
};
pub use rule::{Clause, Rule};

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

#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// Which rule decided, as data (the log keeps the words, `reason`).
    #[serde(skip)]
    pub rule: Option<Rule>,
}

/// Verdicts that say the same are equal: `rule` is not recorded (the log keeps the words), so
/// a verdict read back from a log equals the one that was made.
impl PartialEq for Verdict {
    fn eq(&self, o: &Self) -> bool {
        self.said() == o.said()
    }
}

/// What a verdict says: every field but `rule`.
type Said<'a> = (
    VerdictKind,
    Decision,
    Enforcement,
    &'a str,
    Option<&'a str>,
    Option<&'a DeniedBy>,
    Option<&'a str>,
    u32,
    bool,
);

impl Verdict {
    fn said(&self) -> Said<'_> {
        (
            self.kind,
            self.decision,
            self.mode,
            &self.reason,
            self.warning.as_deref(),
            self.denied_by.as_ref(),
            self.next.as_deref(),
            self.repeat,
            self.escalated,
        )
    }
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
    let neutral = m.is_neutral(ev);
    // 1. Policies of every active state intersect: any deny wins. A pattern with input
    //    matchers (`Bash(rm *)`, `odyssean_anchor(stage=init)`) covers only calls with that
    //    input, as in Claude Code's permission rules.
    if let Some(o) = first_objecting(m, snap, ev, neutral) {
        let r = policy_refusal(m, snap, ev, &o, advise);
        let mut v = decide(
            m,
            snap,
            ev,
            VerdictKind::Deny,
            r.mode,
            r.reason,
            Some(r.by),
            r.next,
        );
        v.rule = Some(r.rule);
        return v;
    }
    // 2. Does it move the sequence? 3. Or pass without moving it?
    let passing = passes(m, snap, ev, neutral);
    // An allowed call forgives no refusal of its tool: refusals can depend on the input
    // (`Bash(rm *)`), and the state change a call makes resets the breaker (see `step`).
    breaker::passed_gates(m, snap, ev);
    if let Some(rule) = passing {
        let kind = match rule {
            Rule::Step { .. } => VerdictKind::Advance,
            _ => VerdictKind::Neutral,
        };
        let mut v = allow(kind, active_mode(m, snap), None);
        v.rule = Some(rule);
        return v;
    }
    // 4. Off path. A sequence that has ended gates nothing more: a finished one lets calls
    // through, and a failed one does too, with its ending's recovery (what to do instead of
    // a lock-out).
    if let Some(ended) = m.ended(snap) {
        let mode = active_mode(m, snap);
        let mut v = allow(VerdictKind::OffPath, mode, None);
        v.rule = Some(Rule::Ended);
        if ended.outcome == Outcome::Error {
            v.reason = words::after_error_ending(m, &ended);
            if mode != Enforcement::Observe {
                v.warning = Some(v.reason.clone());
            }
        }
        return v;
    }
    off_path(m, snap, ev, advise)
}

/// A policy's refusal of a call, before the mode and the breaker apply.
struct Refusal {
    mode: Enforcement,
    reason: String,
    by: DeniedBy,
    next: Option<String>,
    rule: Rule,
}

fn policy_refusal(
    m: &Machine,
    snap: &Snapshot,
    ev: &Event,
    o: &Objection<'_>,
    advise: bool,
) -> Refusal {
    let by = DeniedBy {
        state: m.chart.state(o.state).label.clone(),
        tier: tier_of(m, o.state),
        rule: o.rule(m, snap),
        gate: o.policy.gate.clone(),
    };
    let (next, advice, _) = advised(m, snap, ev, advise);
    let hint = o
        .policy
        .recovery
        .as_ref()
        .map(|r| m.fill_facts(r, snap))
        // Said once: the advice may already quote it (what lifts a deep-state refusal).
        .filter(|r| !advice.contains(r.as_str()));
    Refusal {
        mode: o.policy.enforcement.unwrap_or_else(|| mode_for(m, o.state)),
        reason: words::policy_refusal(&called_as_judged(m, ev), &by, hint.as_deref(), &advice),
        by,
        next,
        rule: Rule::Policy {
            state: o.state,
            policy: o.index,
            clause: o.clause,
        },
    }
}

/// The advice for a refused call, or none when not `advise` (see [`gate_with`]).
fn advised(
    m: &Machine,
    snap: &Snapshot,
    ev: &Event,
    advise: bool,
) -> (Option<String>, String, Option<usize>) {
    if advise {
        advice(m, snap, ev)
    } else {
        (None, String::new(), None)
    }
}

/// The rule that lets `ev` through without a refusal: a step it takes; else the neutral
/// list, an allow list naming it, or a transition that stays where it is. Only the
/// workflow's own states grant by allow list: a deep-state constraint (seed 000 tier 2) only
/// narrows what the railroad allows, so a tool on its list that the railroad does not expect
/// stays off the path (tier 1 ∩ tier 2).
pub(crate) fn passes(m: &Machine, snap: &Snapshot, ev: &Event, neutral: bool) -> Option<Rule> {
    let chart = &m.chart;
    let selected = m.select(snap, Some(ev));
    let (moving, staying): (Vec<usize>, Vec<usize>) = selected
        .iter()
        .partition(|&&t| !chart.transitions[t].targets.is_empty());
    if !moving.is_empty() {
        return Some(Rule::Step {
            transitions: moving,
        });
    }
    if neutral {
        let k = chart
            .neutral
            .iter()
            .position(|p| p.names_tool(ev, &chart.aliases));
        return Some(Rule::Neutral { pattern: k });
    }
    allow_listed(m, snap, ev)
        .or_else(|| staying.first().map(|&transition| Rule::Loop { transition }))
}

/// An allow list of an active (non-monitor) state that names `ev`.
fn allow_listed(m: &Machine, snap: &Snapshot, ev: &Event) -> Option<Rule> {
    snap.active
        .iter()
        .filter(|s| !m.is_monitor(**s))
        .find_map(|&state| {
            m.chart
                .state(state)
                .policy
                .allow
                .iter()
                .position(|p| p.matches(ev, &m.chart.aliases))
                .map(|pattern| Rule::Allows {
                    state,
                    policy: 0,
                    pattern,
                })
        })
}

/// A call nothing expects now, with the chart's `off_path` setting applied.
fn off_path(m: &Machine, snap: &mut Snapshot, ev: &Event, advise: bool) -> Verdict {
    let (next, next_text, ahead) = advised(m, snap, ev, advise);
    let mode = active_mode(m, snap);
    // A call the sequence reaches later is early, not foreign to it.
    let reason = words::off_path(m, snap, &called_as_judged(m, ev), ahead, &next_text);
    let rule = Some(Rule::OffPath { ahead });
    let mut v = match off_path_policy(m, ev) {
        OffPathPolicy::Deny => decide(m, snap, ev, VerdictKind::OffPath, mode, reason, None, next),
        policy => {
            let warn = policy == OffPathPolicy::Warn && mode != Enforcement::Observe;
            let mut v = allow(VerdictKind::OffPath, mode, next);
            v.warning = warn.then(|| reason.clone());
            v.reason = reason;
            v
        }
    };
    v.rule = rule;
    v
}

/// What an off-path call gets: a call to one of the sequence's own tools is a step out of
/// order (`out_of_order`), any other call is foreign to it (`off_path`).
fn off_path_policy(m: &Machine, ev: &Event) -> OffPathPolicy {
    let s = &m.chart.settings;
    let own = || {
        m.chart
            .mentioned_patterns()
            .iter()
            .any(|pat| pat.matches(ev, &m.chart.aliases))
    };
    match s.out_of_order {
        Some(p) if own() => p,
        _ => s.off_path,
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
        Some(h) => {
            let recovery = h.recovery.as_ref().map(|r| m.fill_facts(r, snap));
            words::stop_held(m, &h.state, recovery.as_deref())
        }
        None => words::stop_unfinished(
            m,
            progress.overall,
            &current_label(m, snap),
            next.as_deref(),
        ),
    };
    let rule = Some(match &held {
        Some(h) => Rule::Held { state: h.id },
        None => Rule::Unfinished,
    });
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
            rule,
        };
    }
    let mut v = allow(VerdictKind::StopAllowed, mode, next);
    v.rule = rule;
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
    id: super::ir::StateId,
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
            id: sid,
            state: m.chart.state(sid).label.clone(),
            recovery: policy.recovery.clone(),
            mode: policy.enforcement.unwrap_or_else(|| mode_for(m, sid)),
        })
    })
}
