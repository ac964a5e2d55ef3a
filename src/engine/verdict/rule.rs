//! Why a call got its verdict, as data: the rule of the sequence that decided it. One place
//! words it (`wording::verdict`); `seed explain` points at the rule where the sequence file
//! declares it.

use serde::Serialize;

pub use super::objection::Clause;
use crate::engine::ir::StateId;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Rule {
    /// A policy of an active state refuses the call (`policy`: its index in the state's
    /// `all_policies`).
    Policy {
        state: StateId,
        policy: usize,
        clause: Clause,
    },
    /// The call takes these transitions: its step on the railroad.
    Step { transitions: Vec<usize> },
    /// The chart's neutral list names it (`pattern`: its index in `Chart::neutral`; none for
    /// the calls neutral in every sequence: seed's own tools, Claude Code's bookkeeping).
    Neutral { pattern: Option<usize> },
    /// An active state's allow list names it.
    Allows {
        state: StateId,
        policy: usize,
        pattern: usize,
    },
    /// A transition that leaves the configuration as it is (a self-loop) takes it.
    Loop { transition: usize },
    /// The sequence has ended: it gates nothing more.
    Ended,
    /// Nothing in the chart expects the call now; the `off_path` setting decides. `ahead`:
    /// how many calls come first when the sequence reaches it later.
    OffPath { ahead: Option<usize> },
    /// Stop while the sequence is not finished.
    Unfinished,
    /// Stop while a policy of an active state holds the turn open (`deny = ["Stop"]`).
    Held { state: StateId },
}
