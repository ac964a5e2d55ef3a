//! SCXML-style run-to-completion semantics: transition selection (deeper source wins, then
//! document order), conflict removal, exit/entry sets, `done.state` events, and the eventless
//! closure with a microstep cap reported as livelock.
//!
//! This file runs a step (start, gate, advance, stop, settle); `select` picks the transitions,
//! `microstep` takes them.

mod instance;
mod microstep;
mod select;

use std::collections::{BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::event::{Event, EventKind};
use super::ir::{StateId, StateKind};
use super::machine::Machine;
use super::snapshot::{Facts, SNAPSHOT_VERSION, Snapshot};
use super::verdict::{self, Verdict};

/// Microsteps allowed in one macrostep before the engine reports a livelock.
pub const MICROSTEP_CAP: usize = 64;

/// What the host is asking for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// PreToolUse: may this call run? Does not move the sequence.
    Gate,
    /// The event happened (PostToolUse, a prompt, a lifecycle event): move the sequence.
    Advance,
    /// Stop / SubagentStop: may the agent stop now?
    Stop,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Microstep {
    /// `kind:name` of the event that enabled it (empty for eventless transitions).
    pub event: String,
    pub transitions: Vec<usize>,
    pub exited: Vec<String>,
    pub entered: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    pub phase: Phase,
    pub event: String,
    pub verdict: Option<Verdict>,
    pub microsteps: Vec<Microstep>,
    pub notes: Vec<String>,
    /// The configuration changed.
    pub changed: bool,
    /// The microstep cap was hit.
    pub livelock: bool,
    /// A choice state with no enabled branch (its key).
    pub stuck_choice: Option<String>,
}

impl StepReport {
    fn new(phase: Phase, event: &Event) -> StepReport {
        StepReport {
            phase,
            event: event.key(),
            verdict: None,
            microsteps: Vec::new(),
            notes: Vec::new(),
            changed: false,
            livelock: false,
            stuck_choice: None,
        }
    }
}

impl Machine {
    /// The initial snapshot: enter the default configuration and settle eventless transitions.
    pub fn start(&self, facts: &Facts) -> Snapshot {
        let chart = &self.chart;
        let mut snap = Snapshot {
            version: SNAPSHOT_VERSION,
            chart: self.fingerprint.clone(),
            active: Vec::new(),
            visited: BTreeSet::new(),
            flags: Default::default(),
            vars: Default::default(),
            facts: facts.clone(),
            highest: 0.0,
            steps: 0,
            denials: Default::default(),
            stop_blocks: 0,
            checkpoints: Default::default(),
            halted: false,
            failed: None,
            recent_denials: Vec::new(),
            last_event: None,
            plugins: Default::default(),
            servers: Default::default(),
            denied: None,
            failed_call: None,
            livelock: false,
        };
        for (k, v) in &chart.vars {
            match (k.strip_prefix("flags."), v) {
                (Some(flag), Value::Bool(b)) => {
                    snap.flags.insert(flag.to_string(), *b);
                }
                _ => {
                    snap.vars.insert(k.clone(), v.clone());
                }
            }
        }
        let entry = self.entry_set(&[StateId::ROOT], None);
        let mut report = StepReport::new(Phase::Advance, &Event::lifecycle("start"));
        let mut internal = VecDeque::new();
        self.enter(&mut snap, &entry, &Value::Null, &mut internal, &mut report);
        self.settle(&mut snap, &Event::lifecycle("start"), internal, &mut report);
        snap.livelock = report.livelock;
        snap.highest = self.overall(&snap);
        snap
    }

    /// One step: gate a call, advance on an event, or decide a stop.
    pub fn step(
        &self,
        snap: &mut Snapshot,
        phase: Phase,
        event: &Event,
        facts: &Facts,
    ) -> StepReport {
        self.step_telling(snap, phase, event, facts, true)
    }

    /// A step of a recorded event, for folding a log (replay, status, the hook catching up
    /// with records its snapshot lacks): the same state change as [`Machine::step`], but a
    /// refused call's verdict leaves out the advice (the way to the next call, a search of
    /// the graph per denial) — the record holds the reason that was given.
    pub fn replay_step(
        &self,
        snap: &mut Snapshot,
        phase: Phase,
        event: &Event,
        facts: &Facts,
    ) -> StepReport {
        self.step_telling(snap, phase, event, facts, false)
    }

    fn step_telling(
        &self,
        snap: &mut Snapshot,
        phase: Phase,
        event: &Event,
        facts: &Facts,
        advise: bool,
    ) -> StepReport {
        let mut report = StepReport::new(phase, event);
        snap.steps += 1;
        event.note_spelling(&mut snap.plugins);
        self.note_server(snap, event);
        // A prompt of the user's starts a turn: the stops held in the last one count no more
        // (a system notification is no prompt, see `Event::prompt`).
        if matches!(event.kind, EventKind::Prompt | EventKind::Command) {
            snap.stop_blocks = 0;
        }
        // New facts may move reader-driven regions before anything else is decided.
        self.take_facts(snap, event, facts, &mut report);
        match phase {
            Phase::Gate => {
                let v = verdict::gate_with(self, snap, event, advise);
                if v.decision != verdict::Decision::Allow {
                    snap.denied = Some(denied_call(event));
                }
                report.verdict = Some(v);
            }
            Phase::Stop => {
                let v = verdict::stop(self, snap);
                report.verdict = Some(v);
                if !report.verdict.as_ref().is_some_and(|v| v.blocks()) {
                    self.advance(snap, event, &mut report);
                }
            }
            Phase::Advance => {
                // A failed call the sequence was waiting for, that moved nothing (no
                // `error.tool` edge took it): kept for recovery to show with its error.
                let expected = event.kind == EventKind::ErrorTool
                    && !self.select(snap, Some(&event.as_call())).is_empty();
                let moved = report.microsteps.len();
                self.advance(snap, event, &mut report);
                if expected && report.microsteps.len() == moved {
                    let mut kept = denied_call(event);
                    kept.response = event.response.clone();
                    snap.failed_call = Some(kept);
                }
            }
        }
        snap.last_event = Some(event.key());
        snap.livelock = report.livelock;
        let overall = self.overall(snap);
        if overall > snap.highest {
            snap.highest = overall;
        }
        report
    }

    /// Facts sampled between events (a watched file changed): the eventless transitions
    /// they enable are taken, exactly as the next step takes them before deciding anything.
    /// Nothing else moves and no step is counted; a host shows what the hook would decide
    /// now, and the next hook records the same move.
    pub fn refresh(&self, snap: &mut Snapshot, facts: &Facts) -> StepReport {
        let event = Event::lifecycle("facts");
        let mut report = StepReport::new(Phase::Advance, &event);
        self.take_facts(snap, &event, facts, &mut report);
        snap.livelock = report.livelock;
        let overall = self.overall(snap);
        if overall > snap.highest {
            snap.highest = overall;
        }
        report
    }

    /// Keep `facts` and settle what they enable: the first move of every step, and all of
    /// [`Machine::refresh`].
    fn take_facts(
        &self,
        snap: &mut Snapshot,
        cause: &Event,
        facts: &Facts,
        report: &mut StepReport,
    ) {
        if &snap.facts != facts {
            snap.facts = facts.clone();
        }
        self.settle(snap, cause, VecDeque::new(), report);
    }

    fn advance(&self, snap: &mut Snapshot, event: &Event, report: &mut StepReport) {
        let selected = self.select_after(snap, event);
        if selected.is_empty() {
            return;
        }
        let mut internal = VecDeque::new();
        self.microstep(snap, &selected, event, &mut internal, report);
        self.settle(snap, event, internal, report);
    }

    /// Run eventless transitions and internal events until the configuration is stable. A
    /// choice left with no branch that holds raises `error.choice` (SCXML's error.execution):
    /// a transition on it (`error.choice:<choice>`, on the choice's parent or further up)
    /// takes the session on; without one, the choice stays where it is, failed.
    fn settle(
        &self,
        snap: &mut Snapshot,
        cause: &Event,
        mut internal: VecDeque<Event>,
        report: &mut StepReport,
    ) {
        let mut raised: Vec<StateId> = Vec::new();
        loop {
            if report.microsteps.len() >= MICROSTEP_CAP {
                if !report.livelock {
                    report.livelock = true;
                    report.notes.push(format!(
                        "livelock: more than {MICROSTEP_CAP} microsteps without a stable configuration"
                    ));
                }
                return;
            }
            let eventless = self.select_with(snap, None, &cause.input, Some(&cause.response));
            if !eventless.is_empty() {
                self.microstep(snap, &eventless, cause, &mut internal, report);
                continue;
            }
            let Some(ev) = internal.pop_front() else {
                // Stable: each stuck choice raises its error once.
                let stuck: Vec<StateId> = snap
                    .active
                    .iter()
                    .copied()
                    .filter(|s| {
                        matches!(self.chart.state(*s).kind, StateKind::Choice)
                            && !raised.contains(s)
                    })
                    .collect();
                if stuck.is_empty() {
                    break;
                }
                for s in stuck {
                    raised.push(s);
                    let key = self.chart.state(s).key.clone();
                    internal.push_back(Event::new(EventKind::ErrorChoice, key));
                }
                continue;
            };
            let selected = self.select_after(snap, &ev);
            if !selected.is_empty() {
                self.microstep(snap, &selected, &ev, &mut internal, report);
            }
        }
        // A choice that is still active has no enabled branch.
        for &id in &snap.active {
            let s = self.chart.state(id);
            if matches!(s.kind, StateKind::Choice) {
                report.stuck_choice = Some(s.key.clone());
                snap.failed = Some(id);
            }
        }
    }

    /// Remember the server a call reached a tool through, when the sequence names that tool
    /// on any server: suggestions then spell it as the session calls it.
    fn note_server(&self, snap: &mut Snapshot, event: &Event) {
        if !matches!(event.kind, EventKind::Tool | EventKind::ErrorTool) {
            return;
        }
        let Some((server, tool)) = event.name.split_once('.') else {
            return;
        };
        if snap.servers.get(tool).map(String::as_str) == Some(server) {
            return;
        }
        if self.names_on_any_server(tool) {
            snap.servers.insert(tool.to_string(), server.to_string());
        }
    }

    /// Fold a list of (phase, event, facts) from the start.
    pub fn fold<'a, I>(&self, items: I) -> Snapshot
    where
        I: IntoIterator<Item = (Phase, &'a Event, &'a Facts)>,
    {
        let mut iter = items.into_iter().peekable();
        let first_facts = iter
            .peek()
            .map(|(_, _, f)| (*f).clone())
            .unwrap_or_default();
        let mut snap = self.start(&first_facts);
        for (phase, ev, facts) in iter {
            self.replay_step(&mut snap, phase, ev, facts);
        }
        snap
    }
}

/// Largest tool input (serialized) kept whole with a denied call in the snapshot.
const DENIED_INPUT_BYTES: usize = 1024;
/// Of a larger input, the scalar fields kept (a stage, a mode), at most this many, each string
/// cut to this many characters.
const DENIED_FIELDS: usize = 16;
const DENIED_FIELD_CHARS: usize = 128;

/// A denied (or failed) call as the snapshot keeps it: of a large input (a file being written) only its
/// first scalar fields, long strings cut, so the call is still named by the input that tells
/// it apart (`odyssean_anchor(stage="bind")` with a long payload) and a field a step only needs
/// present still is.
fn denied_call(event: &Event) -> Event {
    let small = event.input.is_null() || event.input.to_string().len() <= DENIED_INPUT_BYTES;
    let kept = |v: &Value| match v {
        Value::String(s) if s.chars().count() > DENIED_FIELD_CHARS => {
            Some(Value::String(s.chars().take(DENIED_FIELD_CHARS).collect()))
        }
        Value::String(_) | Value::Number(_) | Value::Bool(_) => Some(v.clone()),
        _ => None,
    };
    let input = match &event.input {
        _ if small => event.input.clone(),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .filter(|(k, _)| k.chars().count() <= DENIED_FIELD_CHARS)
                .filter_map(|(k, v)| Some((k.clone(), kept(v)?)))
                .take(DENIED_FIELDS)
                .collect(),
        ),
        _ => Value::Null,
    };
    Event {
        kind: event.kind,
        name: event.name.clone(),
        input,
        // Named as it was made when recovery shows the way to it.
        plugin: event.plugin.clone(),
        // A gate has no response yet.
        response: Value::Null,
    }
}
