//! The per-session state the engine folds events into. Small and serializable: the hook loads
//! it, steps, and saves it; the log stays the truth (`fold(log) == snapshot`).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::event::Event;
use super::ir::StateId;

/// Reader values sampled by the host for one step (reader name → value, `null` when absent).
pub type Facts = BTreeMap<String, Value>;

pub const SNAPSHOT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub version: u32,
    /// Fingerprint of the chart this snapshot belongs to.
    pub chart: String,
    /// The active configuration, ancestors included, sorted (document order).
    pub active: Vec<StateId>,
    pub visited: BTreeSet<StateId>,
    pub flags: BTreeMap<String, bool>,
    pub vars: BTreeMap<String, Value>,
    /// The facts sampled for the last step.
    pub facts: Facts,
    /// Highest overall progress reached, in percent.
    pub highest: f64,
    /// Events applied (gates included).
    pub steps: u64,
    /// Denials in a row per tool and objection (not per input), for the deadlock breaker.
    pub denials: BTreeMap<String, u32>,
    /// Stop hooks blocked since the user's last prompt.
    pub stop_blocks: u32,
    pub checkpoints: BTreeMap<String, Checkpoint>,
    /// A top-level final state was reached.
    pub halted: bool,
    /// The last state reached through a failed ending or a stuck choice.
    pub failed: Option<StateId>,
    /// Most recent denials, newest last (bounded), for recovery views.
    pub recent_denials: Vec<DenialNote>,
    pub last_event: Option<String>,
    /// MCP servers the agent's calls reached through a plugin (`server → plugin`), so calls
    /// to suggest are named as the agent sees them (`mcp__plugin_seed_seed__status`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub plugins: BTreeMap<String, String>,
    /// Tools the sequence names on any server (`mcp__*__odyssean_anchor`): the server the
    /// session's calls reached each through (`tool → server`), so calls to suggest are named
    /// as the agent makes them (`mcp__hestai__odyssean_anchor`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub servers: BTreeMap<String, String>,
    /// The newest call a gate denied since the configuration last changed: recovery shows the
    /// way to it. Its input is kept only when small (the snapshot is saved on every call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denied: Option<Event>,
    /// The newest call the sequence expected that failed (a PostToolUseFailure that moved
    /// nothing) since the configuration last changed, its error as its result: recovery
    /// shows the error beside the way on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_call: Option<Event>,
    /// The last step hit the microstep cap: eventless transitions kept firing (a livelock).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub livelock: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub flags: BTreeMap<String, bool>,
    pub vars: BTreeMap<String, Value>,
}

/// A recent denial: the call and how many times in a row it met that objection. (Not its
/// reason: a fold does not word refusals, and a snapshot must equal the fold of its log.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DenialNote {
    pub event: String,
    pub count: u32,
}

pub const RECENT_DENIALS: usize = 8;

impl Snapshot {
    pub fn is_active(&self, id: StateId) -> bool {
        self.active.binary_search(&id).is_ok()
    }
}
