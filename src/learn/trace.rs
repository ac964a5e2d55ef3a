//! A session's calls as the engine meets them. A sequence steps on PreToolUse (may this call
//! run, from where the session is?) and moves on PostToolUse (it ran): so the step a call is
//! judged from is the last call that *completed* before it started, which is not the call
//! before it when calls run side by side, and a call that failed moves nothing. A refused call
//! never ran and is no part of the workflow.

use std::collections::HashMap;

use super::activity::{self, Activity};
use crate::engine::{Decision, Event, EventKind, Phase};
use crate::session::source;
use crate::store::record::Record;

/// What happened to a call: it started, it completed, it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Start { act: u32, call: u32 },
    Done { act: u32, call: u32 },
    Failed { call: u32 },
}

/// Activities by number, shared by every session.
#[derive(Debug, Default)]
pub struct Interner {
    pub activities: Vec<Activity>,
    index: HashMap<Activity, u32>,
}

impl Interner {
    pub fn id(&mut self, a: Activity) -> u32 {
        if let Some(&i) = self.index.get(&a) {
            return i;
        }
        let i = u32::try_from(self.activities.len()).unwrap_or(u32::MAX);
        self.activities.push(a.clone());
        self.index.insert(a, i);
        i
    }
}

/// One session: its steps, and the calls whose name no pattern can spell (left out, and
/// refused by the draft).
#[derive(Debug, Default)]
pub struct Session {
    pub steps: Vec<Step>,
    pub unspellable: u64,
}

pub fn of(records: &[Record], names: &mut Interner) -> Session {
    let mut s = Session::default();
    // Calls by `tool_use_id` (else by activity: a hand-written log has no ids).
    let mut open: HashMap<String, u32> = HashMap::new();
    let mut next_call = 0u32;
    for r in records {
        let Some((phase, ev, _)) = r.step() else {
            continue;
        };
        let key = |a: &Activity| r.tool_use_id.clone().unwrap_or_else(|| a.label.clone());
        match phase {
            Phase::Gate if source::is_gated_call(r) => {
                let refused = r
                    .verdict
                    .as_ref()
                    .is_some_and(|v| matches!(v.decision, Decision::Deny | Decision::Block));
                match activity::of(ev) {
                    _ if refused => {}
                    Some(a) => {
                        let call = next_call;
                        next_call += 1;
                        open.insert(key(&a), call);
                        s.steps.push(Step::Start {
                            act: names.id(a),
                            call,
                        });
                    }
                    None if activity::unspellable(ev) => s.unspellable += 1,
                    None => {}
                }
            }
            Phase::Advance if matches!(ev.kind, EventKind::Tool | EventKind::Skill) => {
                let Some(a) = activity::of(ev) else { continue };
                let opened = open.remove(&key(&a));
                let act = names.id(a);
                let call = opened.unwrap_or_else(|| {
                    // A completion with no start recorded: it started where it completed.
                    next_call += 1;
                    s.steps.push(Step::Start {
                        act,
                        call: next_call - 1,
                    });
                    next_call - 1
                });
                s.steps.push(Step::Done { act, call });
            }
            Phase::Advance if ev.kind == EventKind::ErrorTool => {
                let failed = Event::tool(&ev.name, ev.input.clone());
                if let Some(call) = activity::of(&failed).and_then(|a| open.remove(&key(&a))) {
                    s.steps.push(Step::Failed { call });
                }
            }
            _ => {}
        }
    }
    s
}
