//! PreToolUse gating and Stop decisions: advance / neutral / deny / off-path, then the
//! enforcement mode and the deadlock breaker turn that into allow / deny / ask / block.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::breaker;
use super::event::{Event, EventKind};
use super::guard;
use super::ir::{Enforcement, OffPathPolicy, Policy, StateId};
use super::machine::Machine;
use super::snapshot::Snapshot;
use super::wording::{as_calls, state_in_tier};

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

/// The region (tier) a state belongs to: the child of the root that contains it.
pub(crate) fn tier_of(m: &Machine, id: StateId) -> String {
    let chart = &m.chart;
    let mut cur = id;
    while let Some(p) = chart.state(cur).parent {
        if p == StateId::ROOT {
            return chart.state(cur).label.clone();
        }
        cur = p;
    }
    chart.name.clone()
}

fn mode_for(m: &Machine, id: StateId) -> Enforcement {
    std::iter::once(id)
        .chain(m.chart.ancestors(id))
        .find_map(|s| m.chart.state(s).enforcement)
        .unwrap_or(m.chart.settings.enforcement)
}

/// The override of the deepest active state that has one.
fn active_mode(m: &Machine, snap: &Snapshot) -> Enforcement {
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

/// Current step labels for messages.
pub fn current_label(m: &Machine, snap: &Snapshot) -> String {
    let labels: Vec<String> = m
        .atomic_active(snap)
        .iter()
        .filter(|s| !m.is_monitor(**s))
        .map(|s| m.chart.state(*s).label.clone())
        .collect();
    if labels.is_empty() {
        "start".into()
    } else {
        labels.join(" ∥ ")
    }
}

/// The call as the agent made it, for messages: a skill by its name (`Skill(skill="hope:loop")`),
/// not the `Skill` tool every skill shares.
pub(crate) fn called(ev: &Event) -> String {
    match ev.kind {
        EventKind::Skill => format!("Skill(skill=\"{}\")", ev.name),
        _ => ev.claude_tool_name(),
    }
}

pub fn gate(m: &Machine, snap: &mut Snapshot, ev: &Event) -> Verdict {
    let chart = &m.chart;
    let aliases = &chart.aliases;
    let tool = called(ev);
    let neutral = chart.neutral.iter().any(|p| p.names_tool(ev, aliases));

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
        let (next, next_text, _) = advice(m, snap, ev);
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
    let (next, next_text, ahead) = advice(m, snap, ev);
    let mode = active_mode(m, snap);
    // A call the sequence reaches later is early, not foreign to it.
    let reason = match ahead {
        Some(n) => format!(
            "seed: {tool} comes later in \"{}\" (after {n} more call{}; now at step \"{}\"). {next_text}",
            chart.name,
            if n == 1 { "" } else { "s" },
            current_label(m, snap)
        ),
        None => format!(
            "seed: {tool} is not part of \"{}\" at step \"{}\". {next_text}",
            chart.name,
            current_label(m, snap)
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
                rule: format!("denies {}", as_calls(p)),
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
    let exempt = neutral && !m.is_monitor(sid);
    if exempt {
        return None;
    }
    policies_now(m, snap, sid, Some(&ev.input)).find_map(|policy| {
        if policy.allow.is_empty() || policy.allow.iter().any(|p| p.matches(ev, aliases)) {
            return None;
        }
        let list: Vec<String> = policy.allow.iter().map(as_calls).collect();
        Some(Objection {
            state: sid,
            policy,
            rule: format!("allows only {}", list.join(", ")),
        })
    })
}

/// The next call, a sentence naming the path to the denied tool, and how many calls come
/// before it on that path (only computed for calls the sequence objects to: it searches the
/// graph).
fn advice(m: &Machine, snap: &Snapshot, ev: &Event) -> (Option<String>, String, Option<usize>) {
    let tool = called(ev);
    let recovery = m.recovery(snap, Some(ev));
    let next = recovery.next.first().map(|n| n.tool.clone());
    let stuck = recovery
        .next
        .first()
        .is_some_and(|n| n.blocked_by.is_some());
    // A refused step is not a call to make.
    let next = next.filter(|_| !stuck);
    // "First" once, at the head of the path; the call itself closes it, with the input its
    // step needs when the denied input fits no step.
    let allowed_as = |last: &str| {
        if recovery.denied_input_differs {
            format!("{tool} is allowed only as {last}, not with this input")
        } else {
            // The same tool at another stage (its input) reads as that stage; a step bound to
            // other calls too (`*`, `hope:loop | ExitPlanMode`) names the call that was made.
            let head = last.split('(').next().unwrap_or(last);
            let same_tool = head == tool || tool.ends_with(&format!("__{head}"));
            let shown = if same_tool && last.len() > head.len() {
                last
            } else {
                tool.as_str()
            };
            format!("{shown} is allowed")
        }
    };
    let next_text = match (&recovery.path_to_denied, &next) {
        _ if stuck => recovery.suggestions.first().cloned().unwrap_or_default(),
        (Some(path), _) if path.len() > 1 => {
            let first: Vec<String> = path[..path.len() - 1]
                .iter()
                .map(|s| s.tool.clone())
                .collect();
            format!(
                "First call {}; after that, {}.",
                super::wording::calls_in_order(&first, ", then "),
                allowed_as(&path[path.len() - 1].tool)
            )
        }
        (Some(path), _) if recovery.denied_input_differs && path.len() == 1 => {
            format!("Here, {}.", allowed_as(&path[0].tool))
        }
        (_, Some(n)) => format!("Next: call {n}."),
        // At an ending: what the ending says to do.
        _ => m.ended_in(snap).unwrap_or_default(),
    };
    let ahead = recovery
        .path_to_denied
        .as_ref()
        .filter(|_| !stuck && !recovery.denied_input_differs)
        .map(|p| p.len().saturating_sub(1))
        .filter(|n| *n > 0);
    (next, next_text, ahead)
}

fn allow(kind: VerdictKind, mode: Enforcement, next: Option<String>) -> Verdict {
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
    }
}

/// Apply the enforcement mode and the deadlock breaker to an objection.
#[allow(clippy::too_many_arguments)]
fn decide(
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

pub fn stop(m: &Machine, snap: &mut Snapshot, ev: &Event) -> Verdict {
    let gate = m.chart.settings.stop;
    let active_hook = ev
        .input
        .get("stop_hook_active")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let progress = m.progress(snap);
    let finished = progress.done || snap.halted;
    let mode = m.chart.settings.enforcement;
    let may_block = gate.block_until_final
        && !finished
        && !active_hook
        && snap.stop_blocks < gate.max_blocks
        && mode == Enforcement::Enforce;
    let next = m.expected_next(snap).map(|n| n.tool);
    if may_block {
        snap.stop_blocks += 1;
        let reason = format!(
            "seed: \"{}\" is not finished ({:.0}% done, at \"{}\").{}",
            m.chart.name,
            progress.overall,
            current_label(m, snap),
            next.as_ref()
                .map(|n| format!(" Continue with {n}."))
                .unwrap_or_default()
        );
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
    allow(VerdictKind::StopAllowed, mode, next)
}
