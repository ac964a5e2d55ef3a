//! SCXML-style run-to-completion semantics: transition selection (deeper source wins, then
//! document order), conflict removal, exit/entry sets, `done.state` events, and the eventless
//! closure with a microstep cap reported as livelock.

use std::collections::{BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::event::{Event, EventKind};
use super::guard;
use super::ir::{Outcome, StateId, StateKind, Trigger};
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
            denied: None,
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
        let mut report = StepReport::new(phase, event);
        snap.steps += 1;
        event.note_spelling(&mut snap.plugins);
        if &snap.facts != facts {
            snap.facts = facts.clone();
        }
        // New facts may move reader-driven regions before anything else is decided.
        self.settle(snap, event, VecDeque::new(), &mut report);
        match phase {
            Phase::Gate => {
                let v = verdict::gate(self, snap, event);
                if v.decision != verdict::Decision::Allow {
                    snap.denied = Some(denied_call(event));
                }
                report.verdict = Some(v);
            }
            Phase::Stop => {
                let v = verdict::stop(self, snap, event);
                report.verdict = Some(v);
                if !report.verdict.as_ref().is_some_and(|v| v.blocks()) {
                    self.advance(snap, event, &mut report);
                }
            }
            Phase::Advance => self.advance(snap, event, &mut report),
        }
        snap.last_event = Some(event.key());
        snap.livelock = report.livelock;
        let overall = self.overall(snap);
        if overall > snap.highest {
            snap.highest = overall;
        }
        report
    }

    fn advance(&self, snap: &mut Snapshot, event: &Event, report: &mut StepReport) {
        let selected = self.select(snap, Some(event));
        if selected.is_empty() {
            return;
        }
        let mut internal = VecDeque::new();
        self.microstep(snap, &selected, event, &mut internal, report);
        self.settle(snap, event, internal, report);
    }

    /// Run eventless transitions and internal events until the configuration is stable.
    fn settle(
        &self,
        snap: &mut Snapshot,
        cause: &Event,
        mut internal: VecDeque<Event>,
        report: &mut StepReport,
    ) {
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
            let eventless = self.select_with(snap, None, &cause.input);
            if !eventless.is_empty() {
                self.microstep(snap, &eventless, cause, &mut internal, report);
                continue;
            }
            let Some(ev) = internal.pop_front() else {
                break;
            };
            let selected = self.select(snap, Some(&ev));
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

    /// The optimal enabled transition set for `event` (`None`: eventless transitions); input
    /// guards read the event's input.
    pub(crate) fn select(&self, snap: &Snapshot, event: Option<&Event>) -> Vec<usize> {
        let input = event.map(|e| &e.input).unwrap_or(&Value::Null);
        self.select_with(snap, event, input)
    }

    /// `select`, with the input guards read: for eventless transitions, the input of the
    /// event that caused the macrostep (SCXML's `_event` stays the last external event).
    fn select_with(&self, snap: &Snapshot, event: Option<&Event>, input: &Value) -> Vec<usize> {
        let mut chosen: Vec<usize> = Vec::new();
        for &atomic in &self.atomic_active(snap) {
            let chain = std::iter::once(atomic).chain(self.chart.ancestors(atomic));
            'chain: for sid in chain {
                for &ti in &self.candidates[sid.index()] {
                    let t = &self.chart.transitions[ti];
                    let trigger_ok = match (&t.trigger, event) {
                        (Trigger::Always, None) => true,
                        (Trigger::Event(p), Some(e)) => {
                            p.matches_with(e, &self.chart.aliases, DEFAULT_KINDS)
                        }
                        (Trigger::Error(p), Some(e)) => p.matches_error(e, &self.chart.aliases),
                        (Trigger::Done(target), Some(e)) => {
                            e.kind == EventKind::Done && e.name == self.chart.state(*target).key
                        }
                        _ => false,
                    };
                    if trigger_ok && t.guard.as_ref().is_none_or(|g| guard::eval(g, snap, input)) {
                        if !chosen.contains(&ti) {
                            chosen.push(ti);
                        }
                        break 'chain;
                    }
                }
            }
        }
        self.remove_conflicts(snap, chosen)
    }

    fn remove_conflicts(&self, snap: &Snapshot, chosen: Vec<usize>) -> Vec<usize> {
        let mut kept: Vec<(usize, BTreeSet<StateId>)> = Vec::new();
        'outer: for ti in chosen {
            let exit = self.exit_set(snap, ti);
            let src = self.chart.transitions[ti].source;
            let mut preempted = Vec::new();
            for (k, (kj, kexit)) in kept.iter().enumerate() {
                if exit.intersection(kexit).next().is_none() {
                    continue;
                }
                let ksrc = self.chart.transitions[*kj].source;
                if src != ksrc && self.chart.is_descendant_or_self(src, ksrc) {
                    preempted.push(k);
                } else {
                    continue 'outer;
                }
            }
            for k in preempted.into_iter().rev() {
                kept.remove(k);
            }
            kept.push((ti, exit));
        }
        kept.into_iter().map(|(t, _)| t).collect()
    }

    /// Active atomic-like states in document order.
    pub(crate) fn atomic_active(&self, snap: &Snapshot) -> Vec<StateId> {
        snap.active
            .iter()
            .copied()
            .filter(|id| self.chart.state(*id).is_atomic_like())
            .collect()
    }

    fn microstep(
        &self,
        snap: &mut Snapshot,
        transitions: &[usize],
        event: &Event,
        internal: &mut VecDeque<Event>,
        report: &mut StepReport,
    ) {
        let chart = &self.chart;
        let mut exit: BTreeSet<StateId> = BTreeSet::new();
        let mut entry: BTreeSet<StateId> = BTreeSet::new();
        for &ti in transitions {
            exit.extend(self.exit_set(snap, ti));
        }
        // Exit in reverse document order (descendants first).
        let exited: Vec<StateId> = exit.iter().rev().copied().collect();
        snap.active.retain(|s| !exit.contains(s));
        for &ti in transitions {
            let t = &chart.transitions[ti];
            let notes = guard::apply(&t.actions, snap, &event.input, &event.response);
            report.notes.extend(notes);
            if !t.targets.is_empty() {
                entry.extend(self.entry_set(&t.targets, self.domain(ti)));
            }
        }
        let entry: BTreeSet<StateId> = entry.into_iter().filter(|s| !snap.is_active(*s)).collect();
        let input = event.input.clone();
        self.enter(snap, &entry, &input, internal, report);
        if !exited.is_empty() || !entry.is_empty() {
            report.changed = true;
            // A state change resets the deadlock breaker: the agent made progress.
            super::breaker::on_progress(snap);
            snap.stop_blocks = 0;
            // Recovery now starts from the new configuration, not from an old denial.
            snap.denied = None;
        }
        report.microsteps.push(Microstep {
            event: if transitions
                .iter()
                .any(|&t| chart.transitions[t].trigger == Trigger::Always)
            {
                String::new()
            } else {
                event.key()
            },
            transitions: transitions.to_vec(),
            exited: exited.iter().map(|s| chart.state(*s).key.clone()).collect(),
            entered: entry.iter().map(|s| chart.state(*s).key.clone()).collect(),
        });
    }

    fn enter(
        &self,
        snap: &mut Snapshot,
        entry: &BTreeSet<StateId>,
        input: &Value,
        internal: &mut VecDeque<Event>,
        report: &mut StepReport,
    ) {
        let chart = &self.chart;
        for &s in entry {
            let pos = snap.active.binary_search(&s).unwrap_or_else(|p| p);
            if snap.active.get(pos) != Some(&s) {
                snap.active.insert(pos, s);
            }
            snap.visited.insert(s);
            let st = chart.state(s);
            report
                .notes
                .extend(guard::apply(&st.on_entry, snap, input, &Value::Null));
            if let StateKind::Final { outcome, .. } = &st.kind {
                if *outcome == Outcome::Error {
                    snap.failed = Some(s);
                }
                match st.parent {
                    Some(StateId::ROOT) | None => snap.halted = true,
                    Some(p) => {
                        internal.push_back(Event::new(EventKind::Done, chart.state(p).key.clone()));
                        if let Some(gp) = chart.state(p).parent
                            && matches!(chart.state(gp).kind, StateKind::Parallel)
                            && self.all_regions_final(snap, gp)
                        {
                            if gp == StateId::ROOT {
                                snap.halted = true;
                            } else {
                                internal.push_back(Event::new(
                                    EventKind::Done,
                                    chart.state(gp).key.clone(),
                                ));
                            }
                        }
                    }
                }
            }
        }
    }

    fn all_regions_final(&self, snap: &Snapshot, parallel: StateId) -> bool {
        self.chart.state(parallel).children.iter().all(|&region| {
            self.chart
                .state(region)
                .children
                .iter()
                .any(|&c| self.chart.state(c).is_final() && snap.is_active(c))
        })
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
            self.step(&mut snap, phase, ev, facts);
        }
        snap
    }
}

/// Largest tool input (serialized) kept with a denied call in the snapshot.
const DENIED_INPUT_BYTES: usize = 1024;

/// A denied call as the snapshot keeps it: a large input (a file being written) is dropped.
fn denied_call(event: &Event) -> Event {
    let small = event.input.is_null() || event.input.to_string().len() <= DENIED_INPUT_BYTES;
    Event {
        kind: event.kind,
        name: event.name.clone(),
        input: if small {
            event.input.clone()
        } else {
            Value::Null
        },
        // Named as it was made when recovery shows the way to it.
        plugin: event.plugin.clone(),
        // A gate has no response yet.
        response: Value::Null,
    }
}

/// Kinds matched by a trigger written without a kind.
const DEFAULT_KINDS: &[EventKind] = &[EventKind::Tool, EventKind::Skill, EventKind::Command];
