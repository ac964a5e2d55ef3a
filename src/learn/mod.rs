//! `seed learn`: draft a sequence from what agents did. Past sessions (Claude Code transcripts,
//! seed's own logs) are read as the hook would have recorded them; each call becomes an
//! activity ([`activity`]); the heuristics miner's dependency graph ([`miner`]) says which
//! follow which, which repeat, where sessions start and end; [`draft`] writes it as a Mermaid
//! statechart with a manifest; and every session is replayed through the draft by the engine
//! ([`whatif`]), so a user sees how many calls each threshold would have refused.
#![warn(clippy::too_many_lines)] // Past 80 lines (clippy.toml) a function is split or says why.

pub mod activity;
pub mod draft;
pub mod miner;
pub mod report;
pub mod sources;
pub mod trace;
pub mod whatif;

use std::path::PathBuf;
use std::sync::Arc;

use crate::session::source;

pub use miner::Thresholds;

pub struct Options {
    /// The drafted sequence's name.
    pub name: String,
    pub thresholds: Thresholds,
}

pub struct Learned {
    pub name: String,
    pub counts: miner::Counts,
    pub graph: miner::Graph,
    /// The thresholds the draft was made with (`min_count` rises when the graph is too big).
    pub thresholds: Thresholds,
    pub draft: draft::Draft,
    pub sessions: Vec<whatif::SessionReport>,
    /// Calls mined (neutral ones and unspellable names left out).
    pub mined_calls: u64,
    /// Calls whose name no pattern spells safely (left out; the what-if refuses them).
    pub unspellable: u64,
    /// Lines of the sources that were not records or transcript lines.
    pub skipped_lines: usize,
    /// Session files that could not be read, with why.
    pub unreadable: Vec<(PathBuf, String)>,
}

pub fn learn(sources: &[PathBuf], opts: &Options) -> Result<Learned, String> {
    let files = sources::expand(sources)?;
    let mut counts = miner::Counts::default();
    let (mut mined_calls, mut unspellable, mut skipped_lines) = (0u64, 0u64, 0usize);
    let mut unreadable = Vec::new();
    let mut readable = Vec::new();
    for f in &files {
        let loaded = match source::load_path(f) {
            Ok(l) => l,
            Err(e) => {
                unreadable.push((f.clone(), e));
                continue;
            }
        };
        skipped_lines += loaded.skipped;
        let session = trace::of(&loaded.records, &mut counts.names);
        unspellable += session.unspellable;
        counts.add_session(session);
        readable.push(f.clone());
    }
    if readable.is_empty() {
        let (f, e) = unreadable.first().cloned().unwrap_or_default();
        return Err(format!("no session could be read ({}: {e})", f.display()));
    }
    mined_calls += counts.calls.iter().sum::<u64>();
    if counts.calls.is_empty() {
        return Err(format!(
            "nothing to learn from: {} session{} made no call other than neutral ones (reading, searching)",
            readable.len(),
            if readable.len() == 1 { "" } else { "s" }
        ));
    }
    let (graph, thresholds) = miner::graph(&counts, opts.thresholds);
    if graph.kept.is_empty() {
        return Err(format!(
            "every call was made fewer than {} times: nothing left to draft; lower --min-count",
            thresholds.min_count
        ));
    }
    let draft = draft::render(&opts.name, &counts, &graph, thresholds, mined_calls);
    let machine = Arc::new(whatif::machine(&opts.name, &draft)?);
    let mut sessions = Vec::new();
    for f in &readable {
        // Read again rather than kept: memory stays one session's, whatever the sources' size.
        let loaded = source::load_path(f)?;
        sessions.push(whatif::replay(&machine, &loaded));
    }
    Ok(Learned {
        name: opts.name.clone(),
        counts,
        graph,
        thresholds,
        draft,
        sessions,
        mined_calls,
        unspellable,
        skipped_lines,
        unreadable,
    })
}
