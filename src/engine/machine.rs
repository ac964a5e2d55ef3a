//! A chart compiled for stepping: candidate order per state and progress intervals, computed once.

use serde::{Deserialize, Serialize};

use std::collections::BTreeSet;
use std::sync::{LazyLock, OnceLock};

use super::event::Event;
use super::ir::{Chart, StateId, StateKind, Trigger};
use super::pattern::{Pattern, any_server_tool};
use super::progress::Intervals;

/// What `Machine::new` derives from a chart, kept by hosts that cache compiled charts (the
/// hook): recomputing it costs more than reading it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Compiled {
    pub fingerprint: String,
    candidates: Vec<Vec<usize>>,
    intervals: Intervals,
}

#[derive(Debug, Clone)]
pub struct Machine {
    pub chart: Chart,
    pub fingerprint: String,
    /// Per state: its transitions in candidate order — exact patterns first, then globs from
    /// the longest to the shortest, then the rest, each group in document order (XState).
    pub(crate) candidates: Vec<Vec<usize>>,
    pub(crate) intervals: Intervals,
    /// Tools the sequence names on any MCP server (`mcp__*__odyssean_anchor`), found on first
    /// use: every call through a server asks, and a fold must not rescan the chart each time.
    any_server: OnceLock<BTreeSet<String>>,
    /// The MCP servers the steps call, found on first use (see `servers`).
    pub(crate) needs: OnceLock<Vec<super::servers::ServerNeed>>,
    /// What the host knows of the MCP servers Claude Code gives the session (`set_hosted`);
    /// `None`: nothing, and calls are worded from the session alone.
    pub(crate) hosted: Option<super::servers::Hosted>,
}

impl Machine {
    pub fn new(chart: Chart) -> Machine {
        let fingerprint = chart.fingerprint();
        Machine::with_fingerprint(chart, fingerprint)
    }

    /// A machine whose chart fingerprint is already known (a host's compiled-chart cache saved
    /// it with the chart), skipping the serialization `new` does to compute it.
    pub fn with_fingerprint(chart: Chart, fingerprint: String) -> Machine {
        let candidates = candidate_order(&chart);
        let intervals = Intervals::compute(&chart);
        Machine {
            chart,
            fingerprint,
            candidates,
            intervals,
            any_server: OnceLock::new(),
            needs: OnceLock::new(),
            hosted: None,
        }
    }

    /// The derived parts, for a cache.
    pub fn compiled(&self) -> Compiled {
        Compiled {
            fingerprint: self.fingerprint.clone(),
            candidates: self.candidates.clone(),
            intervals: self.intervals.clone(),
        }
    }

    /// A machine from a chart and the parts `compiled` saved for that same chart. Parts whose
    /// shape does not fit the chart (a stale or damaged cache) are recomputed.
    pub fn from_compiled(chart: Chart, parts: Compiled) -> Machine {
        let n = chart.states.len();
        let fits = parts.candidates.len() == n
            && parts.intervals.span.len() == n
            && parts.intervals.in_loop.len() == n
            && parts.intervals.weight.len() == n
            && parts
                .candidates
                .iter()
                .flatten()
                .all(|&t| t < chart.transitions.len());
        if !fits {
            return Machine::with_fingerprint(chart, parts.fingerprint);
        }
        Machine {
            chart,
            fingerprint: parts.fingerprint,
            candidates: parts.candidates,
            intervals: parts.intervals,
            any_server: OnceLock::new(),
            needs: OnceLock::new(),
            hosted: None,
        }
    }
}

/// Per state: its transitions in candidate order (see `Machine::candidates`).
fn candidate_order(chart: &Chart) -> Vec<Vec<usize>> {
    let mut candidates = vec![Vec::new(); chart.states.len()];
    for (i, t) in chart.transitions.iter().enumerate() {
        candidates[t.source.index()].push(i);
    }
    for list in &mut candidates {
        list.sort_by_key(|&i| {
            let rank = match &chart.transitions[i].trigger {
                Trigger::Event(p) | Trigger::Error(p) if p.is_glob() => {
                    let len = p.alts.iter().map(|a| a.glob.len()).max().unwrap_or(0);
                    (1usize, usize::MAX - len)
                }
                _ => (0, 0),
            };
            (rank, i)
        });
    }
    candidates
}

/// Calls neutral in every sequence: seed's own tools (`mcp__seed__status`, `recovery`,
/// `what_do_i_do`, … in any spelling, the plugin's included), Claude Code's tool loading
/// (`ToolSearch`) and the agent's todo list (`TodoWrite`, or the task list that replaces it).
static ALWAYS_NEUTRAL: LazyLock<Option<Pattern>> = LazyLock::new(|| {
    Pattern::parse("seed.*|ToolSearch|TodoWrite|TaskCreate|TaskUpdate|TaskList|TaskGet").ok()
});

/// Claude Code's tool loading: it fetches a deferred tool's schema, so refusing it would lock
/// the agent out of every MCP tool a step or policy allows.
static LOADS_TOOLS: LazyLock<Option<Pattern>> = LazyLock::new(|| Pattern::parse("ToolSearch").ok());

impl Machine {
    /// `ev` is neutral here: the sequence's neutral list names it, or it is one of the calls
    /// neutral everywhere (`ALWAYS_NEUTRAL`). seed's tools only inform the agent (or, for
    /// `add_to_seed`, write a new sequence file and never the active one), and refusals tell
    /// the agent to call them: in no sequence is `recovery` itself refused. Claude Code's own
    /// bookkeeping moves nothing a sequence tracks. A policy denying one by name still does,
    /// and a step that names one still advances (the gate checks both first).
    pub fn is_neutral(&self, ev: &Event) -> bool {
        let aliases = &self.chart.aliases;
        self.chart.neutral.iter().any(|p| p.names_tool(ev, aliases))
            || ALWAYS_NEUTRAL
                .as_ref()
                .is_some_and(|p| p.names_tool(ev, aliases))
    }

    /// `ev` loads tool schemas (`ToolSearch`): neutral even under a deep-state constraint's
    /// list, which narrows the calls that do work, not the loading of the ones it allows.
    pub(crate) fn loads_tools(&self, ev: &Event) -> bool {
        LOADS_TOOLS
            .as_ref()
            .is_some_and(|p| p.names_tool(ev, &self.chart.aliases))
    }

    /// The sequence names `tool` on any MCP server (a pattern or policy `mcp__*__tool`).
    pub(crate) fn names_on_any_server(&self, tool: &str) -> bool {
        self.any_server
            .get_or_init(|| {
                let chart = &self.chart;
                let policies = chart.states.iter().flat_map(|s| s.all_policies());
                chart
                    .mentioned_patterns()
                    .into_iter()
                    .chain(policies.flat_map(|p| p.allow.iter().chain(&p.deny)))
                    .flat_map(|p| &p.alts)
                    .filter_map(|a| any_server_tool(&a.glob))
                    .map(str::to_string)
                    .collect()
            })
            .contains(tool)
    }

    /// A state in a region of a parallel root that has no ending (seed 000's context region):
    /// it monitors deep state, it is not a step of the workflow.
    pub fn is_monitor(&self, id: StateId) -> bool {
        let chart = &self.chart;
        if !matches!(chart.root().kind, StateKind::Parallel) || id == StateId::ROOT {
            return false;
        }
        let mut region = id;
        while let Some(p) = chart.state(region).parent {
            if p == StateId::ROOT {
                break;
            }
            region = p;
        }
        !chart
            .states
            .iter()
            .any(|s| s.is_final() && chart.is_descendant_or_self(s.id, region))
    }
}
