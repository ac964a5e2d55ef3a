//! The tool lists of a status: what is allowed now, what is denied and by whom, the neutral
//! calls. Each entry is a call as the agent makes it, spelled as this session spells its
//! servers, so every face prints the lists as they are.

use super::{Allowed, ToolRule};
use crate::engine::event::Event;
use crate::engine::ir::{StateId, Trigger};
use crate::engine::machine::Machine;
use crate::engine::recovery::Recovery;
use crate::engine::snapshot::Snapshot;
use crate::engine::verdict::{objection, policies_now};
use crate::engine::wording::{as_calls_seen, calls_seen, state_in_tier};

pub(super) struct Lists {
    pub allowed: Allowed,
    pub denied: Vec<ToolRule>,
    pub neutral: Vec<String>,
}

fn push_new(list: &mut Vec<String>, c: String) {
    if !list.contains(&c) {
        list.push(c);
    }
}

impl Machine {
    pub(super) fn tool_lists(&self, snap: &Snapshot, recovery: &Recovery, ended: bool) -> Lists {
        let (servers, plugins) = (self.seen_servers(snap), self.seen_plugins(snap));
        let calls = |p| calls_seen(p, &servers, &plugins);
        // Two next steps can be one call (a skill and its command): each call once.
        let mut allowed: Vec<String> = Vec::new();
        for n in &recovery.next {
            push_new(&mut allowed, n.tool.clone());
        }
        let mut neutral: Vec<String> = Vec::new();
        for c in self.chart.neutral.iter().flat_map(calls) {
            push_new(&mut neutral, c);
        }
        let mut refused: Vec<String> = Vec::new();
        let mut denied = Vec::new();
        for &sid in &snap.active {
            self.state_lists(snap, sid, recovery, &mut allowed, &mut refused, &mut denied);
        }
        for n in &neutral {
            push_new(&mut allowed, n.clone());
        }
        allowed.retain(|a| !refused.contains(a) && !self.refused_now(snap, a));
        // Neutral means let through: not a call a policy refuses now (a deep-state
        // constraint's allow list narrows neutral calls too).
        neutral.retain(|a| !refused.contains(a) && !self.refused_now(snap, a));
        // A sequence that has ended gates nothing more (only a policy can still refuse), and
        // one whose neutral list is `*` lets every call through that no policy refuses.
        let all_neutral = self.chart.neutral.iter().any(|p| p.is_any_call());
        let allowed = if self.lets_any_call(snap) || all_neutral || ended {
            Allowed::Any
        } else {
            Allowed::Calls(allowed)
        };
        Lists {
            allowed,
            denied,
            neutral,
        }
    }

    /// State `sid`'s part of the lists: the calls its allow lists add (a deep-state
    /// constraint's list narrows what is allowed; it grants nothing), the calls it refuses,
    /// and its deny rules with who wrote them.
    fn state_lists(
        &self,
        snap: &Snapshot,
        sid: StateId,
        recovery: &Recovery,
        allowed: &mut Vec<String>,
        refused: &mut Vec<String>,
        denied: &mut Vec<ToolRule>,
    ) {
        let chart = &self.chart;
        let (servers, plugins) = (self.seen_servers(snap), self.seen_plugins(snap));
        let policies = || policies_now(self, snap, sid, None);
        if !self.is_monitor(sid) {
            for p in policies().flat_map(|p| &p.allow) {
                // A rule allowing a call the next steps already name is that call.
                let listed = recovery.next.iter().any(|n| {
                    matches!(&chart.transitions[n.transition].trigger,
                        Trigger::Event(t) if t.covers(p))
                });
                if !listed {
                    calls_seen(p, &servers, &plugins)
                        .into_iter()
                        .for_each(|c| push_new(allowed, c));
                }
            }
        }
        let st = chart.state(sid);
        for p in policies().flat_map(|p| &p.deny) {
            refused.extend(calls_seen(p, &servers, &plugins));
            let rule = ToolRule {
                pattern: as_calls_seen(p, &servers, &plugins),
                by: state_in_tier(&st.label, &st.label, &self.tier(sid)),
            };
            // A chain of policies denies the same tool for several reasons: one rule.
            if !denied.contains(&rule) {
                denied.push(rule);
            }
        }
    }

    /// A step that lets any call through (seed 001's BOUND `*`): any tool, not a list.
    fn lets_any_call(&self, snap: &Snapshot) -> bool {
        self.atomic_active(snap).into_iter().any(|u| {
            self.transitions_for(u).into_iter().any(|ti| {
                let t = &self.chart.transitions[ti];
                matches!(&t.trigger, Trigger::Event(p) if p.is_any_call())
                    && t.guard
                        .as_ref()
                        .is_none_or(|g| crate::engine::guard::eval_ignoring_input(g, snap))
            })
        })
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
}
