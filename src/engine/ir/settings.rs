//! Sequence-wide settings: the enforcement mode, what off-path calls get, fail mode, the
//! deadlock breaker and the stop gate.

use serde::{Deserialize, Serialize};

/// What a denied call does (per sequence, overridable per state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Enforcement {
    /// Deny blocks the call.
    #[default]
    Enforce,
    /// The call goes through, with a warning to the model and the user.
    Advise,
    /// Log only.
    Observe,
}

impl Enforcement {
    pub fn as_str(self) -> &'static str {
        match self {
            Enforcement::Enforce => "enforce",
            Enforcement::Advise => "advise",
            Enforcement::Observe => "observe",
        }
    }
}

/// What a call that fits nowhere in the chart gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OffPathPolicy {
    Observe,
    #[default]
    Warn,
    Deny,
}

/// How seed answers when seed itself fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailMode {
    #[default]
    Open,
    Closed,
}

/// What the deadlock breaker does once a tool has been denied `limit` times in a row by the
/// same rule (the next attempt escalates).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeadlockFallback {
    /// Keep denying, with a message telling the model to stop and ask the user.
    #[default]
    Deny,
    /// Hand the decision to the user (`permissionDecision: ask`).
    Ask,
    /// Let the call through with a warning.
    Advise,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deadlock {
    pub limit: u32,
    pub fallback: DeadlockFallback,
}

impl Default for Deadlock {
    fn default() -> Self {
        Deadlock {
            limit: 3,
            fallback: DeadlockFallback::Deny,
        }
    }
}

/// Whether Stop / SubagentStop may keep the agent working until the sequence is finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StopGate {
    pub block_until_final: bool,
    pub max_blocks: u32,
}

/// Sequence-wide settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Settings {
    pub enforcement: Enforcement,
    pub off_path: OffPathPolicy,
    /// What an off-path call to one of the sequence's own tools gets (a step taken out of
    /// order: `starship.fly` before `starlog.check`); `None`: the same as any off-path call.
    /// Seed 000's railroad "cannot be left", so master sequences default to deny.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_of_order: Option<OffPathPolicy>,
    pub fail: FailMode,
    pub deadlock: Deadlock,
    pub stop: StopGate,
}
