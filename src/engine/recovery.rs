//! Recovery from the graph: the next expected step, the shortest legal path to a denied tool,
//! and the nearest ending's recovery text. Always concrete: the exact tool and its input.

use serde::{Deserialize, Serialize};

use super::event::{Event, claude_tool_name};
use super::guard;
use super::ir::{Guard, InputMatcher, Outcome, StateId, StateKind, Transition, Trigger};
use super::machine::Machine;
use super::snapshot::Snapshot;

/// One call the agent can make.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NextStep {
    /// Canonical form with input: `starlog.orient`, `odyssean_anchor(stage="bind")`.
    pub call: String,
    /// The tool as Claude Code names it: `mcp__starlog__orient`, `Skill`, `/hope:intent`.
    pub tool: String,
    /// Label of the state the call leads to.
    pub leads_to: String,
    /// Set when an active state's policy refuses this call now (a deep-state constraint over
    /// the railroad's next step): who refuses it and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<String>,
    #[serde(skip)]
    pub transition: usize,
}

impl NextStep {
    /// `tool` as the agent's calls in this session spell its server (a plugin's or not), and
    /// `${var}` in its input as the variable holds it now (`WebFetch(url="${source_url}")` is
    /// a call to one URL, the one the session was given).
    fn spelled_for(mut self, snap: &Snapshot) -> NextStep {
        self.tool = super::tool_name::spell_as_seen(&self.tool, &snap.plugins);
        if self.call.contains("${") || self.tool.contains("${") {
            let scope = super::interpolate::Scope {
                vars: &snap.vars,
                flags: &snap.flags,
            };
            self.call = super::interpolate::shown(&self.call, &scope);
            self.tool = super::interpolate::shown(&self.tool, &scope);
        }
        self
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Recovery {
    /// The expected next step (on the shortest path to an ending), then the other legal ones.
    pub next: Vec<NextStep>,
    /// For a denied call: the calls to make first, ending with the call itself.
    pub path_to_denied: Option<Vec<NextStep>>,
    /// The denied call's input fits no step: the path ends with the same tool called with the
    /// input its step needs (the last step names it), not with the call as it was made.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub denied_input_differs: bool,
    /// The nearest ending's recovery or message.
    pub ending: Option<String>,
    /// Ready-to-print suggestions, most important first.
    pub suggestions: Vec<String>,
}

/// Input values a transition needs, read from its guard (`Input` matchers under `all`).
fn required_input(guard: &Option<Guard>, out: &mut Vec<(String, String)>) {
    fn walk(g: &Guard, out: &mut Vec<(String, String)>) {
        match g {
            Guard::Input { pointer, matcher } => {
                let key = pointer.trim_start_matches('/').replace('/', ".");
                let v = match matcher {
                    InputMatcher::Glob(s) => format!("\"{s}\""),
                    InputMatcher::Equals(v) => v.to_string(),
                    InputMatcher::Present => "…".into(),
                };
                out.push((key, v));
            }
            Guard::All { of } => of.iter().for_each(|g| walk(g, out)),
            _ => {}
        }
    }
    if let Some(g) = guard {
        walk(g, out);
    }
}

/// Whether `input` satisfies the input matchers of a guard (other conditions are the step's
/// business: they depend on where the sequence is when the call is made).
pub(crate) fn input_fits(guard: &Option<Guard>, input: &serde_json::Value) -> bool {
    fn walk(g: &Guard, input: &serde_json::Value) -> bool {
        match g {
            Guard::Input { pointer, matcher } => {
                super::pattern::input_matches(input, pointer, matcher)
            }
            Guard::All { of } => of.iter().all(|g| walk(g, input)),
            _ => true,
        }
    }
    guard.as_ref().is_none_or(|g| walk(g, input))
}

impl Machine {
    /// The call that fires transition `ti`, in canonical and Claude Code spelling.
    pub fn describe_transition(&self, ti: usize) -> Option<NextStep> {
        let t: &Transition = &self.chart.transitions[ti];
        let Trigger::Event(p) = &t.trigger else {
            return None;
        };
        // Only tools, skills and commands are calls; a prompt or a lifecycle event is waited for.
        if p.alts[0].kind.is_some_and(|k| !k.is_action()) {
            return None;
        }
        let base = p.describe_call();
        let mut extra = Vec::new();
        required_input(&t.guard, &mut extra);
        let call = if extra.is_empty() {
            base.clone()
        } else {
            let args: Vec<String> = extra.iter().map(|(k, v)| format!("{k}={v}")).collect();
            if let Some(stripped) = base.strip_suffix(')') {
                format!("{stripped}, {})", args.join(", "))
            } else {
                format!("{base}({})", args.join(", "))
            }
        };
        let alt = &p.alts[0];
        let tool = match alt.kind {
            Some(super::event::EventKind::Skill) => format!("Skill(skill=\"{}\")", alt.glob),
            Some(super::event::EventKind::Command) => format!("/{}", alt.glob),
            // A name written without a kind: a `plugin:name` is called as a skill.
            None if alt.glob.contains(':') && !call.contains('(') => {
                super::wording::call_of_unkinded(&alt.glob)
            }
            _ => {
                let name = match super::pattern::any_server_tool(&alt.glob) {
                    Some(tool) => tool.to_string(),
                    None => claude_tool_name(&alt.glob),
                };
                match call.find('(') {
                    Some(i) => format!("{name}{}", &call[i..]),
                    None => name,
                }
            }
        };
        let leads_to = t
            .targets
            .first()
            .map(|s| self.chart.state(*s).label.clone())
            .unwrap_or_else(|| self.chart.state(t.source).label.clone());
        Some(NextStep {
            call,
            tool,
            leads_to,
            blocked_by: None,
            transition: ti,
        })
    }

    /// Event transitions that could fire now (guards hold, input matchers aside), in
    /// selection order, deduplicated by call.
    pub fn enabled_calls(&self, snap: &Snapshot) -> Vec<NextStep> {
        let mut out: Vec<NextStep> = Vec::new();
        for atomic in self.atomic_active(snap) {
            for ti in self.transitions_for(atomic) {
                let t = &self.chart.transitions[ti];
                if !matches!(t.trigger, Trigger::Event(_)) {
                    continue;
                }
                if !t
                    .guard
                    .as_ref()
                    .is_none_or(|g| guard::eval_ignoring_input(g, snap))
                {
                    continue;
                }
                // A bare wildcard (`*`: "anything goes here") names no call to suggest.
                if let Some(step) = self.describe_transition(ti)
                    && !step.call.chars().all(|c| matches!(c, '*' | '?'))
                    && !out.iter().any(|o| o.call == step.call)
                {
                    out.push(step);
                }
            }
        }
        out
    }

    /// The first agent action on the shortest path to an ending.
    pub fn expected_next(&self, snap: &Snapshot) -> Option<NextStep> {
        let (dist, via) = self.distances(snap);
        self.expected_next_with(snap, &dist, &via, &self.enabled_calls(snap))
    }

    /// The ending "next" heads for and the edges leading there: the nearest success ending,
    /// or, when none can be reached, the nearest error ending (an error ending is a way out,
    /// not a goal). Next step, steps remaining and recovery all follow this one route.
    pub(crate) fn route(
        &self,
        snap: &Snapshot,
        dist: &[Option<u32>],
        via: &[Option<super::graph::Edge>],
    ) -> Option<(StateId, Vec<super::graph::Edge>)> {
        let goal = self
            .goals()
            .into_iter()
            .filter(|g| dist[g.index()].is_some() && !snap.is_active(*g))
            .min_by_key(|g| {
                let error = matches!(
                    self.chart.state(*g).kind,
                    StateKind::Final {
                        outcome: Outcome::Error,
                        ..
                    }
                );
                (error, dist[g.index()].unwrap_or(u32::MAX))
            })?;
        Some((
            goal,
            self.start_with_a_call(self.path_to(via, goal, snap), snap),
        ))
    }

    /// The events along `path`, as the agent reads them: a call as it is made, an event the
    /// agent waits for by its name (`SessionEnd`, `prompt`).
    pub(crate) fn events_on(&self, path: &[super::graph::Edge]) -> Vec<String> {
        path.iter()
            .filter(|e| e.cost > 0)
            .map(|e| match self.describe_transition(e.transition) {
                Some(n) => n.tool,
                None => self.waited_for(e.transition),
            })
            .collect()
    }

    /// The event a transition waits for, by name (`SessionEnd`, `prompt`).
    fn waited_for(&self, ti: usize) -> String {
        match &self.chart.transitions[ti].trigger {
            Trigger::Event(p) => {
                let a = &p.alts[0];
                match a.kind {
                    Some(super::event::EventKind::Prompt) => "the user's prompt".into(),
                    _ => a.glob.clone(),
                }
            }
            _ => String::new(),
        }
    }

    /// The events from the current configuration to the ending "next" heads for: the calls
    /// to make and the events to wait for. Its length is the progress' steps remaining.
    pub fn route_to_ending(&self, snap: &Snapshot) -> Vec<String> {
        let (dist, via) = self.distances(snap);
        self.route(snap, &dist, &via)
            .map(|(_, path)| self.events_on(&path))
            .unwrap_or_default()
    }

    /// `expected_next` with the path search and the enabled calls already computed (recovery
    /// needs them several times; each search walks the whole graph).
    fn expected_next_with(
        &self,
        snap: &Snapshot,
        dist: &[Option<u32>],
        via: &[Option<super::graph::Edge>],
        enabled: &[NextStep],
    ) -> Option<NextStep> {
        let (_, path) = self.route(snap, dist, via)?;
        path.iter().find(|e| e.cost > 0).and_then(|e| {
            // Prefer the enabled form of the same transition (its guard holds now).
            enabled
                .iter()
                .find(|s| s.transition == e.transition)
                .cloned()
                .or_else(|| self.describe_transition(e.transition))
                .map(|n| n.spelled_for(snap))
        })
    }

    pub fn recovery(&self, snap: &Snapshot, denied: Option<&Event>) -> Recovery {
        let mut rec = Recovery::default();
        let (dist, via) = self.distances(snap);
        let enabled = self.enabled_calls(snap);
        let mut next = Vec::new();
        if let Some(primary) = self.expected_next_with(snap, &dist, &via, &enabled) {
            next.push(primary);
        }
        for s in enabled {
            if !next.iter().any(|n: &NextStep| n.call == s.call) {
                next.push(s.spelled_for(snap));
            }
        }
        // Steps an active policy refuses go last, marked; if that is all of them, there is no
        // legal step until the deep state changes (tier 2 over tier 1).
        for n in &mut next {
            n.blocked_by = self.refusing(snap, n).map(|(_, text)| text);
        }
        next.sort_by_key(|n| n.blocked_by.is_some());
        let stuck = next.first().and_then(|n| n.blocked_by.clone());
        // The state that refuses the first step when none is legal: its own text says what
        // lifts the refusal (a constraint's `when`), in place of a general "when it changes".
        let stuck_by = next
            .first()
            .filter(|n| n.blocked_by.is_some())
            .and_then(|n| self.refusing(snap, n))
            .map(|(sid, _)| sid);
        rec.next = next;

        if let Some(ev) = denied {
            // A step the call fits as it was made; else one of the same tool with other input.
            let (path, differs) = match self.path_to_call(snap, ev, &dist, &via, true) {
                Some(p) => (Some(p), false),
                None => (self.path_to_call(snap, ev, &dist, &via, false), true),
            };
            rec.denied_input_differs = differs && path.is_some();
            rec.path_to_denied = path.map(|p| p.into_iter().map(|n| n.spelled_for(snap)).collect());
        }
        rec.ending = self.nearest_ending_hint(&dist);

        // Suggestions, most important first: no legal step, then the states' own recovery texts.
        let lift = stuck_by.and_then(|sid| {
            let r = self.chart.state(sid).policy.recovery.as_deref()?;
            Some(self.fill_facts(r, snap))
        });
        if let (Some(by), Some(n)) = (&stuck, rec.next.first()) {
            let then = match &lift {
                Some(l) => format!("{l} Until then, ask the user."),
                None => "It becomes legal when that deep state changes; until then, ask the user."
                    .to_string(),
            };
            rec.suggestions.push(format!(
                "No legal step now: the next step of \"{}\" is {}, but {}. {then}",
                self.chart.name,
                n.tool,
                by.trim_end_matches('.')
            ));
        }
        rec.suggestions.extend(
            self.policy_hints(snap, denied)
                .into_iter()
                .filter(|h| lift.as_ref() != Some(h)),
        );
        if let Some(ev) = denied {
            rec.suggestions.extend(self.about_denied(snap, ev, &rec));
        }
        if let Some(n) = rec.next.first().filter(|n| n.blocked_by.is_none()) {
            let others: Vec<String> = rec
                .next
                .iter()
                .skip(1)
                .take(3)
                .map(|s| s.tool.clone())
                .collect();
            if others.is_empty() {
                rec.suggestions.push(format!("Next: call {}.", n.tool));
            } else {
                rec.suggestions
                    .push(format!("Next: call {} (or {}).", n.tool, others.join(", ")));
            }
        }
        if let Some(id) = snap.failed {
            let st = self.chart.state(id);
            if let Some(ended) = self.ended_in(snap) {
                rec.suggestions.push(ended);
            } else if matches!(st.kind, StateKind::Choice) {
                rec.suggestions.push(format!(
                    "Choice \"{}\" has no branch for the current state; set the flag or value one of its branches needs.",
                    st.label
                ));
            }
        }
        if let Some(e) = &rec.ending {
            rec.suggestions.push(format!("If stuck: {e}"));
        }
        rec
    }

    /// What to say about a denied call: the way to it, or, when no step leads to it, who
    /// refuses it here.
    fn about_denied(&self, snap: &Snapshot, ev: &Event, rec: &Recovery) -> Option<String> {
        let tool = ev.claude_tool_name();
        if let Some(path) = &rec.path_to_denied {
            let (last, before) = path
                .split_last()
                .map_or((None, &[][..]), |(l, b)| (Some(l), b));
            let first: Vec<String> = before.iter().map(|s| s.tool.clone()).collect();
            let first_text = super::wording::calls_in_order(&first, " → ");
            return match last {
                Some(last) if rec.denied_input_differs => {
                    let after = if first.is_empty() {
                        String::new()
                    } else {
                        format!(" after: {first_text}")
                    };
                    Some(format!(
                        "{tool} with this input fits no step; {} becomes legal{after}.",
                        last.tool
                    ))
                }
                Some(_) if !first.is_empty() => {
                    Some(format!("{tool} becomes legal after: {first_text}."))
                }
                _ => None,
            };
        }
        // A state's policy refuses it here (a deep-state constraint over a step that allows
        // it): say who, not that no step leads to it.
        let neutral = self
            .chart
            .neutral
            .iter()
            .any(|x| x.names_tool(ev, &self.chart.aliases));
        match super::verdict::first_objection(self, snap, ev, neutral) {
            Some((sid, rule)) => {
                let label = &self.chart.state(sid).label;
                let who = super::wording::state_in_tier(
                    &format!("\"{label}\""),
                    label,
                    &super::verdict::tier_of(self, sid),
                );
                Some(format!("{tool} is not allowed now: {who} {rule}."))
            }
            None => Some(format!(
                "{tool} is not reachable from the current step of \"{}\".",
                self.chart.name
            )),
        }
    }

    /// The ending the sequence failed in, with its recovery text: what a call there is told.
    pub(crate) fn ended_in(&self, snap: &Snapshot) -> Option<String> {
        let st = self.chart.state(snap.failed?);
        match &st.kind {
            StateKind::Final {
                recovery: Some(r), ..
            } => Some(format!("Ended in \"{}\": {r}", st.label)),
            _ => None,
        }
    }

    /// Who refuses step `n` now, as "\"state\" (tier) rule — description", when an active
    /// state's policy does. Only plain tool calls can be judged without their input.
    fn refusing(&self, snap: &Snapshot, n: &NextStep) -> Option<(StateId, String)> {
        let t = &self.chart.transitions[n.transition];
        let Trigger::Event(p) = &t.trigger else {
            return None;
        };
        let alt = p.alts.first()?;
        if alt.kind.is_some_and(|k| k != super::event::EventKind::Tool)
            || p.is_glob()
            || n.tool.contains('(')
        {
            return None;
        }
        let ev = Event::tool(&n.tool, serde_json::Value::Null);
        let neutral = self
            .chart
            .neutral
            .iter()
            .any(|x| x.names_tool(&ev, &self.chart.aliases));
        super::verdict::first_objection(self, snap, &ev, neutral).map(|(s, rule)| {
            let st = self.chart.state(s);
            let why = st
                .notes
                .first()
                .map(|d| format!(" — {d}"))
                .unwrap_or_default();
            let text = format!(
                "\"{}\" ({}) {rule}{why}",
                st.label,
                super::verdict::tier_of(self, s)
            );
            (s, text)
        })
    }

    /// Policy recovery texts: the state that denies `denied`, or, with no denied call, every
    /// active state that has one.
    fn policy_hints(&self, snap: &Snapshot, denied: Option<&Event>) -> Vec<String> {
        let chart = &self.chart;
        let mut out: Vec<String> = Vec::new();
        for &s in &snap.active {
            let texts: Vec<&String> = match denied {
                Some(ev) => {
                    let neutral = chart
                        .neutral
                        .iter()
                        .any(|n| n.names_tool(ev, &chart.aliases));
                    super::verdict::objection(self, snap, s, ev, neutral)
                        .and_then(|o| o.policy.recovery.as_ref())
                        .into_iter()
                        .collect()
                }
                None => super::verdict::policies_now(self, snap, s, None)
                    .filter_map(|p| p.recovery.as_ref())
                    .collect(),
            };
            out.extend(texts.iter().map(|r| self.fill_facts(r, snap)));
            if denied.is_some() && !out.is_empty() {
                break;
            }
        }
        out
    }

    /// Replace `{reader}` in a recovery text with the reader's sampled value.
    pub fn fill_facts(&self, text: &str, snap: &Snapshot) -> String {
        let mut out = text.to_string();
        for r in &self.chart.readers {
            let key = format!("{{{}}}", r.name);
            if out.contains(&key) {
                let v = match snap.facts.get(&r.name) {
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(serde_json::Value::Null) | None => "?".to_string(),
                    Some(v) => v.to_string(),
                };
                out = out.replace(&key, &v);
            }
        }
        out
    }

    /// Shortest legal path to a state from which `ev` fires a transition.
    fn path_to_call(
        &self,
        snap: &Snapshot,
        ev: &Event,
        dist: &[Option<u32>],
        via: &[Option<super::graph::Edge>],
        exact: bool,
    ) -> Option<Vec<NextStep>> {
        let site = self.call_site(dist, ev, exact)?;
        let (edges, ti) = self.way_to_call(snap, ev, site, via, exact);
        let mut steps: Vec<NextStep> = edges
            .iter()
            .filter(|e| e.cost > 0)
            .filter_map(|e| self.describe_transition(e.transition))
            .collect();
        steps.extend(self.describe_transition(ti));
        Some(steps)
    }

    fn nearest_ending_hint(&self, dist: &[Option<u32>]) -> Option<String> {
        self.chart
            .states
            .iter()
            .filter_map(|s| match &s.kind {
                StateKind::Final {
                    recovery: Some(r), ..
                } => dist[s.id.index()].map(|d| (d, r.clone())),
                _ => None,
            })
            .min_by_key(|(d, _)| *d)
            .map(|(_, r)| r)
    }
}
