//! A state's activity as people read it: the call the sequence words for it (`State::call`)
//! or its pattern as calls, with `${var}` showing the values a session holds.

use super::interpolate;
use super::ir::{StateId, Trigger};
use super::machine::Machine;
use super::snapshot::Snapshot;
use super::wording::as_calls;

impl Machine {
    /// The call that performs state `id`, as the agent would make it; with a snapshot, each
    /// `${var}` that holds a value shows it (unset ones stay as written, naming what the call
    /// will need).
    pub fn activity_call(&self, id: StateId, snap: Option<&Snapshot>) -> Option<String> {
        let st = self.chart.state(id);
        let text = st
            .call
            .clone()
            .or_else(|| st.activity.as_ref().map(as_calls))?;
        Some(match snap {
            Some(s) if text.contains("${") => interpolate::shown(
                &text,
                &interpolate::Scope {
                    vars: &s.vars,
                    flags: &s.flags,
                },
            ),
            _ => text,
        })
    }

    /// The worded call of transition `ti`'s source state, when the transition waits for that
    /// state's activity (its trigger names the activity's tools): a step is suggested as the
    /// sequence words it, not as the globs that recognise it.
    pub(crate) fn worded_call(&self, ti: usize) -> Option<&str> {
        let t = &self.chart.transitions[ti];
        let Trigger::Event(p) = &t.trigger else {
            return None;
        };
        let st = self.chart.state(t.source);
        let (call, activity) = (st.call.as_deref()?, st.activity.as_ref()?);
        let names =
            |alts: &[super::pattern::Alt]| -> Vec<(Option<super::event::EventKind>, String)> {
                alts.iter().map(|a| (a.kind, a.glob.clone())).collect()
            };
        (names(&p.alts) == names(&activity.alts)).then_some(call)
    }
}
