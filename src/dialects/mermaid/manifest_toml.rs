//! The `.toml` manifest as written: the tables and keys a manifest may have (unknown keys are
//! errors at their place), read by `manifest` into the chart.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use crate::engine::ir::{DeadlockFallback, Enforcement, FailMode, OffPathPolicy};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Manifest {
    pub(super) name: Spanned<String>,
    #[serde(default)]
    pub(super) description: String,
    pub(super) diagram: Spanned<String>,
    pub(super) enforcement: Option<Enforcement>,
    pub(super) off_path: Option<OffPathPolicy>,
    pub(super) fail: Option<FailMode>,
    #[serde(default)]
    pub(super) neutral_tools: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) aliases: BTreeMap<String, Spanned<String>>,
    pub(super) deadlock: Option<DeadlockToml>,
    pub(super) stop: Option<StopToml>,
    #[serde(default)]
    pub(super) expand: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    pub(super) vars: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub(super) flags: BTreeMap<String, bool>,
    #[serde(default)]
    pub(super) readers: BTreeMap<String, Spanned<ReaderToml>>,
    #[serde(default)]
    pub(super) bands: BTreeMap<String, Spanned<BandToml>>,
    /// A state's place inside its parent, `[lo, hi]` in percent of the parent's interval.
    #[serde(default)]
    pub(super) progress: BTreeMap<String, Spanned<Vec<f64>>>,
    #[serde(default)]
    pub(super) bind: Vec<Spanned<BindToml>>,
    #[serde(default)]
    pub(super) edge: Vec<Spanned<EdgeToml>>,
    #[serde(default)]
    pub(super) policy: Vec<Spanned<PolicyToml>>,
    #[serde(default)]
    pub(super) lint: LintToml,
    /// One lifecycle per item of a state file's list (seed 002: per organ).
    pub(super) each: Option<Spanned<EachToml>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EachToml {
    pub(super) name: String,
    pub(super) path: Spanned<String>,
    pub(super) pointer: String,
    #[serde(default)]
    pub(super) narrow: BTreeMap<String, String>,
    #[serde(default)]
    pub(super) paths: BTreeMap<String, Spanned<String>>,
    pub(super) progress: Option<EachProgressToml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EachProgressToml {
    pub(super) done: String,
    pub(super) of: String,
    pub(super) label: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DeadlockToml {
    pub(super) limit: Option<u32>,
    pub(super) fallback: Option<DeadlockFallback>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StopToml {
    #[serde(default)]
    pub(super) block_until_final: bool,
    pub(super) max_blocks: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ReaderToml {
    pub(super) kind: String,
    pub(super) path: Spanned<String>,
    #[serde(default)]
    pub(super) pointer: String,
    pub(super) description: Option<String>,
    /// With `kind = "json"`: aggregate the list at `pointer` (count, all, any, last, not_in).
    pub(super) op: Option<String>,
    #[serde(default)]
    pub(super) field: String,
    pub(super) equals: Option<toml::Value>,
    pub(super) other: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BandToml {
    pub(super) range: [f64; 2],
    #[serde(default)]
    pub(super) states: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BindToml {
    pub(super) on: Option<Spanned<String>>,
    pub(super) enter: Option<Spanned<String>>,
    pub(super) from: Option<Spanned<toml::Value>>,
    pub(super) note: Option<String>,
    pub(super) state: Option<Spanned<String>>,
    pub(super) activity: Option<Spanned<String>>,
    pub(super) weight: Option<f64>,
    /// `return = true`: a side trip into `enter`'s top-level state that comes back to the
    /// state it left once that state reaches its `[*]`; `return = "state"` goes on to that
    /// state instead (see `returns`).
    #[serde(rename = "return")]
    pub(super) returns: Option<ReturnToml>,
}

#[derive(Deserialize, Clone)]
#[serde(untagged)]
pub(super) enum ReturnToml {
    Back(bool),
    To(String),
}

impl BindToml {
    pub(super) fn is_trip(&self) -> bool {
        matches!(
            self.returns,
            Some(ReturnToml::Back(true) | ReturnToml::To(_))
        )
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EdgeToml {
    pub(super) from: Spanned<String>,
    pub(super) to: Spanned<String>,
    #[serde(rename = "match")]
    pub(super) matching: Option<String>,
    pub(super) label: Spanned<String>,
    /// Why: shown with the edge (a `[false]` edge's reason in `validate`'s findings).
    pub(super) why: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PolicyToml {
    /// The states whose policy it is; none: the whole sequence (the root, always active).
    pub(super) state: Option<Spanned<toml::Value>>,
    /// A guard in the label language (`!flag intent_brief`): the policy applies while it holds.
    pub(super) when: Option<Spanned<String>>,
    /// Policies sharing a gate share one deadlock count, kept across state changes.
    pub(super) gate: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) allow: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) deny: Vec<Spanned<String>>,
    pub(super) recovery: Option<String>,
    pub(super) enforcement: Option<Enforcement>,
    /// How far along the state is: `{ done = "reader", of = "reader" }`.
    pub(super) progress: Option<Spanned<FillToml>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FillToml {
    pub(super) done: String,
    pub(super) of: String,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct LintToml {
    /// Mermaid warning codes to leave out (`unparsed-label` for diagrams written in prose).
    #[serde(default)]
    pub(super) allow: Vec<String>,
}
