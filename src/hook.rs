//! Hook mode, a short straight line: read stdin (bounded), parse, load the configuration and
//! the chart(s), sample the readers, lock the session log, load the snapshot(s), step, append
//! one record, save the snapshot(s), print, exit. No runtime, no theme, no watcher.
//!
//! Any internal error gives one line on stderr, a failure record in the log when possible, and
//! the configured answer: fail-open (no decision) or fail-closed (deny with the error).

mod answer;
mod cache;
mod deadline;
mod failure;
pub mod machines;
mod payload;
mod session;
mod step;

use std::ffi::OsString;
use std::io::Read;
use std::path::PathBuf;
use std::time::Instant;

use crate::config::{self, Flags};
use crate::engine::ir::FailMode;
use crate::protocol::{Answer, HookInput, InputError};
use crate::store::paths;
use crate::store::redact::MAX_FIELD;

pub use deadline::{DEFAULT_BUDGET, Deadline, MAX_BUDGET};
use failure::{Known, SALVAGE_MAX, guarded_within};
pub use machines::{Loaded, load_machines};
pub use session::fold_session;
use step::step_and_record;

/// Largest payload read from stdin; anything bigger is refused (fail-open/closed).
pub const MAX_INPUT_BYTES: u64 = 128 * 1024 * 1024;
pub use crate::protocol::input::MAX_INPUT_STRING;

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
    /// The work was not done within `hook_budget_ms`; answered per `fail` instead.
    #[error("ran out of time: not done within hook_budget_ms = {0}, so answered per `fail`")]
    Lapsed(u64),
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
    /// The budget's watchdog (`None`: no budget, as in tests and the demo).
    pub deadline: Option<Deadline>,
}

pub fn run(mut inv: Invocation<'_>) -> Outcome {
    let t0 = Instant::now();
    let mut known = Known {
        event: inv.event.clone(),
        // Before any configuration is read, the flag or SEED_FAIL decides how to fail.
        fail: early_fail_mode(&inv),
        ..Known::default()
    };
    let deadline = inv.deadline.clone();
    if let Some(d) = &deadline {
        d.learn(&known);
    }
    guarded_within(&mut known, t0, deadline.as_ref(), |known| {
        handle(&mut inv, known, t0)
    })
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
    let deadline = inv.deadline.clone();
    guarded_within(&mut known, t0, deadline.as_ref(), |known| {
        if let Ok(bytes) = read_stdin(inv.stdin) {
            known.learn(bytes);
        }
        let env_os = |k: &str| (inv.env)(k).map(OsString::from);
        known.state = paths::state_dir_with(&env_os)
            .and_then(|s| paths::prepare_state(&s))
            .ok();
        known.fail = configured_fail(&inv, known.cwd.as_deref(), known.fail);
        tell(&inv, known);
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
    // A path longer than any real one is no directory to walk up from.
    dirs.extend(
        payload_cwd
            .filter(|c| c.len() <= MAX_FIELD)
            .map(PathBuf::from),
    );
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

/// Tell the watchdog what is known now, for the lapse it may have to answer.
fn tell(inv: &Invocation<'_>, known: &Known) {
    if let Some(d) = &inv.deadline {
        d.learn(known);
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
    // The state directory first, so even a payload too large to read is recorded.
    let env_os = |k: &str| (inv.env)(k).map(OsString::from);
    let state = paths::state_dir_with(&env_os).and_then(|s| paths::prepare_state(&s));
    known.state = state.as_ref().ok().cloned();
    tell(inv, known);
    let bytes = match read_stdin(&mut *inv.stdin) {
        Ok(b) => b,
        Err(e) => {
            // Nothing of the payload is known; the configuration still says how to fail.
            known.fail = configured_fail(inv, None, known.fail);
            return Err(e);
        }
    };
    let spare = (bytes.len() <= SALVAGE_MAX).then(|| bytes.clone());
    let parsed = HookInput::parse(bytes, inv.event.as_deref());
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
    // The real directory, to find the project's configuration; everything else is used
    // scrubbed from here on.
    let payload_cwd = hook_input.raw_cwd.clone();
    let scrubbed = payload::scrub(hook_input);
    let hook_input = &scrubbed.input;
    known.event = Some(hook_input.event.clone());
    known.session = Some(hook_input.session_id.clone());
    known.agent = hook_input.agent_id.clone();
    tell(inv, known);
    let state = state?;

    let start_dirs = start_dirs(inv, payload_cwd.as_deref());
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
    known.lock_wait = Some(cfg.lock_wait);
    known.warning = cfg.warning.clone();
    if let Some(d) = &inv.deadline {
        d.set_budget(cfg.hook_budget);
    }
    tell(inv, known);
    let project_dir = cfg
        .project_root
        .clone()
        .or_else(|| start_dirs.first().cloned());
    paths::ensure_dir_in(&state, &paths::chart_cache_dir(&state))?;
    let mut loaded = load_machines(&cfg, project_dir.as_deref(), &state)?;
    machines::host(
        &mut loaded,
        &hook_input.event,
        project_dir.as_deref(),
        inv.env,
    );
    if cfg.fail.is_none()
        && loaded
            .iter()
            .any(|l| l.machine.chart.settings.fail == FailMode::Closed)
    {
        known.fail = FailMode::Closed;
        tell(inv, known);
    }
    let (answer, mut warnings) = step_and_record(
        &*inv,
        &cfg,
        &state,
        &scrubbed,
        &loaded,
        project_dir.as_deref(),
        t0,
    )?;
    warnings.splice(0..0, cfg.warning);
    Ok((answer, (!warnings.is_empty()).then(|| warnings.join("; "))))
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

    /// A payload over the limit is answered per `fail` (the project's file says how, though
    /// nothing of the payload is read) and recorded in `errors.jsonl`.
    #[test]
    fn a_payload_over_the_limit_is_recorded_and_answered_per_fail() {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        let vars = [
            ("SEED_HOME", home.path().join("state")),
            ("SEED_CONFIG_DIR", home.path().join("no-user-config")),
            ("CLAUDE_PROJECT_DIR", project.clone()),
        ];
        let env = move |k: &str| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.display().to_string())
        };
        let run_huge = |env: &dyn Fn(&str) -> Option<String>| {
            let mut stdin = std::io::repeat(b' ').take(MAX_INPUT_BYTES + 1);
            run(Invocation {
                sequence: None,
                enforcement: None,
                fail: None,
                event: Some("PreToolUse".into()),
                stdin: &mut stdin,
                env,
                cwd: None,
                deadline: None,
            })
        };
        let out = run_huge(&env);
        assert_eq!((out.exit, out.stdout.as_str()), (0, ""), "fail-open");
        let line = format!("seed: payload is larger than {MAX_INPUT_BYTES} bytes");
        assert_eq!(out.stderr.as_deref(), Some(line.as_str()));
        std::fs::write(project.join(".seed.toml"), "fail = \"closed\"\n").unwrap();
        let out = run_huge(&env);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("fail-closed answers");
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        let errors =
            std::fs::read_to_string(home.path().join("state").join("errors.jsonl")).unwrap();
        let records: Vec<serde_json::Value> = errors
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(records.len(), 2, "{errors}");
        for (rec, fail) in records.iter().zip(["open", "closed"]) {
            assert_eq!(rec["error"].as_str(), Some(line.as_str()));
            assert_eq!(rec["hook"], "PreToolUse");
            assert_eq!(rec["extra"]["fail"], fail);
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
                deadline: None,
            },
        );
        assert_eq!(out.exit, 0);
        let err = out.stderr.unwrap_or_default();
        assert!(
            err.starts_with("seed: internal error: stdin exploded at src/hook.rs:"),
            "{err}"
        );
        let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("fail-closed answers");
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    }
}
