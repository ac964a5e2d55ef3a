//! Commit: the writes, in an order that keeps the log from contradicting the answer:
//! whatever can fail the hook (the chart, `session.json`) is written before the record, and
//! seed 000's files too (so what became of them is in the record); the record is appended
//! last; the snapshot after it is a cache, so failing to save it is a warning, never a
//! failure (the next hook steps the records it lacks).

use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use super::deadline::Deadline;
use super::payload;
use super::prepare::Prepared;
use super::session::{Held, update_meta};
use super::step::Stepped;
use super::{HookError, Loaded, ms_since, now_ts};
use crate::engine::Snapshot;
use crate::protocol::{Answer, HookInput};
use crate::store::record::Record;
use crate::store::{compat, paths, redact, sessions, snapshot};

/// Write what the step decided; the answer and the warnings (for the record and stderr).
pub(super) fn commit(
    mut p: Prepared,
    held: Held,
    stepped: Stepped,
    deadline: Option<&Deadline>,
    t0: Instant,
) -> Result<(Answer, Vec<String>), HookError> {
    // Past the budget nothing is written (the deadline answered); from here the writes are
    // never cut.
    if let Some(d) = deadline {
        d.begin_writing();
    }
    let Held {
        mut log,
        meta_path,
        mut meta,
        meta_before,
        snaps,
        chart_known,
        records_before,
    } = held;
    for (l, known) in p.loaded.iter().zip(&chart_known) {
        let chart_path = paths::chart_path(&p.state, &p.input.session_id, &l.name);
        if !known || !chart_path.exists() {
            snapshot::save_chart(&chart_path, &l.machine.chart)?;
        }
    }
    let ts = now_ts();
    update_meta(&mut meta, &p.input, &p.names(), &ts);
    if meta != meta_before {
        sessions::save_meta(&meta_path, &meta)?;
    }
    let mut warnings = write_compat(&p.state, &p.input, &p.loaded, &snaps, stepped.moved, &ts);
    warnings.extend(p.reader_notes.iter().cloned());
    let mut record = record(&mut p, stepped.verdict, &stepped.cuts, &warnings, ts);
    record.ms = Some(ms_since(t0));
    log.append(&record)?;
    let (state, session) = (&p.state, &p.input.session_id);
    for (l, snap) in p.loaded.iter().zip(snaps) {
        let saved = snapshot::SavedSnapshot {
            v: snapshot::SAVED_VERSION,
            sequence: l.name.clone(),
            source: l.source.clone(),
            fingerprint: l.machine.fingerprint.clone(),
            log_len: log.len(),
            records: records_before + 1,
            snapshot: snap,
        };
        let at = paths::snapshot_path(state, session, &l.name);
        if let Err(e) = snapshot::save(&at, &saved) {
            warnings.push(format!(
                "snapshot not saved (the next hook steps the log): {e}"
            ));
        }
    }
    drop(log);
    Ok((stepped.answer, warnings))
}

/// The hook's record: the event stepped, its facts, the verdict, what scrubbing cut, the
/// warnings, and the tool's result bounded by `response_limit`. The event and facts are
/// moved into it.
fn record(
    p: &mut Prepared,
    verdict: Option<crate::engine::Verdict>,
    verdict_cuts: &[redact::Cut],
    warnings: &[String],
    ts: String,
) -> Record {
    let normalized = p.normalized.take();
    let facts = std::mem::take(&mut p.facts);
    let h = &p.input;
    let mut record = Record::new(ts, h.session_id.clone(), h.event.clone());
    record.agent = h.agent_id.clone();
    record.tool_use_id = h.tool_use_id.clone();
    record.sequences = p.loaded.iter().map(|l| l.name.clone()).collect();
    record.verdict = verdict;
    record.extra = super::answer::extra(h, normalized.as_ref().map(|n| &n.event));
    let cuts: Vec<redact::Cut> = p.cuts.iter().chain(verdict_cuts).cloned().collect();
    for (key, list) in [
        ("truncated", payload::entries(&cuts)),
        ("warnings", warnings.iter().map(|w| json!(w)).collect()),
    ] {
        if list.is_empty() {
            continue;
        }
        if record.extra.is_null() {
            record.extra = json!({});
        }
        if let Value::Object(m) = &mut record.extra {
            m.insert(key.into(), Value::Array(list));
        }
    }
    if let Some(n) = normalized {
        record.phase = Some(n.phase);
        record.event = Some(n.event);
        record.facts = facts;
    }
    if let Some(resp) = &h.tool_response {
        let mut bounded = redact::bound_response(
            resp.clone(),
            p.cfg.response_limit,
            h.response_size,
            h.response_whole,
        );
        // The event already holds the whole (redacted) result: keep its size, not a 2nd copy.
        if record.event.as_ref().is_some_and(|e| !e.response.is_null()) {
            bounded.value = Value::Null;
        }
        record.response = Some(bounded);
    }
    record
}

/// seed 000's files: `allowed_tools.seed` (what every sequence allows, rewritten when one
/// moved) and a `state.log` line per finished tool call. One left alone (a link out of the
/// state directory, not a regular file) or not written is a warning, in the record and on
/// stderr, never a failure.
fn write_compat(
    state: &Path,
    h: &HookInput,
    loaded: &[Loaded],
    snaps: &[Snapshot],
    moved: bool,
    ts: &str,
) -> Vec<String> {
    let allowed_at = compat::target(state, &compat::allowed_tools_path(state));
    let state_log_at = compat::target(state, &compat::state_log_path(state));
    let mut warnings: Vec<String> = [&allowed_at, &state_log_at]
        .into_iter()
        .filter_map(|r| r.as_ref().err().cloned())
        .collect();
    if let Ok(path) = &allowed_at
        && !loaded.is_empty()
        && (moved || !path.exists())
    {
        let lists: Vec<Vec<String>> = loaded
            .iter()
            .zip(snaps)
            .map(|(l, snap)| l.machine.status(snap).allowed.into())
            .collect();
        let mut allowed = lists[0].clone();
        allowed.retain(|t| lists.iter().all(|list| list.contains(t)));
        if let Err(e) = compat::write_allowed_tools(path, &allowed) {
            warnings.push(format!("allowed_tools.seed not written: {e}"));
        }
    }
    if matches!(h.event.as_str(), "PostToolUse" | "PostToolUseFailure") {
        let outcome = if h.event == "PostToolUse" {
            "ok"
        } else {
            "error"
        };
        let tool = h.tool_name.as_deref().unwrap_or("");
        if let Ok(path) = &state_log_at
            && let Err(e) = compat::append_state_log(path, &[ts, &h.session_id, tool, outcome])
        {
            warnings.push(format!("state.log not written: {e}"));
        }
    }
    warnings
}
