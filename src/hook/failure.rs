//! seed's own failures: one line on stderr, a failure record (in the session log when the
//! session is known, else `errors.jsonl`), and the configured answer: fail-open (no decision)
//! or fail-closed (deny what can be denied). Whatever could be learnt before the error (the
//! event and session from a payload that was otherwise unusable) goes into both.

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Once;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use super::deadline::Deadline;
use super::{HookError, Outcome, ms_since, now_ts};
use crate::engine::ir::FailMode;
use crate::protocol::{Answer, output, repair};
use crate::store::record::Record;
use crate::store::redact::{MAX_FIELD, scrub_str};
use crate::store::{failures, log, paths};

/// The least a failure record waits for `errors.jsonl`, even when the hook's wait is used up:
/// hooks that failed together (a session log locked past everyone's wait) append there at
/// once, each holding the lock for one write.
const ERRORS_LOG_GRACE: Duration = Duration::from_millis(50);

/// Payloads up to this size are kept aside while parsing, to learn the event and session
/// from one the parser refuses (a missing `session_id`). Real payloads are a few KB; the
/// rare huge one (a tool response of tens of MB) always has a session.
pub const SALVAGE_MAX: usize = 16 * 1024 * 1024;

/// What is known when an error happens, for the failure record and answer.
#[derive(Default, Clone)]
pub struct Known {
    /// The prepared state directory (`None`: nowhere safe to write).
    pub state: Option<PathBuf>,
    pub session: Option<String>,
    pub agent: Option<String>,
    pub event: Option<String>,
    /// The payload's `cwd`, to find the project's configuration.
    pub cwd: Option<String>,
    pub fail: FailMode,
    /// The configured `lock_wait_ms` (`None`: not read yet, the default): the whole hook,
    /// failure record included, answers within it.
    pub lock_wait: Option<Duration>,
    /// The configuration's warning (a capped `lock_wait_ms`…), said with a failure too.
    pub warning: Option<String>,
}

/// The few fields worth learning from a payload seed could not use.
#[derive(Deserialize)]
struct Peek {
    hook_event_name: Option<Value>,
    session_id: Option<Value>,
    agent_id: Option<Value>,
    cwd: Option<Value>,
}

/// A string that can name an event: short, ASCII letters and digits.
fn event_name(v: Option<&Value>) -> Option<String> {
    v?.as_str()
        .filter(|s| !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_alphanumeric()))
        .map(String::from)
}

/// A string field as long as one seed keeps (an id, a path), not blank.
fn text(v: Option<&Value>) -> Option<String> {
    v?.as_str()
        .filter(|s| !s.trim().is_empty() && s.len() <= MAX_FIELD)
        .map(String::from)
}

impl Known {
    /// Learn the event, session, agent and cwd from raw payload bytes, when they are JSON.
    /// What is already known (the `EVENT` argument) stays.
    pub fn learn(&mut self, bytes: Vec<u8>) {
        let (text_in, repairs) = repair::decode(bytes);
        // An id repaired into U+FFFD is not the id sent (see `HookInput::parse`): the
        // failure goes to `errors.jsonl`, not to a session another id shares.
        let repaired = repairs.invalid_utf8 || repairs.lone_surrogates > 0;
        let Ok(p) = serde_json::from_str::<Peek>(text_in.trim_start_matches('\u{feff}')) else {
            return;
        };
        if self.event.is_none() {
            self.event = event_name(p.hook_event_name.as_ref());
        }
        let session = text(p.session_id.as_ref()).filter(|s| !(repaired && s.contains('\u{fffd}')));
        self.session = self.session.take().or(session);
        self.agent = self.agent.take().or(text(p.agent_id.as_ref()));
        self.cwd = self.cwd.take().or(text(p.cwd.as_ref()));
    }
}

/// Record the failure where possible and give the configured answer.
pub fn failure(known: &Known, err: &HookError, t0: Instant) -> Outcome {
    failure_into(known, err, t0, None)
}

/// [`failure`], appended through `held` when the session log's lock is held by this process
/// (the hook's own work, cut by its deadline): another handle would wait for that lock.
pub fn failure_into(known: &Known, err: &HookError, t0: Instant, held: Option<File>) -> Outcome {
    // Said on stderr, recorded and (fail-closed) answered: redacted and bounded like any text.
    let mut msg = format!("seed: {err}");
    if let Some(w) = &known.warning {
        msg.push_str(&format!(" (warning: {w})"));
    }
    scrub_str(&mut msg, MAX_FIELD, "error", &mut Vec::new());
    let msg = one_line(&msg);
    if let Some(state) = &known.state {
        let mut rec = Record::new(
            now_ts(),
            known.session.clone().unwrap_or_default(),
            known.event.clone().unwrap_or_default(),
        );
        rec.agent = known.agent.clone().map(|mut a| {
            scrub_str(&mut a, MAX_FIELD, "agent_id", &mut Vec::new());
            a
        });
        rec.error = Some(msg.clone());
        rec.ms = Some(ms_since(t0));
        rec.extra =
            json!({ "fail": if known.fail == FailMode::Closed { "closed" } else { "open" } });
        // A lapse says so: it counts apart from a fail-closed refusal (`store::failures`).
        if let HookError::Lapsed(ms) = err {
            rec.extra[failures::BUDGET_KEY] = json!(ms);
        }
        // What is left of the hook's wait: a hook that failed because the session log stayed
        // locked has used it up, and must answer now, not after another wait.
        // A lapse has no time left at all: the budget is spent.
        let left = || match err {
            HookError::Lapsed(_) => Duration::ZERO,
            _ => known
                .lock_wait
                .unwrap_or(log::LOCK_WAIT)
                .saturating_sub(t0.elapsed()),
        };
        let append = |path: std::path::PathBuf, wait: Duration| {
            log::append_once_within(&path, &rec, wait).is_ok()
        };
        let written = held.is_some_and(|f| append_held(&f, &rec))
            || known.session.as_ref().is_some_and(|s| {
                paths::ensure_dir_in(state, &paths::session_dir(state, s)).is_ok()
                    && append(paths::session_log(state, s), left())
            });
        if !written {
            append(paths::errors_log(state), left().max(ERRORS_LOG_GRACE));
        }
    }
    let answer = match (known.fail, &known.event) {
        (FailMode::Closed, Some(ev)) => output::fail_closed(ev, &msg),
        _ => Answer::none(),
    };
    Outcome {
        stdout: answer.stdout(),
        stderr: Some(msg),
        exit: 0,
    }
}

/// A line for stderr (which a terminal, and `seed doctor`, show): one line, every other
/// control and bidi character (from a project's file, a variable, a path) as an escape.
pub fn one_line(text: &str) -> String {
    crate::engine::sanitize::visible(&text.replace(['\n', '\r'], " ")).replace('\t', " ")
}

/// Append `rec` to a log whose lock this process holds; a failed write is cut back off.
fn append_held(file: &File, rec: &Record) -> bool {
    // Still ours (the work may have let it go an instant ago): taking it again is at once.
    if file.try_lock().is_err() {
        return false;
    }
    let (Ok(line), Ok(len)) = (log::encode(rec), file.metadata().map(|m| m.len())) else {
        return false;
    };
    let mut f = file;
    if log::append_line(&mut f, &line).is_ok() {
        return true;
    }
    let _ = file.set_len(len);
    false
}

thread_local! {
    /// This thread is inside [`catch_panic`]: its panics are reported by it, as one line.
    static CATCHING: Cell<bool> = const { Cell::new(false) };
    /// Where and why this thread's last caught panic happened.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The panic hook is process-wide: it is installed once and keeps the previous hook for
/// panics outside [`catch_panic`] (and for other threads), so concurrent callers never swap
/// each other's hooks or messages.
static PANIC_HOOK: Once = Once::new();

fn install_panic_hook() {
    PANIC_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !CATCHING.with(Cell::get) {
                return previous(info);
            }
            let why = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into());
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            LAST_PANIC.with(|last| *last.borrow_mut() = Some(format!("{why}{at}")));
        }));
    });
}

/// Run `work`; a panic becomes `HookError::Panic` with its message and place. Rust's default
/// report (several lines on stderr) is replaced: the failure is reported once, as one line.
pub fn catch_panic<T>(work: impl FnOnce() -> Result<T, HookError>) -> Result<T, HookError> {
    install_panic_hook();
    let outer = CATCHING.with(|c| c.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(work));
    CATCHING.with(|c| c.set(outer));
    result.unwrap_or_else(|_| {
        let why = LAST_PANIC
            .with(|l| l.borrow_mut().take())
            .unwrap_or_else(|| "panic".into());
        Err(HookError::Panic(why))
    })
}

/// Run the hook's work; a panic in it is one more internal error (one line, a failure record,
/// the configured answer) instead of Rust's report and exit 101, which would ignore
/// fail-closed. `known` keeps what the work learnt before it failed.
#[cfg(test)]
pub fn guarded(
    known: &mut Known,
    t0: Instant,
    work: impl FnOnce(&mut Known) -> Result<(Answer, Option<String>), HookError>,
) -> Outcome {
    guarded_within(known, t0, None, work)
}

/// [`guarded`] under a deadline: the failure record is a write, made only in time (past
/// the budget the deadline's own answer stands, see [`Deadline::begin_writing`]), and the
/// deadline is told when the work is done.
pub fn guarded_within(
    known: &mut Known,
    t0: Instant,
    deadline: Option<&Deadline>,
    work: impl FnOnce(&mut Known) -> Result<(Answer, Option<String>), HookError>,
) -> Outcome {
    let result = catch_panic(|| work(&mut *known));
    let out = match result {
        Ok((answer, warning)) => Outcome {
            stdout: answer.stdout(),
            stderr: warning.map(|w| one_line(&format!("seed: warning: {w}"))),
            exit: 0,
        },
        Err(e) => {
            if let Some(d) = deadline {
                d.begin_writing();
            }
            failure(known, &e, t0)
        }
    };
    if let Some(d) = deadline {
        d.finish();
    }
    out
}

/// What a PreToolUse hook knows under `fail`, for the tests of failures and lapses.
#[cfg(test)]
pub fn known(fail: FailMode) -> Known {
    Known {
        event: Some("PreToolUse".into()),
        fail,
        ..Known::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_fails_closed_with_one_line_naming_where() {
        let mut k = known(FailMode::Closed);
        let out = guarded(
            &mut k,
            Instant::now(),
            |_| -> Result<(Answer, Option<String>), HookError> { panic!("index out of bounds") },
        );
        assert_eq!(out.exit, 0);
        let err = out.stderr.expect("one line on stderr");
        assert!(
            err.starts_with("seed: internal error: index out of bounds at src/hook/failure.rs:"),
            "{err}"
        );
        assert!(!err.contains('\n'));
        let v: Value = serde_json::from_str(&out.stdout).expect("a JSON answer");
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    }

    #[test]
    fn a_panic_fails_open_by_default_and_keeps_what_was_learnt() {
        let mut k = known(FailMode::Open);
        let out = guarded(&mut k, Instant::now(), |k| {
            k.session = Some("s1".into());
            let v: Vec<u8> = Vec::new();
            let i = v.len() + 3;
            Ok((Answer::none(), Some(format!("{}", v[i]))))
        });
        assert_eq!(out.stdout, "", "fail-open gives no decision");
        assert!(
            out.stderr
                .is_some_and(|e| e.contains("index out of bounds"))
        );
        assert_eq!(k.session.as_deref(), Some("s1"));
    }

    /// A hook that failed because the session log stayed locked has used up its wait: the
    /// failure record goes to `errors.jsonl` at once, not after another wait for the log.
    #[test]
    fn the_failure_record_waits_only_what_is_left_of_the_hooks_wait() {
        let dir = tempfile::tempdir().unwrap();
        let state = paths::prepare_state(dir.path()).unwrap();
        paths::ensure_dir_in(&state, &paths::session_dir(&state, "s1")).unwrap();
        let log_path = paths::session_log(&state, "s1");
        let holder = paths::open_append(&log_path).unwrap();
        holder.lock().unwrap();
        let wait = Duration::from_millis(400);
        let k = Known {
            state: Some(state.clone()),
            session: Some("s1".into()),
            lock_wait: Some(wait),
            ..known(FailMode::Closed)
        };
        let spent = Instant::now().checked_sub(wait).unwrap();
        let t = Instant::now();
        let out = failure(&k, &HookError::Arguments("locked".into()), spent);
        let took = t.elapsed();
        assert!(took < Duration::from_millis(300), "{took:?}");
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        let errors = std::fs::read_to_string(paths::errors_log(&state)).unwrap();
        let rec: Value = serde_json::from_str(errors.trim()).unwrap();
        assert_eq!(
            (rec["session"].as_str(), rec["error"].as_str()),
            (Some("s1"), Some("seed: locked"))
        );
        // With time left, the record waits for the session log as long as that.
        drop(holder);
        let out = failure(&k, &HookError::Arguments("later".into()), Instant::now());
        assert!(out.stderr.is_some());
        let log = std::fs::read_to_string(&log_path).unwrap();
        assert!(log.contains("seed: later"), "{log}");
    }

    #[test]
    fn work_that_returns_is_answered_as_usual() {
        let mut k = known(FailMode::Closed);
        let out = guarded(&mut k, Instant::now(), |_| {
            Ok((Answer::none(), Some("a\nb".into())))
        });
        assert_eq!(out.stdout, "");
        assert_eq!(out.stderr.as_deref(), Some("seed: warning: a b"));
    }
}
