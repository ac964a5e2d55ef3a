//! Subagents: their own files (every line is the agent's) or inline sidechains in the main file
//! (the old layout), each framed by SubagentStart / SubagentStop.

use serde_json::{Value, json};

use super::super::line::{flag, str_at};
use super::{InlineAgent, Stream};
use crate::engine::{Event, Phase};

impl Stream<'_> {
    /// Which agent a line belongs to (`None`: the main thread); opens inline sidechains.
    pub(super) fn agent_of(&mut self, v: &Value, ts: &str) -> Option<String> {
        if let Some(agent) = &self.file_agent {
            return Some(agent.clone());
        }
        if !flag(v, "isSidechain") {
            return None;
        }
        let given = str_at(v, "agentId");
        if let Some(open) = self.inline_agents.iter().rev().find(|a| match given {
            Some(id) => a.id == id,
            None => a.synthetic,
        }) {
            return Some(open.id.clone());
        }
        let id = given.map_or_else(
            || {
                self.sidechains += 1;
                format!("sidechain-{}", self.sidechains)
            },
            str::to_string,
        );
        // It runs for the oldest main-thread Task/Agent call not yet given an agent.
        let spawner = self
            .pending
            .iter()
            .filter(|(tid, p)| {
                p.agent.is_none()
                    && matches!(p.name.as_str(), "Task" | "Agent")
                    && !self
                        .inline_agents
                        .iter()
                        .any(|a| a.spawner.as_deref() == Some(tid.as_str()))
            })
            .min_by_key(|(_, p)| p.seq)
            .map(|(tid, _)| tid.clone());
        self.inline_agents.push(InlineAgent {
            id: id.clone(),
            spawner,
            synthetic: given.is_none(),
        });
        self.subagent_start(&id, ts);
        Some(id)
    }

    pub(super) fn subagent_start(&mut self, agent: &str, ts: &str) {
        self.emit(
            ts,
            "SubagentStart",
            Phase::Advance,
            Event::lifecycle("SubagentStart"),
            Some(agent),
        )
        .extra = json!({ "agent_id": agent });
    }

    pub(super) fn subagent_stop(&mut self, agent: &str, ts: &str) {
        self.emit(
            ts,
            "SubagentStop",
            // As the hook steps it: an event, never a stop gate.
            Phase::Advance,
            Event::lifecycle("SubagentStop"),
            Some(agent),
        )
        .extra = json!({ "agent_id": agent, "stop_hook_active": false });
    }

    pub(super) fn close_inline(&mut self, ts: &str, which: impl Fn(&InlineAgent) -> bool) {
        let (closing, open) = std::mem::take(&mut self.inline_agents)
            .into_iter()
            .partition(which);
        self.inline_agents = open;
        for agent in closing {
            self.subagent_stop(&agent.id, ts);
        }
    }
}
