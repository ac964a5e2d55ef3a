//! Hook mode, a short straight line in three parts: **prepare** (`prepare.rs`: read stdin,
//! bounded, parse, load the configuration and the chart(s), sample the readers), then, under
//! the session log's lock (`session.rs`: the snapshots), **step** (`step.rs`: pure, every
//! sequence stepped and the answer chosen), and **commit** (`commit.rs`: the record appended,
//! the snapshots saved). Print, exit. No runtime, no theme, no watcher.
//!
//! Any internal error gives one line on stderr, a failure record in the log when possible, and
//! the answer the fail mode calls for: open (no decision) or closed (deny with the error).
//! Which fail mode is in force is decided by one rule, `config::fail`, through [`fail_mode`].

#![warn(clippy::too_many_lines)] // Past 80 lines (clippy.toml) a function is split or says why.

mod answer;
mod cache;
mod commit;
mod deadline;
mod failure;
pub mod machines;
mod payload;
mod prepare;
mod session;
mod step;

use std::ffi::OsString;
use std::io::Read;
use std::path::PathBuf;
use std::time::Instant;

use crate::config::{self, fail::FailSources};
use crate::engine::ir::FailMode;
use crate::protocol::{Answer, InputError};
use crate::store::paths;
use crate::store::redact::MAX_FIELD;

pub use deadline::{DEFAULT_BUDGET, Deadline, MAX_BUDGET};
use failure::{Known, guarded_within};
pub use machines::{Loaded, load_machines};
pub use session::fold_session;

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
        fail: fail_mode(&inv, None, &[]),
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
        fail: fail_mode(&inv, None, &[]),
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
        known.fail = prepare::configured_fail(&inv, known.cwd.as_deref());
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

/// Tell the watchdog what is known now, for the lapse it may have to answer.
fn tell(inv: &Invocation<'_>, known: &Known) {
    if let Some(d) = &inv.deadline {
        d.learn(known);
    }
}

/// The fail mode in force by the one rule (`config::fail`), from what is known so far: the
/// flag and `SEED_FAIL` as given, the configuration's result once read (`None` too when it
/// could not be), the sequences once loaded.
fn fail_mode(inv: &Invocation<'_>, configured: Option<FailMode>, charts: &[Loaded]) -> FailMode {
    let env = (inv.env)("SEED_FAIL");
    FailSources::early(inv.fail.as_deref(), env.as_deref())
        .with_configured(configured)
        .with_sequences(charts.iter().map(|l| l.machine.chart.settings.fail))
        .resolve()
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
/// alone): prepare, then under the session's lock step and commit.
fn handle(
    inv: &mut Invocation<'_>,
    known: &mut Known,
    t0: Instant,
) -> Result<(Answer, Option<String>), HookError> {
    let mut prepared = prepare::prepare(inv, known)?;
    let config_warning = prepared.cfg.warning.take();
    let mut held = session::open(&prepared, inv.deadline.as_ref())?;
    let stepped = step::step(&prepared, &mut held.snaps, &mut held.meta);
    let (answer, mut warnings) =
        commit::commit(prepared, held, stepped, inv.deadline.as_ref(), t0)?;
    warnings.splice(0..0, config_warning);
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
