//! Where a denied call becomes legal, and the way there: the nearest point ahead (by the
//! search that knows the data) at which the call fires a transition, or a step's allow list
//! names it (a journey that lets Bash through), and no policy refuses it there.

use super::NextStep;
use super::search::{Found, Reach};
use crate::engine::event::Event;
use crate::engine::ir::{Guard, Trigger};
use crate::engine::machine::Machine;
use crate::engine::pattern::Pattern;
use crate::engine::snapshot::Snapshot;
use crate::engine::verdict;

/// A bare wildcard (`*`): seed 001's BOUND lets anything through.
fn wildcard(p: &Pattern) -> bool {
    p.alts.iter().all(|a| a.glob.chars().all(|c| c == '*'))
}

impl Machine {
    /// The calls to make before `ev` and the call itself: as it was made (`exact`), or the
    /// same tool with the input its step needs.
    pub(super) fn path_to_call(
        &self,
        snap: &Snapshot,
        ev: &Event,
        reach: &Reach,
        exact: bool,
    ) -> Option<Vec<NextStep>> {
        let Found::Plain { via } = &reach.kind else {
            let ahead = self.legal_way(snap, ev, reach, exact);
            // A call a guarded policy refuses now (seed 004: ExitPlanMode while the brief is
            // missing) may become legal sooner after a call bound on the root that starts
            // what the policy waits for over (`/hope:intent`): the shorter way wins, the way
            // ahead on a tie. Other calls follow the way ahead only, as every route does.
            let Some(when) = self.refused_while(snap, ev) else {
                return ahead;
            };
            let over = self.legal_way(snap, ev, &self.reach_restarting(snap, &when), exact);
            return match (ahead, over) {
                (Some(a), Some(o)) if o.len() < a.len() => Some(o),
                (a, o) => a.or(o),
            };
        };
        // Past the search's cap: the plain graph, with the legs that lift a guarded policy.
        let site = self.call_site(snap, &reach.dist, ev, exact)?;
        let (edges, ti) = self.way_to_call(snap, ev, site, via, exact);
        let mut steps: Vec<NextStep> = edges
            .iter()
            .filter(|e| e.cost > 0)
            .filter_map(|e| self.describe_transition(e.transition))
            .collect();
        steps.extend(self.describe_transition(ti));
        Some(steps)
    }

    /// The way to the nearest node of `reach` where `ev` is legal.
    fn legal_way(
        &self,
        snap: &Snapshot,
        ev: &Event,
        reach: &Reach,
        exact: bool,
    ) -> Option<Vec<NextStep>> {
        let Found::Data { nodes, order, .. } = &reach.kind else {
            return None;
        };
        let chart = &self.chart;
        let aliases = &chart.aliases;
        // A call some step names (an anchor call with another stage) is led to that step: a
        // bare wildcard that later lets anything through is no way to it.
        let named = chart.transitions.iter().any(|t| {
            matches!(&t.trigger, Trigger::Event(p) if !wildcard(p) && p.names_tool(ev, aliases))
        });
        let fits = |p: &Pattern| {
            if exact {
                p.matches(ev, aliases)
            } else {
                p.names_tool(ev, aliases)
            }
        };
        let input = exact.then_some(&ev.input);
        // A neutral call (`neutral_tools = ["*"]`) is legal wherever no policy refuses it.
        let neutral = self.is_neutral(ev);
        for &i in order {
            let node = &nodes[i];
            let u = node.state;
            if !chart.state(u).is_atomic_like() {
                continue;
            }
            let config = self.config_at(u, snap);
            let fires = self.transitions_for(u).into_iter().find(|&ti| {
                let t = &chart.transitions[ti];
                let Trigger::Event(p) = &t.trigger else {
                    return false;
                };
                !(named && wildcard(p))
                    && fits(p)
                    && (!exact || super::input_fits(&t.guard, &ev.input, snap))
                    && t.guard
                        .as_ref()
                        .is_none_or(|g| node.data.eval(g, &config, input) != Some(false))
            });
            // A step's allow list, or the call being neutral, lets it through (not where the
            // session is: there it was just refused).
            let listed = fires.is_none()
                && node.parent.is_some()
                && (neutral
                    || config.iter().any(|&s| {
                        !self.is_monitor(s) && chart.state(s).policy.allow.iter().any(fits)
                    }));
            if fires.is_none() && !listed {
                continue;
            }
            let sim = node.data.as_snapshot(snap, config);
            if self.refuses(&sim, ev, exact) {
                continue;
            }
            let edges = self.start_with_a_call(reach.path_to_node(self, i), snap);
            let mut steps: Vec<NextStep> = edges
                .iter()
                .filter(|e| e.cost > 0)
                .filter_map(|e| self.describe_transition(e.transition))
                .collect();
            match fires {
                Some(ti) => steps.extend(self.describe_transition(ti)),
                None => steps.push(NextStep {
                    call: ev.name.clone(),
                    tool: verdict::called(ev),
                    leads_to: chart.state(u).label.clone(),
                    blocked_by: None,
                    transition: edges.last().map_or(0, |e| e.transition),
                }),
            }
            return Some(steps);
        }
        None
    }

    /// The `when` of the policy that refuses `ev` now, when it has one.
    fn refused_while(&self, snap: &Snapshot, ev: &Event) -> Option<Guard> {
        let neutral = self.is_neutral(ev);
        verdict::first_objecting(self, snap, ev, neutral)?
            .policy
            .when
            .clone()
    }

    /// A policy of the configuration in `sim` refuses `ev` (with another input, when not
    /// `exact`: an allow list naming the tool with the input its step needs is no refusal).
    fn refuses(&self, sim: &Snapshot, ev: &Event, exact: bool) -> bool {
        let aliases = &self.chart.aliases;
        let neutral = self.is_neutral(ev);
        if exact {
            return verdict::first_objecting(self, sim, ev, neutral).is_some();
        }
        let bare = Event {
            input: serde_json::Value::Null,
            ..ev.clone()
        };
        verdict::first_objecting(self, sim, &bare, neutral).is_some_and(|o| {
            !(o.clause == verdict::Clause::AllowsOnly
                && o.policy.allow.iter().any(|p| p.names_tool(ev, aliases)))
        })
    }
}
