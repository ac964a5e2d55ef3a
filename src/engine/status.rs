//! The one view every face shows (CLI `status`, the TUI, prompt injection, MCP): computed here
//! once, from the chart and the snapshot.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::event::Event;
use super::ir::{Outcome, StateId, StateKind, Trigger};
use super::machine::Machine;
use super::progress::Progress;
use super::recovery::{NextStep, Recovery};
use super::snapshot::Snapshot;
use super::verdict::{current_label, objection};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolRule {
    pub pattern: String,
    /// State label and its tier (region).
    pub by: String,
}

/// A call the sequence expected that failed, and what it failed with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailedCall {
    /// As the agent makes it (`mcp__starlog__check`).
    pub call: String,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    pub sequence: String,
    pub description: String,
    pub dialect: String,
    pub enforcement: String,
    /// Keys of the active atomic states.
    pub current: Vec<String>,
    /// `root ▸ compound ▸ leaf`, regions joined with `∥`.
    pub breadcrumb: String,
    /// Label of the current step.
    pub step: String,
    /// The step is named after the call that led to it (a railroad's): it is the last call
    /// made, not one to make (`wording::position`).
    #[serde(default)]
    pub step_is_call: bool,
    pub progress: Progress,
    /// Calls that are legal now: the expected ones first, then neutral tools and allow lists;
    /// `["*"]` when any call is (a step that lets everything through).
    pub allowed: Vec<String>,
    pub denied: Vec<ToolRule>,
    pub neutral: Vec<String>,
    pub next: Option<NextStep>,
    pub recovery: Recovery,
    pub halted: bool,
    pub failed: Option<String>,
    /// The last step never settled: eventless transitions kept firing until the microstep
    /// cap (a fault of the sequence, not of the agent).
    pub livelock: bool,
    /// The newest call denied since the configuration last changed, spelled as the hook's
    /// refusal spells it (`mcp__hestai__odyssean_anchor(stage="bind")`: the input values the
    /// sequence tells its steps apart by); `recovery` shows the way to it.
    pub denied_call: Option<String>,
    /// The newest call the sequence expected that failed since the configuration last
    /// changed; recovery's first suggestion says it with its error.
    #[serde(default)]
    pub failed_call: Option<FailedCall>,
    pub events: u64,
    /// The sequence's variables that hold a value (the tier an init call chose, an answer…).
    #[serde(default)]
    pub vars: BTreeMap<String, Value>,
    /// Every flag and its value (seed 004's artifacts: `intent_brief`, `shape_done`…).
    #[serde(default)]
    pub flags: BTreeMap<String, bool>,
}

impl Machine {
    pub fn status(&self, snap: &Snapshot) -> Status {
        let chart = &self.chart;
        let reach = self.reach(snap);
        let progress = self.progress_with(snap, &reach);
        let mut recovery = self.recovery_with(snap, snap.denied.as_ref(), &reach);
        let failed_call = snap.failed_call.as_ref().map(|ev| FailedCall {
            call: super::verdict::called_as_judged(self, &ev.as_call()),
            error: ev.response.as_str().map(String::from),
        });
        if let Some(f) = &failed_call {
            let said = super::wording::failed_call_text(&f.call, f.error.as_deref());
            recovery.suggestions.insert(0, said);
        }
        // Two next steps can be one call (a skill and its command): each call once.
        let mut allowed: Vec<String> = Vec::new();
        for n in &recovery.next {
            if !allowed.contains(&n.tool) {
                allowed.push(n.tool.clone());
            }
        }
        // `allowed` and `neutral` are calls, as the agent makes them (a rule's alternatives
        // each a call); `denied` names each rule's calls the same way, with who wrote it.
        let (servers, plugins) = (self.seen_servers(snap), self.seen_plugins(snap));
        let calls = |p| super::wording::calls_seen(p, &servers, &plugins);
        let mut neutral: Vec<String> = Vec::new();
        for c in chart.neutral.iter().flat_map(calls) {
            if !neutral.contains(&c) {
                neutral.push(c);
            }
        }
        let mut refused: Vec<String> = Vec::new();
        let mut denied = Vec::new();
        for &sid in &snap.active {
            let st = chart.state(sid);
            // A deep-state constraint's list narrows what is allowed; it grants nothing.
            let policies = || super::verdict::policies_now(self, snap, sid, None);
            if !self.is_monitor(sid) {
                for p in policies().flat_map(|p| &p.allow) {
                    // A rule allowing a call the next steps already name is that call.
                    let listed = recovery.next.iter().any(|n| {
                        matches!(&chart.transitions[n.transition].trigger,
                            Trigger::Event(t) if t.covers(p))
                    });
                    for s in calls(p).into_iter().filter(|_| !listed) {
                        if !allowed.contains(&s) {
                            allowed.push(s);
                        }
                    }
                }
            }
            for p in policies().flat_map(|p| &p.deny) {
                refused.extend(calls(p));
                let rule = ToolRule {
                    pattern: super::wording::as_calls_seen(p, &servers, &plugins),
                    by: super::wording::state_in_tier(&st.label, &st.label, &self.tier(sid)),
                };
                // A chain of policies denies the same tool for several reasons: one rule.
                if !denied.contains(&rule) {
                    denied.push(rule);
                }
            }
        }
        for n in &neutral {
            if !allowed.contains(n) {
                allowed.push(n.clone());
            }
        }
        allowed.retain(|a| !refused.contains(a) && !self.refused_now(snap, a));
        // Neutral means let through: not a call a policy refuses now (a deep-state
        // constraint's allow list narrows neutral calls too).
        neutral.retain(|a| !refused.contains(a) && !self.refused_now(snap, a));
        // A step that lets any call through (seed 001's BOUND `*`): any tool, not a list.
        let any_call = self.atomic_active(snap).into_iter().any(|u| {
            self.transitions_for(u).into_iter().any(|ti| {
                let t = &chart.transitions[ti];
                matches!(&t.trigger, Trigger::Event(p) if p.is_any_call())
                    && t.guard
                        .as_ref()
                        .is_none_or(|g| super::guard::eval_ignoring_input(g, snap))
            })
        });
        // A sequence that has ended gates nothing more (only a policy can still refuse), and
        // one whose neutral list is `*` lets every call through that no policy refuses.
        let all_neutral = chart.neutral.iter().any(|p| p.is_any_call());
        if any_call || all_neutral || progress.ended.is_some() {
            allowed = vec!["*".to_string()];
        }
        Status {
            sequence: chart.name.clone(),
            description: chart.description.clone(),
            dialect: chart.dialect.as_str().into(),
            enforcement: chart.settings.enforcement.as_str().into(),
            current: self
                .atomic_active(snap)
                .iter()
                .map(|s| chart.state(*s).key.clone())
                .collect(),
            breadcrumb: self.breadcrumb(snap, StateId::ROOT),
            step: current_label(self, snap),
            step_is_call: self.step_is_call(snap),
            next: recovery.next.first().cloned(),
            progress,
            allowed,
            denied,
            neutral,
            recovery,
            halted: snap.halted,
            failed: snap.failed.map(|f| chart.state(f).label.clone()),
            livelock: snap.livelock,
            denied_call: snap
                .denied
                .as_ref()
                .map(|ev| super::verdict::called_as_judged(self, ev)),
            failed_call,
            events: snap.steps,
            vars: snap
                .vars
                .iter()
                .filter(|(_, v)| !v.is_null() && v.as_str() != Some(""))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            flags: snap.flags.clone(),
        }
    }

    /// Every current step (outside monitor regions) was entered by the call it is named after.
    pub(crate) fn step_is_call(&self, snap: &Snapshot) -> bool {
        let steps: Vec<StateId> = self
            .atomic_active(snap)
            .into_iter()
            .filter(|s| !self.is_monitor(*s))
            .collect();
        !steps.is_empty() && steps.iter().all(|s| self.chart.state(*s).complete_on_entry)
    }

    /// An active state's policy refuses the plain tool name `name` (tier 1 ∩ tier 2). Entries
    /// that carry input or are not tools (`/cmd`, `skill:…`, `Skill(…)`, globs) are kept as listed.
    fn refused_now(&self, snap: &Snapshot, name: &str) -> bool {
        if name.contains(['(', '*', '?', '[', ':']) || name.starts_with('/') {
            return false;
        }
        let ev = Event::tool(name, serde_json::Value::Null);
        let neutral = self.is_neutral(&ev);
        snap.active
            .iter()
            .any(|&s| objection(self, snap, s, &ev, neutral).is_some())
    }

    fn tier(&self, id: StateId) -> String {
        let mut cur = id;
        while let Some(p) = self.chart.state(cur).parent {
            if p == StateId::ROOT {
                return self.chart.state(cur).label.clone();
            }
            cur = p;
        }
        self.chart.name.clone()
    }

    /// The configuration as a path: `hope ▸ loop ▸ wave_execution`, regions in `{a ∥ b}`.
    pub fn breadcrumb(&self, snap: &Snapshot, from: StateId) -> String {
        let chart = &self.chart;
        let st = chart.state(from);
        let name = if from == StateId::ROOT {
            chart.name.clone()
        } else {
            st.label.clone()
        };
        match &st.kind {
            StateKind::Parallel => {
                // A monitor's region resting where it starts (a deep-state constraint that
                // does not apply) has nothing to say.
                let parts: Vec<String> = st
                    .children
                    .iter()
                    .filter(|c| snap.is_active(**c) && !self.at_rest(snap, **c))
                    .map(|c| self.breadcrumb(snap, *c))
                    .collect();
                match parts.as_slice() {
                    [] => name,
                    [one] if from != StateId::ROOT => format!("{name} ▸ {one}"),
                    _ => format!("{name} ▸ {{{}}}", parts.join(" ∥ ")),
                }
            }
            StateKind::Compound { .. } => match st.children.iter().find(|c| snap.is_active(**c)) {
                // A region named after its one active state (a constraint that applies): once.
                Some(c) if chart.state(*c).label == name && chart.state(*c).children.is_empty() => {
                    name
                }
                Some(c) => format!("{name} ▸ {}", self.breadcrumb(snap, *c)),
                None => name,
            },
            _ => name,
        }
    }

    /// `region` is a monitor's compound region resting in its initial atomic state.
    fn at_rest(&self, snap: &Snapshot, region: StateId) -> bool {
        match self.chart.state(region).kind {
            StateKind::Compound { initial } => {
                self.is_monitor(region)
                    && snap.is_active(initial)
                    && self.chart.state(initial).children.is_empty()
            }
            _ => false,
        }
    }

    /// The one-line guidance injected into prompts (≤ 300 characters). Calls are named as the
    /// agent makes them (`mcp__seed__who_am_i`, `Skill(skill="hope:intent")`), as in every
    /// refusal.
    pub fn guidance_line(&self, snap: &Snapshot) -> String {
        let st = self.status(snap);
        let head = format!(
            "[SEED SEQUENCE] \"{}\" · {}",
            st.sequence,
            super::wording::position(&st.step, st.step_is_call)
        );
        let failed = st
            .progress
            .ended
            .as_ref()
            .filter(|e| e.outcome == Outcome::Error);
        let line = match failed {
            // A failed ending is not "done": what to do instead, and how far it got.
            Some(e) => {
                let mut line = format!("{head} · ended in error at \"{}\"", e.ending);
                if let Some(r) = &e.recovery {
                    line.push_str(&format!(" · recovery: {r}"));
                }
                if let Some(n) = &st.next {
                    line.push_str(&format!(" · next: {}", n.tool));
                }
                format!("{line} · highest {:.0}%", st.progress.highest)
            }
            None => {
                let failed = st
                    .failed_call
                    .as_ref()
                    .map(|f| match &f.error {
                        Some(e) => format!(" · {} failed: {}", f.call, truncate_chars(e, 80)),
                        None => format!(" · {} failed", f.call),
                    })
                    .unwrap_or_default();
                let next = match (&st.next, st.progress.done) {
                    (_, true) => "done".to_string(),
                    (Some(n), _) if n.blocked_by.is_some() => {
                        format!("{} (blocked by deep state)", n.tool)
                    }
                    (Some(n), _) => match self.unavailable(snap, &n.tool) {
                        Some(u) => format!("{} ({})", n.tool, u.brief()),
                        None => n.tool.clone(),
                    },
                    (None, _) if st.allowed == ["*"] => "any tool".to_string(),
                    (None, _) => "—".to_string(),
                };
                format!(
                    "{head}{failed} · next: {next} · {:.0}% done",
                    st.progress.overall
                )
            }
        };
        truncate_chars(&line, 300)
    }
}

pub fn truncate_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}
