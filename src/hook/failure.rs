//! seed's own failures: one line on stderr, a failure record (in the session log when the
//! session is known, else `errors.jsonl`), and the configured answer: fail-open (no decision)
//! or fail-closed (deny what can be denied). Whatever could be learnt before the error (the
//! event and session from a payload that was otherwise unusable) goes into both.

use std::path::PathBuf;
use std::time::Instant;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{HookError, Outcome, ms_since, now_ts};
use crate::engine::ir::FailMode;
use crate::protocol::{Answer, output, repair};
use crate::store::record::Record;
use crate::store::{log, paths};

/// Payloads up to this size are kept aside while parsing, to learn the event and session
/// from one the parser refuses (a missing `session_id`). Real payloads are a few KB; the
/// rare huge one (a tool response of tens of MB) always has a session.
pub const SALVAGE_MAX: usize = 16 * 1024 * 1024;

/// What is known when an error happens, for the failure record and answer.
#[derive(Default)]
pub struct Known {
    /// The prepared state directory (`None`: nowhere safe to write).
    pub state: Option<PathBuf>,
    pub session: Option<String>,
    pub agent: Option<String>,
    pub event: Option<String>,
    /// The payload's `cwd`, to find the project's configuration.
    pub cwd: Option<String>,
    pub fail: FailMode,
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

fn text(v: Option<&Value>) -> Option<String> {
    v?.as_str()
        .filter(|s| !s.trim().is_empty())
        .map(String::from)
}

impl Known {
    /// Learn the event, session, agent and cwd from raw payload bytes, when they are JSON.
    /// What is already known (the `EVENT` argument) stays.
    pub fn learn(&mut self, bytes: Vec<u8>) {
        let (text_in, _) = repair::decode(bytes);
        let Ok(p) = serde_json::from_str::<Peek>(text_in.trim_start_matches('\u{feff}')) else {
            return;
        };
        if self.event.is_none() {
            self.event = event_name(p.hook_event_name.as_ref());
        }
        self.session = self.session.take().or(text(p.session_id.as_ref()));
        self.agent = self.agent.take().or(text(p.agent_id.as_ref()));
        self.cwd = self.cwd.take().or(text(p.cwd.as_ref()));
    }
}

/// Record the failure where possible and give the configured answer.
pub fn failure(known: &Known, err: &HookError, t0: Instant) -> Outcome {
    let msg = format!("seed: {err}").replace(['\n', '\r'], " ");
    if let Some(state) = &known.state {
        let mut rec = Record::new(
            now_ts(),
            known.session.clone().unwrap_or_default(),
            known.event.clone().unwrap_or_default(),
        );
        rec.agent = known.agent.clone();
        rec.error = Some(msg.clone());
        rec.ms = Some(ms_since(t0));
        rec.extra =
            json!({ "fail": if known.fail == FailMode::Closed { "closed" } else { "open" } });
        let written = known.session.as_ref().is_some_and(|s| {
            paths::ensure_dir_in(state, &paths::session_dir(state, s)).is_ok()
                && log::append_once(&paths::session_log(state, s), &rec).is_ok()
        });
        if !written {
            let _ = log::append_once(&paths::errors_log(state), &rec);
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
