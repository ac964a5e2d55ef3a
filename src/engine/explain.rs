//! Why a call gets its verdict now, rule by rule (`seed explain`): the verdict the hook would
//! give, every rule of the sequence that refuses or lets the call through with where it is
//! declared, and the shortest way to make the call legal.

use serde::Serialize;

use super::event::Event;
use super::ir::{Enforcement, Span, StateId, Trigger};
use super::machine::Machine;
use super::snapshot::Snapshot;
use super::verdict::{self, Decision, Objection, Rule, Verdict, VerdictKind};
use super::wording::explain as words;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    pub sequence: String,
    /// The call as the sequence judges it (`mcp__hestai__odyssean_anchor(stage="bind")`).
    pub call: String,
    pub decision: Decision,
    pub kind: VerdictKind,
    pub mode: Enforcement,
    /// What the hook would answer (empty for a call let through silently).
    pub reason: String,
    pub warning: Option<String>,
    /// Every rule that decides the call, the deciding one marked.
    pub rules: Vec<Reason>,
    /// Refusals of this call in a row so far (the deadlock breaker's count, this one
    /// included) and the limit past which it escalates; set when the call is refused.
    pub breaker: Option<Breaker>,
    /// The calls to make first, ending with the call as it becomes legal; empty when it is
    /// legal now or no way is known.
    pub way: Vec<String>,
    /// Recovery's suggestions for this call, most important first.
    pub suggestions: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Breaker {
    pub count: u32,
    pub limit: u32,
    pub escalated: bool,
}

/// A rule that refuses or lets the call through.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reason {
    /// `policy`, `deep_state`, `step`, `loop`, `neutral`, `allow_list`, `ended`, `off_path`.
    pub kind: &'static str,
    /// `refuses` or `allows`.
    pub effect: &'static str,
    /// This rule gave the verdict.
    pub decides: bool,
    /// The rule in words.
    pub text: String,
    /// Where the sequence declares it (the state's place when the rule has none of its own).
    pub span: Option<Span>,
    /// For a deep-state constraint: what put it in force, with the facts as sampled now.
    pub in_force: Option<String>,
    #[serde(skip)]
    pub rule: Rule,
}

impl Machine {
    /// Explain `ev` at `snap` (the snapshot is not changed: the verdict is the one the next
    /// hook would give).
    pub fn explain(&self, snap: &Snapshot, ev: &Event) -> Explanation {
        let mut sim = snap.clone();
        let v = verdict::gate(self, &mut sim, ev);
        let neutral = self.is_neutral(ev);
        let mut rules: Vec<Reason> = verdict::all_objections(self, snap, ev, neutral)
            .iter()
            .map(|o| self.objection_reason(snap, o))
            .collect();
        rules.extend(self.passing_reasons(snap, ev, neutral));
        if rules.iter().all(|r| r.effect == "refuses") {
            rules.extend(self.fallback_reason(snap, &v));
        }
        for r in &mut rules {
            r.decides = decided_by(&v, &r.rule);
        }
        let (way, suggestions) = self.way_to(snap, ev, &v);
        Explanation {
            sequence: self.chart.name.clone(),
            call: verdict::called_as_judged(self, ev),
            breaker: self.breaker_of(&v),
            decision: v.decision,
            kind: v.kind,
            mode: v.mode,
            reason: v.reason,
            warning: v.warning,
            rules,
            way,
            suggestions,
        }
    }

    fn objection_reason(&self, snap: &Snapshot, o: &Objection<'_>) -> Reason {
        let st = self.chart.state(o.state);
        let deep = self.is_monitor(o.state);
        Reason {
            kind: if deep { "deep_state" } else { "policy" },
            effect: "refuses",
            decides: false,
            text: words::objection(self, snap, o),
            span: o.policy.span.or(st.span),
            in_force: deep
                .then(|| {
                    words::in_force(self, snap, o.policy.when.as_ref(), self.entered_by(o.state))
                })
                .flatten(),
            rule: Rule::Policy {
                state: o.state,
                policy: o.index,
                clause: o.clause,
            },
        }
    }

    /// The eventless transition guarded by a fact that enters a deep-state constraint.
    fn entered_by(&self, sid: StateId) -> Option<&super::ir::Guard> {
        self.chart.transitions.iter().find_map(|t| {
            (t.targets.contains(&sid) && matches!(t.trigger, Trigger::Always))
                .then_some(t.guard.as_ref())
                .flatten()
        })
    }

    /// The steps the call takes, the neutral list and allow lists naming it, the transitions
    /// that take it without moving.
    fn passing_reasons(&self, snap: &Snapshot, ev: &Event, neutral: bool) -> Vec<Reason> {
        let chart = &self.chart;
        let mut out = Vec::new();
        for t in self.select(snap, Some(ev)) {
            let tr = &chart.transitions[t];
            let (kind, rule) = match tr.targets.is_empty() {
                false => (
                    "step",
                    Rule::Step {
                        transitions: vec![t],
                    },
                ),
                true => ("loop", Rule::Loop { transition: t }),
            };
            let span = tr.span.or(chart.state(tr.source).span);
            out.push(allows(kind, words::transition(self, snap, t), span, rule));
        }
        if neutral {
            let named = chart.neutral.iter().enumerate();
            let mut named = named
                .filter(|(_, p)| p.names_tool(ev, &chart.aliases))
                .peekable();
            if named.peek().is_none() {
                let text = words::neutral(self, snap, None);
                out.push(allows(
                    "neutral",
                    text,
                    None,
                    Rule::Neutral { pattern: None },
                ));
            }
            for (k, p) in named {
                let rule = Rule::Neutral { pattern: Some(k) };
                out.push(allows(
                    "neutral",
                    words::neutral(self, snap, Some(p)),
                    None,
                    rule,
                ));
            }
        }
        for &sid in snap.active.iter().filter(|s| !self.is_monitor(**s)) {
            let st = chart.state(sid);
            for (k, p) in st.policy.allow.iter().enumerate() {
                if p.matches(ev, &chart.aliases) {
                    let rule = Rule::Allows {
                        state: sid,
                        policy: 0,
                        pattern: k,
                    };
                    let text = words::allow_list(self, snap, sid, p);
                    out.push(allows("allow_list", text, st.policy.span.or(st.span), rule));
                }
            }
        }
        out
    }

    /// When nothing lets the call through: the sequence has ended, or the chart's
    /// `off_path` setting decides.
    fn fallback_reason(&self, snap: &Snapshot, v: &Verdict) -> Option<Reason> {
        let rule = v.rule.clone()?;
        let (kind, effect) = match &rule {
            Rule::Ended => ("ended", "allows"),
            Rule::OffPath { .. } if v.blocks() => ("off_path", "refuses"),
            Rule::OffPath { .. } => ("off_path", "allows"),
            _ => return None,
        };
        Some(Reason {
            kind,
            effect,
            decides: false,
            text: words::fallback(self, snap, &rule),
            span: None,
            in_force: None,
            rule,
        })
    }

    fn breaker_of(&self, v: &Verdict) -> Option<Breaker> {
        (v.repeat > 0 && v.kind != VerdictKind::StopBlocked).then_some(Breaker {
            count: v.repeat,
            limit: self.chart.settings.deadlock.limit,
            escalated: v.escalated,
        })
    }

    /// The shortest way to make a refused (or warned) call legal: recovery's path to it and
    /// its suggestions.
    fn way_to(&self, snap: &Snapshot, ev: &Event, v: &Verdict) -> (Vec<String>, Vec<String>) {
        if !v.blocks() && v.warning.is_none() {
            return (Vec::new(), Vec::new());
        }
        let rec = self.recovery(snap, Some(ev));
        let way = rec
            .path_to_denied
            .unwrap_or_default()
            .into_iter()
            .map(|n| n.tool)
            .collect();
        (way, rec.suggestions)
    }
}

fn allows(kind: &'static str, text: String, span: Option<Span>, rule: Rule) -> Reason {
    Reason {
        kind,
        effect: "allows",
        decides: false,
        text,
        span,
        in_force: None,
        rule,
    }
}

/// `rule` is the one the verdict names (a step: one of the transitions it took).
fn decided_by(v: &Verdict, rule: &Rule) -> bool {
    match (&v.rule, rule) {
        (Some(Rule::Step { transitions }), Rule::Step { transitions: one }) => {
            one.iter().all(|t| transitions.contains(t))
        }
        (Some(r), _) => r == rule,
        (None, _) => false,
    }
}
