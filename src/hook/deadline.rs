//! The hook's budget. Claude Code lets a call through when a hook outlives its timeout,
//! whatever `fail` says; so a watchdog thread answers first: when the work is not done within
//! `hook_budget_ms`, it records a lapse, gives the answer `fail` asks for (closed: deny, open:
//! no decision) and ends the process. The work is cut only before it writes anything: once it
//! has begun its writes (a few bounded appends and renames) it finishes them and answers
//! itself, so nothing half-written is left behind and the log never holds both a verdict and
//! a lapse for one call.

use std::fs::File;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::failure::{Known, failure_into};
use super::{HookError, Outcome};

pub use crate::config::guarded::{
    DEFAULT_HOOK_BUDGET as DEFAULT_BUDGET, MAX_HOOK_BUDGET as MAX_BUDGET,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Working,
    /// The work has begun to write: it is never cut from here on.
    Writing,
    Done,
    /// The watchdog answered; the work must write nothing.
    Lapsed,
}

struct State {
    phase: Phase,
    budget: Duration,
    /// What the work has learnt so far, for the lapse's record and answer.
    known: Known,
    /// The session log while the work holds its lock: the lapse is appended through it
    /// (another handle would wait for the lock the work holds).
    held_log: Option<File>,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    t0: Instant,
}

/// The budget of one hook run, shared by the work and its watchdog.
#[derive(Clone)]
pub struct Deadline {
    shared: Arc<Shared>,
}

impl Deadline {
    /// Start the watchdog: `budget` from `t0`; on a lapse it calls `answer` with the outcome
    /// (the process prints it and exits).
    pub fn start(
        t0: Instant,
        budget: Duration,
        answer: impl FnOnce(Outcome) + Send + 'static,
    ) -> Deadline {
        let d = Deadline {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    phase: Phase::Working,
                    budget,
                    known: Known::default(),
                    held_log: None,
                }),
                changed: Condvar::new(),
                t0,
            }),
        };
        let watch = d.clone();
        std::thread::spawn(move || {
            if let Some(out) = watch.watch() {
                answer(out);
            }
        });
        d
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding this lock is impossible (no code that can panic runs under
        // it); a poisoned lock is used as it is.
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Set the budget (once the configuration is read); at most [`MAX_BUDGET`].
    pub fn set_budget(&self, budget: Duration) {
        self.lock().budget = budget.min(MAX_BUDGET);
        self.shared.changed.notify_all();
    }

    /// Tell the watchdog what the work knows now (session, event, fail mode…).
    pub fn learn(&self, known: &Known) {
        self.lock().known = known.clone();
    }

    /// The work holds the session log's lock through `file` (`None`: no more).
    pub fn hold_log(&self, file: Option<File>) {
        self.lock().held_log = file;
    }

    /// The work is about to write. Past the budget, it must not: the watchdog has answered
    /// (or is answering) and ends the process, so this never returns then.
    pub fn begin_writing(&self) {
        let mut s = self.lock();
        // The lock is the work's again alone: a shared handle kept here would hold it past
        // the work's own (a failure record appended next would wait for it).
        s.held_log = None;
        if s.phase == Phase::Working {
            s.phase = Phase::Writing;
            return;
        }
        if s.phase == Phase::Lapsed {
            drop(s);
            // The watchdog ends the process once its answer is out.
            loop {
                std::thread::park();
            }
        }
    }

    /// The work is done and answers itself.
    pub fn finish(&self) {
        self.begin_writing();
        self.lock().phase = Phase::Done;
        self.shared.changed.notify_all();
    }

    /// Wait for the work or the budget; the lapse's outcome when the budget ran out first.
    fn watch(&self) -> Option<Outcome> {
        let mut s = self.lock();
        loop {
            match s.phase {
                Phase::Done => return None,
                Phase::Writing => {
                    s = wait(&self.shared.changed, s, None);
                }
                Phase::Working => {
                    let spent = self.shared.t0.elapsed();
                    if spent >= s.budget {
                        break;
                    }
                    let left = s.budget - spent;
                    s = wait(&self.shared.changed, s, Some(left));
                }
                Phase::Lapsed => return None,
            }
        }
        s.phase = Phase::Lapsed;
        let known = s.known.clone();
        let held = s.held_log.take();
        let budget = s.budget;
        drop(s);
        let err = HookError::Lapsed(budget.as_millis() as u64);
        Some(failure_into(&known, &err, self.shared.t0, held))
    }
}

fn wait<'a>(
    cv: &Condvar,
    s: MutexGuard<'a, State>,
    timeout: Option<Duration>,
) -> MutexGuard<'a, State> {
    match timeout {
        Some(t) => match cv.wait_timeout(s, t) {
            Ok((g, _)) => g,
            Err(e) => e.into_inner().0,
        },
        None => cv.wait(s).unwrap_or_else(|e| e.into_inner()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::failure::known;
    use super::*;
    use crate::engine::ir::FailMode;
    use std::sync::mpsc;

    #[test]
    fn work_done_in_time_answers_itself() {
        let (tx, rx) = mpsc::channel();
        let d = Deadline::start(Instant::now(), Duration::from_millis(200), move |o| {
            let _ = tx.send(o);
        });
        d.learn(&known(FailMode::Closed));
        d.finish();
        assert!(rx.recv_timeout(Duration::from_millis(600)).is_err());
    }

    #[test]
    fn a_lapse_answers_by_the_fail_mode_it_knows() {
        for (fail, denied) in [(FailMode::Closed, true), (FailMode::Open, false)] {
            let (tx, rx) = mpsc::channel();
            let d = Deadline::start(Instant::now(), Duration::from_secs(60), move |o| {
                let _ = tx.send(o);
            });
            d.learn(&known(fail));
            d.set_budget(Duration::from_millis(30));
            let out = rx.recv_timeout(Duration::from_secs(5)).expect("a lapse");
            assert_eq!(out.stdout.contains("\"deny\""), denied, "{}", out.stdout);
            let err = out.stderr.unwrap_or_default();
            assert!(err.starts_with("seed: ran out of time"), "{err}");
        }
    }

    #[test]
    fn work_that_has_begun_writing_is_never_cut() {
        let (tx, rx) = mpsc::channel();
        let d = Deadline::start(Instant::now(), Duration::from_millis(20), move |o| {
            let _ = tx.send(o);
        });
        d.begin_writing();
        std::thread::sleep(Duration::from_millis(100));
        d.finish();
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
    }
}
