//! The pure sequence engine: statechart IR, step semantics, verdicts, progress and recovery.
//!
//! No file system, clock, environment, terminal or threads here: time and facts come in as
//! arguments, so the hook, replay, what-if and tests all run the same `step`.

mod activity;
pub mod breaker;
pub mod build;
pub mod decode;
pub mod event;
pub mod explain;
pub mod gates;
pub mod graph;
pub mod guard;
pub mod interpolate;
pub mod ir;
pub mod lint;
pub mod machine;
pub mod pattern;
pub mod progress;
pub mod recovery;
pub mod sanitize;
pub mod servers;
pub mod sets;
pub mod snapshot;
pub mod status;
pub mod step;
pub mod tool_name;
pub mod verdict;
pub mod wording;

pub use event::{Event, EventKind};
pub use ir::{Chart, StateId};
pub use machine::{Compiled, Machine};
pub use pattern::Pattern;
pub use progress::Progress;
pub use snapshot::{Facts, Snapshot};
pub use status::{Allowed, Status};
pub use step::{Phase, StepReport};
pub use verdict::{Decision, Verdict, VerdictKind};

/// Hash tables for the engine's own bookkeeping (the search's nodes, the triggers a step has
/// already taken): foldhash is fast and deterministic, and keys are data the sequence set
/// (equal hashes are compared in full anyway). Costs stay linear in a chart's size where a
/// list searched again for each entry would not.
pub(crate) type FxMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
pub(crate) type FxSet<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;
