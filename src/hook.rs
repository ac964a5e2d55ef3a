//! Hook mode, a short straight line: read stdin (bounded), parse, load the configuration and
//! the chart(s), sample the readers, lock the session log, load the snapshot(s), step, append
//! one record, save the snapshot(s), print, exit. No runtime, no theme, no watcher.
//!
//! Any internal error gives one line on stderr, a failure record in the log when possible, and
//! the configured answer: fail-open (no decision) or fail-closed (deny with the error).

mod answer;
mod cache;
mod failure;
mod machines;
mod session;

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use serde_json::{Value, json};

use crate::config::{self, Config, Flags};
use crate::engine::ir::FailMode;
use crate::engine::{Facts, StepReport};
use crate::protocol::{Answer, HookInput, InputError, input, output};
use crate::store::record::Record;
use crate::store::{compat, log::LockedLog, paths, readers, redact, sessions, snapshot};

use failure::{Known, SALVAGE_MAX, guarded};
pub use machines::{Loaded, load_machines};
pub use session::fold_session;
use session::{load_snapshots, update_meta};

/// Largest payload read from stdin; anything bigger is refused (fail-open/closed).
pub const MAX_INPUT_BYTES: u64 = 128 * 1024 * 1024;
/// Longest string kept in a tool input or prompt (the event the engine steps and the log keep).
pub const MAX_INPUT_STRING: usize = 256 * 1024;
/// Longest error text kept from a failed tool call.
pub const MAX_ERROR_TEXT: usize = 4 * 1024;

/// seed's own failure, as one line.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error("{0}")]
    Input(#[from] InputError),
    #[error("payload is larger than {MAX_INPUT_BYTES} bytes")]
    TooLarge,
    #[error("{0}")]
    Config(#[from] config::ConfigError),
    #[error("sequence: {0}")]
    Sequence(#[from] crate::dialects::LoadError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// `seed hook` was given arguments it cannot use.
    #[error("{0}")]
    Arguments(String),
    /// A bug in seed: a panic, caught.
    #[error("internal error: {0}")]
    Panic(String),
}

/// What the process prints and returns. `exit` is always 0: seed never answers with exit 2.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: Option<String>,
    pub exit: u8,
}

/// Inputs from the process: arguments, stdin, environment.
pub struct Invocation<'a> {
    /// `--sequence` (several, comma-separated).
    pub sequence: Option<String>,
    pub enforcement: Option<String>,
    pub fail: Option<String>,
    /// The `EVENT` argument.
    pub event: Option<String>,
    pub stdin: &'a mut dyn Read,
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The process's current directory (last place to look for `.seed.toml`).
    pub cwd: Option<PathBuf>,
}

pub fn run(mut inv: Invocation<'_>) -> Outcome {
    let t0 = Instant::now();
    let mut known = Known {
        event: inv.event.clone(),
        // Before any configuration is read, the flag or SEED_FAIL decides how to fail.
        fail: early_fail_mode(&inv),
        ..Known::default()
    };
    guarded(&mut known, t0, |known| handle(&mut inv, known, t0))
}

/// `seed hook` called with arguments it cannot use: the same as any internal error (one line
/// on stderr, a failure record, the configured answer), never clap's exit 2, which Claude
/// Code would take for a block. `inv` holds what could be parsed; the payload on stdin (pass
/// an empty one when there is none to read) tells the event and the session.
pub fn refuse_arguments(message: &str, inv: Invocation<'_>) -> Outcome {
    let t0 = Instant::now();
    let mut known = Known {
        event: inv.event.clone(),
        fail: early_fail_mode(&inv),
        ..Known::default()
    };
    // Reading the payload and the configuration is work like any hook's: a panic in it is
    // caught too (one line, the configured answer), never Rust's report and exit 101.
    guarded(&mut known, t0, |known| {
        if let Ok(bytes) = read_stdin(inv.stdin) {
            known.learn(bytes);
        }
        let env_os = |k: &str| (inv.env)(k).map(OsString::from);
        known.state = paths::state_dir_with(&env_os)
            .and_then(|s| paths::prepare_state(&s))
            .ok();
        known.fail = configured_fail(&inv, known.cwd.as_deref(), known.fail);
        Err(HookError::Arguments(message.to_string()))
    })
}

/// Where to look for a `.seed.toml`: `$CLAUDE_PROJECT_DIR`, the payload's `cwd`, the process's.
fn start_dirs(inv: &Invocation<'_>, payload_cwd: Option<&str>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    dirs.extend(
        (inv.env)("CLAUDE_PROJECT_DIR")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from),
    );
    dirs.extend(payload_cwd.map(PathBuf::from));
    dirs.extend(inv.cwd.clone());
    dirs
}

/// The fail mode the configuration asks for (flags and variables first, then the files, even
/// a broken one whose `fail` line is readable), for failures before the hook got that far.
fn configured_fail(inv: &Invocation<'_>, payload_cwd: Option<&str>, early: FailMode) -> FailMode {
    let flags = Flags {
        fail: inv.fail.clone(),
        ..Flags::default()
    };
    match config::load(&start_dirs(inv, payload_cwd), inv.env, &flags) {
        Ok(c) => c.fail.unwrap_or(early),
        Err(e) => e.fail.unwrap_or(early),
    }
}

fn early_fail_mode(inv: &Invocation<'_>) -> FailMode {
    let v = inv.fail.clone().or_else(|| (inv.env)("SEED_FAIL"));
    match v.as_deref().map(str::trim) {
        Some("closed") => FailMode::Closed,
        _ => FailMode::Open,
    }
}

fn read_stdin(r: &mut dyn Read) -> Result<Vec<u8>, HookError> {
    let mut buf = Vec::new();
    r.take(MAX_INPUT_BYTES + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > MAX_INPUT_BYTES {
        return Err(HookError::TooLarge);
    }
    Ok(buf)
}

pub(crate) fn now_ts() -> String {
    format!("{:.3}", jiff::Timestamp::now())
}

pub(crate) fn ms_since(t0: Instant) -> f64 {
    (t0.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// The answer, and warnings for stderr (unknown configuration keys, compatibility files left
/// alone).
fn handle(
    inv: &mut Invocation<'_>,
    known: &mut Known,
    t0: Instant,
) -> Result<(Answer, Option<String>), HookError> {
    let bytes = read_stdin(&mut *inv.stdin)?;
    let spare = (bytes.len() <= SALVAGE_MAX).then(|| bytes.clone());
    let parsed = HookInput::parse(bytes, inv.event.as_deref());
    let env_os = |k: &str| (inv.env)(k).map(OsString::from);
    let state = paths::state_dir_with(&env_os).and_then(|s| paths::prepare_state(&s));
    known.state = state.as_ref().ok().cloned();
    let hook_input = match parsed {
        Ok(h) => h,
        Err(e) => {
            // Learn what the payload still says, for the record and the fail-closed answer.
            if let Some(b) = spare {
                known.learn(b);
            }
            known.fail = configured_fail(inv, known.cwd.as_deref(), known.fail);
            return Err(e.into());
        }
    };
    drop(spare);
    known.event = Some(hook_input.event.clone());
    known.session = Some(hook_input.session_id.clone());
    known.agent = hook_input.agent_id.clone();
    let state = state?;

    let start_dirs = start_dirs(inv, hook_input.cwd.as_deref());
    let flags = Flags {
        sequence: inv.sequence.clone(),
        enforcement: inv.enforcement.clone(),
        fail: inv.fail.clone(),
    };
    let cfg = config::load(&start_dirs, inv.env, &flags).inspect_err(|e| {
        if let Some(f) = e.fail {
            known.fail = f;
        }
    })?;
    known.fail = cfg.fail_mode();
    let project_dir = cfg
        .project_root
        .clone()
        .or_else(|| start_dirs.first().cloned());
    paths::ensure_dir_in(&state, &paths::chart_cache_dir(&state))?;
    let loaded = load_machines(&cfg, project_dir.as_deref(), &state)?;
    if cfg.fail.is_none()
        && loaded
            .iter()
            .any(|l| l.machine.chart.settings.fail == FailMode::Closed)
    {
        known.fail = FailMode::Closed;
    }
    let (answer, mut warnings) = step_and_record(
        &*inv,
        &cfg,
        &state,
        &hook_input,
        &loaded,
        project_dir.as_deref(),
        t0,
    )?;
    warnings.splice(0..0, cfg.warning);
    Ok((answer, (!warnings.is_empty()).then(|| warnings.join("; "))))
}

/// Tool input and prompt as the engine and the log see them: redacted and bounded, with
/// what was cut (`[{"field": "tool_input/content", "size": 300000}]`) for the record.
fn prepared_input(h: &HookInput) -> (Value, String, Vec<Value>) {
    let mut tool_input = h.tool_input.clone();
    redact::redact_value(&mut tool_input);
    let mut cuts: Vec<Value> = redact::bound_strings(&mut tool_input, MAX_INPUT_STRING)
        .into_iter()
        .map(|c| json!({ "field": format!("tool_input{}", c.path), "size": c.size, "kept": MAX_INPUT_STRING }))
        .collect();
    let prompt = h.prompt.as_deref().unwrap_or("");
    let prompt = redact::redact_str(prompt).unwrap_or_else(|| prompt.to_string());
    let prompt = if prompt.len() > MAX_INPUT_STRING {
        cuts.push(json!({ "field": "prompt", "size": prompt.len(), "kept": MAX_INPUT_STRING }));
        format!(
            "{}…[seed: truncated, {} bytes]",
            redact::truncate_bytes(&prompt, MAX_INPUT_STRING),
            prompt.len()
        )
    } else {
        prompt
    };
    (tool_input, prompt, cuts)
}

fn step_and_record(
    inv: &Invocation<'_>,
    cfg: &Config,
    state: &Path,
    h: &HookInput,
    loaded: &[Loaded],
    project_dir: Option<&Path>,
    t0: Instant,
) -> Result<(Answer, Vec<String>), HookError> {
    let (tool_input, prompt, cuts) = prepared_input(h);
    let mut normalized = input::normalize(h, &tool_input, &prompt)?;
    // A tool's result is stepped (and logged in the event) only for a chart that keeps one;
    // otherwise the record's copy, bounded by `response_limit`, is the only one.
    let reads_responses = loaded.iter().any(|l| l.machine.chart.reads_responses());
    if let Some(n) = normalized.as_mut().filter(|_| !reads_responses) {
        n.event.response = Value::Null;
    }
    let now = SystemTime::now();
    let vars = readers::ReaderVars::new(inv.env, project_dir, Some(state));
    let facts: Facts = readers::sample(
        loaded.iter().flat_map(|l| l.machine.chart.readers.iter()),
        &vars,
        now,
    );

    for dir in [
        paths::snapshots_dir(state, &h.session_id),
        paths::charts_dir(state, &h.session_id),
    ] {
        paths::ensure_dir_in(state, &dir)?;
    }
    let mut log =
        LockedLog::open_within(&paths::session_log(state, &h.session_id), cfg.lock_wait)?;
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
    let verdict = answer::combine(&names, &reports);
    let mut answer = answer::respond(
        h,
        normalized.as_ref().map(|n| n.phase),
        verdict.as_ref(),
        cfg,
    );
    if answer.is_empty()
        && let Some(text) = answer::guidance(h, loaded, &snaps, &mut meta, cfg.inject_every)
    {
        answer = output::context(&h.event, &text);
    }

    // seed 000's files, checked before the record is written so that one left alone (a link
    // out of the state directory, not a regular file) is said in the record and on stderr.
    let allowed_at = compat::target(state, &compat::allowed_tools_path(state));
    let state_log_at = compat::target(state, &compat::state_log_path(state));
    let mut warnings: Vec<String> = [&allowed_at, &state_log_at]
        .into_iter()
        .filter_map(|r| r.as_ref().err().cloned())
        .collect();

    let ts = now_ts();
    let mut record = Record::new(ts.clone(), h.session_id.clone(), h.event.clone());
    record.agent = h.agent_id.clone();
    record.tool_use_id = h.tool_use_id.clone();
    record.sequences = names.iter().map(|s| s.to_string()).collect();
    record.verdict = verdict;
    record.extra = answer::extra(h, normalized.is_none());
    for (key, list) in [
        ("truncated", cuts),
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
        let mut bounded = redact::bound_response(resp.clone(), cfg.response_limit);
        // The event already holds the whole (redacted) result: keep its size, not a 2nd copy.
        if record.event.as_ref().is_some_and(|e| !e.response.is_null()) {
            bounded.value = Value::Null;
        }
        record.response = Some(bounded);
    }
    record.ms = Some(ms_since(t0));
    log.append(&record)?;

    // seed 000's allowed_tools.seed: what every sequence allows, rewritten when one moved.
    let moved = reports.iter().any(|r| r.changed);
    if let Ok(path) = &allowed_at
        && !loaded.is_empty()
        && (moved || !path.exists())
    {
        let lists: Vec<Vec<String>> = loaded
            .iter()
            .zip(&snaps)
            .map(|(l, snap)| l.machine.status(snap).allowed)
            .collect();
        let mut allowed = lists[0].clone();
        allowed.retain(|t| lists.iter().all(|list| list.contains(t)));
        if let Err(e) = compat::write_allowed_tools(path, &allowed) {
            warnings.push(format!("allowed_tools.seed not written: {e}"));
        }
    }
    for (i, (l, snap)) in loaded.iter().zip(snaps).enumerate() {
        let chart_path = paths::chart_path(state, &h.session_id, &l.name);
        let saved = snapshot::SavedSnapshot {
            v: snapshot::SAVED_VERSION,
            sequence: l.name.clone(),
            source: l.source.clone(),
            fingerprint: l.machine.fingerprint.clone(),
            log_len: log.len(),
            records: records_before + 1,
            snapshot: snap,
        };
        if !chart_known[i] || !chart_path.exists() {
            snapshot::save_chart(&chart_path, &l.machine.chart)?;
        }
        snapshot::save(&paths::snapshot_path(state, &h.session_id, &l.name), &saved)?;
    }
    update_meta(&mut meta, h, &names, &ts);
    if meta != meta_before {
        sessions::save_meta(&meta_path, &meta)?;
    }
    if matches!(h.event.as_str(), "PostToolUse" | "PostToolUseFailure") {
        let outcome = if h.event == "PostToolUse" {
            "ok"
        } else {
            "error"
        };
        let tool = h.tool_name.as_deref().unwrap_or("");
        if let Ok(path) = &state_log_at
            && let Err(e) = compat::append_state_log(path, &[&ts, &h.session_id, tool, outcome])
        {
            warnings.push(format!("state.log not written: {e}"));
        }
    }
    drop(log);
    Ok((answer, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stdin whose read panics: a stand-in for any bug on the bad-argument path.
    struct Panicky;

    impl Read for Panicky {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            panic!("stdin exploded")
        }
    }

    #[test]
    fn a_panic_while_refusing_arguments_is_caught() {
        let home = tempfile::tempdir().unwrap();
        let home_str = home.path().display().to_string();
        let env = move |k: &str| (k == "SEED_HOME").then(|| home_str.clone());
        let mut stdin = Panicky;
        let out = refuse_arguments(
            "unknown option `--bogus`",
            Invocation {
                sequence: None,
                enforcement: None,
                fail: Some("closed".into()),
                event: Some("PreToolUse".into()),
                stdin: &mut stdin,
                env: &env,
                cwd: None,
            },
        );
        assert_eq!(out.exit, 0);
        let err = out.stderr.unwrap_or_default();
        assert!(
            err.starts_with("seed: internal error: stdin exploded at src/hook.rs:"),
            "{err}"
        );
        let v: Value = serde_json::from_str(&out.stdout).expect("fail-closed answers");
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    }
}
