//! One hook's work under the session log's lock: the snapshots loaded (caught up with the
//! log), every sequence stepped, the answer chosen, and the writes, in an order that keeps the
//! log from contradicting the answer: whatever can fail the hook (the chart, `session.json`)
//! is written before the record, and seed 000's files too (so what became of them is in the
//! record); the record is appended last; the snapshot after it is a cache, so failing to save
//! it is a warning, never a failure (the next hook steps the records it lacks).

use std::path::Path;
use std::time::{Instant, SystemTime};

use serde_json::{Value, json};

use super::answer;
use super::payload::{self, Scrubbed};
use super::session::{load_snapshots, update_meta};
use super::{HookError, Invocation, Loaded, MAX_INPUT_STRING, ms_since, now_ts};
use crate::config::Config;
use crate::engine::{Facts, StepReport};
use crate::protocol::{Answer, HookInput, input, output};
use crate::store::record::Record;
use crate::store::redact;
use crate::store::{compat, log::LockedLog, paths, readers, sessions, snapshot};

pub(super) fn step_and_record(
    inv: &Invocation<'_>,
    cfg: &Config,
    state: &Path,
    scrubbed: &Scrubbed,
    loaded: &[Loaded],
    project_dir: Option<&Path>,
    t0: Instant,
) -> Result<(Answer, Vec<String>), HookError> {
    let h = &scrubbed.input;
    let mut cuts = scrubbed.cuts.clone();
    let prompt = h.prompt.as_deref().unwrap_or("");
    let mut normalized = input::normalize(h, &h.tool_input, prompt)?;
    // A tool's result is stepped (and logged in the event) only for a chart that keeps one;
    // otherwise the record's copy, bounded by `response_limit`, is the only one.
    let reads_responses = loaded.iter().any(|l| l.machine.chart.reads_responses());
    // A failed call's error is kept whatever the chart reads: recovery shows it (bounded).
    if let Some(n) = normalized
        .as_mut()
        .filter(|n| !reads_responses && n.event.kind != crate::engine::EventKind::ErrorTool)
    {
        n.event.response = Value::Null;
    }
    let vars = readers::ReaderVars::new(inv.env, project_dir, Some(state));
    // A reader whose walk ran out of budget is unknown; the record and stderr say which.
    let (mut facts, reader_notes): (Facts, Vec<String>) = readers::sample_noting(
        loaded.iter().flat_map(|l| l.machine.chart.readers.iter()),
        &vars,
        SystemTime::now(),
    );
    // Facts are stepped and logged: the same pass as the payload's.
    for (name, value) in facts.iter_mut() {
        redact::scrub_value(value, MAX_INPUT_STRING, &format!("facts/{name}"), &mut cuts);
    }

    for dir in [
        paths::snapshots_dir(state, &h.session_id),
        paths::charts_dir(state, &h.session_id),
    ] {
        paths::ensure_dir_in(state, &dir)?;
    }
    let mut log = LockedLog::open_within(&paths::session_log(state, &h.session_id), cfg.lock_wait)?;
    if let Some(d) = &inv.deadline {
        d.hold_log(log.share());
    }
    let meta_path = paths::session_meta(state, &h.session_id);
    let mut meta = sessions::load_meta(&meta_path).unwrap_or_default();
    let meta_before = meta.clone();
    let (mut snaps, chart_known, records_before) =
        load_snapshots(&log, state, &h.session_id, loaded, &facts)?;

    let mut reports: Vec<StepReport> = Vec::new();
    if let Some(n) = &normalized {
        for (l, snap) in loaded.iter().zip(snaps.iter_mut()) {
            reports.push(l.machine.step(snap, n.phase, &n.event, &facts));
        }
    }
    let names: Vec<&str> = loaded.iter().map(|l| l.name.as_str()).collect();
    let mut verdict = answer::combine(&names, &reports);
    if let Some(v) = &mut verdict {
        answer::scrub_verdict(v, &mut cuts);
    }
    let mut answer = answer::respond(
        h,
        normalized.as_ref().map(|n| n.phase),
        verdict.as_ref(),
        cfg,
        answer::expected(&reports),
    );
    if answer.is_empty()
        && let Some(text) = answer::guidance(h, loaded, &snaps, &mut meta, cfg.inject_every)
    {
        answer = output::context(&h.event, &text);
    }

    // Past the budget nothing is written (the deadline answered); from here the writes are
    // never cut.
    if let Some(d) = &inv.deadline {
        d.begin_writing();
    }
    // What can fail the hook, before the record: a failure leaves no record of an answer
    // that was not given.
    for (i, l) in loaded.iter().enumerate() {
        let chart_path = paths::chart_path(state, &h.session_id, &l.name);
        if !chart_known[i] || !chart_path.exists() {
            snapshot::save_chart(&chart_path, &l.machine.chart)?;
        }
    }
    let ts = now_ts();
    update_meta(&mut meta, h, &names, &ts);
    if meta != meta_before {
        sessions::save_meta(&meta_path, &meta)?;
    }
    let moved = reports.iter().any(|r| r.changed);
    let mut warnings = write_compat(state, h, loaded, &snaps, moved, &ts);
    warnings.extend(reader_notes);

    let mut record = Record::new(ts, h.session_id.clone(), h.event.clone());
    record.agent = h.agent_id.clone();
    record.tool_use_id = h.tool_use_id.clone();
    record.sequences = names.iter().map(|s| s.to_string()).collect();
    record.verdict = verdict;
    record.extra = answer::extra(h, normalized.as_ref().map(|n| &n.event));
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
            cfg.response_limit,
            h.response_size,
            h.response_whole,
        );
        // The event already holds the whole (redacted) result: keep its size, not a 2nd copy.
        if record.event.as_ref().is_some_and(|e| !e.response.is_null()) {
            bounded.value = Value::Null;
        }
        record.response = Some(bounded);
    }
    record.ms = Some(ms_since(t0));
    log.append(&record)?;

    for (l, snap) in loaded.iter().zip(snaps) {
        let saved = snapshot::SavedSnapshot {
            v: snapshot::SAVED_VERSION,
            sequence: l.name.clone(),
            source: l.source.clone(),
            fingerprint: l.machine.fingerprint.clone(),
            log_len: log.len(),
            records: records_before + 1,
            snapshot: snap,
        };
        let at = paths::snapshot_path(state, &h.session_id, &l.name);
        if let Err(e) = snapshot::save(&at, &saved) {
            warnings.push(format!(
                "snapshot not saved (the next hook steps the log): {e}"
            ));
        }
    }
    drop(log);
    Ok((answer, warnings))
}

/// seed 000's files: `allowed_tools.seed` (what every sequence allows, rewritten when one
/// moved) and a `state.log` line per finished tool call. One left alone (a link out of the
/// state directory, not a regular file) or not written is a warning, in the record and on
/// stderr, never a failure.
fn write_compat(
    state: &Path,
    h: &HookInput,
    loaded: &[Loaded],
    snaps: &[crate::engine::Snapshot],
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
            .map(|(l, snap)| l.machine.status(snap).allowed)
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
