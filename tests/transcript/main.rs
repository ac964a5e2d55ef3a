//! Claude Code transcripts read back as hook records. The fixtures under
//! `tests/fixtures/transcripts/` are the team's own, written to the shapes in the protocol
//! reference §6; the real transcripts in `../shared/fixtures` are only read in place.

mod layouts;
mod notifications;
mod refusals;
mod replay_summary;
mod shapes;
mod shared;

use std::path::{Path, PathBuf};

use seed::engine::EventKind;
use seed::protocol::transcript::{Transcript, read_transcript};
use seed::store::record::Record;

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(name)
}

pub fn read(name: &str) -> Transcript {
    read_transcript(&fixture(name)).expect("fixture reads")
}

/// One record as `Hook event @agent`, with the event left out when it only repeats the hook.
pub fn show(record: &Record) -> String {
    let mut out = record.hook.clone();
    if let Some(event) = &record.event
        && event.kind != EventKind::Lifecycle
    {
        out.push(' ');
        out.push_str(&event.key());
    }
    if let Some(agent) = &record.agent {
        out.push_str(" @");
        out.push_str(agent);
    }
    out
}

pub fn timeline(t: &Transcript) -> Vec<String> {
    t.records.iter().map(show).collect()
}

pub fn find<'t>(t: &'t Transcript, hook: &str) -> &'t Record {
    t.records
        .iter()
        .find(|r| r.hook == hook)
        .unwrap_or_else(|| panic!("no {hook} record"))
}
