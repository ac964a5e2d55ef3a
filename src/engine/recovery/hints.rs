//! What recovery says about refusals and endings: the way to a denied call or who refuses it,
//! who refuses a next step, the states' own recovery texts (with reader values filled in), and
//! the ending the sequence failed in.

use super::{NextStep, Recovery};
use crate::engine::event::{Event, EventKind};
use crate::engine::ir::{StateId, StateKind, Trigger};
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;
use crate::engine::{verdict, wording};

impl Machine {
    /// What to say about a denied call: the way to it, or, when no step leads to it, who
    /// refuses it here.
    pub(super) fn about_denied(
        &self,
        snap: &Snapshot,
        ev: &Event,
        rec: &Recovery,
    ) -> Option<String> {
        // Named with the input that tells it apart (`odyssean_anchor(stage="bind")`), as the
        // refusal named it: the tool alone would read as if no input made it legal.
        let tool = verdict::called_as_judged(self, ev);
        if let Some(path) = &rec.path_to_denied {
            let (last, before) = path
                .split_last()
                .map_or((None, &[][..]), |(l, b)| (Some(l), b));
            let first: Vec<String> = before.iter().map(|s| s.tool.clone()).collect();
            let first_text = wording::calls_in_order(&first, " → ");
            return match last {
                Some(last) if rec.denied_input_differs => {
                    let after = if first.is_empty() {
                        String::new()
                    } else {
                        format!(" after: {first_text}")
                    };
                    // A name that shows its input already says which input fits no step.
                    let this_input = if tool != verdict::called(ev) {
                        ""
                    } else {
                        " with this input"
                    };
                    Some(format!(
                        "{tool}{this_input} fits no step; {} becomes legal{after}.",
                        last.tool
                    ))
                }
                Some(_) if !first.is_empty() => {
                    Some(format!("{tool} becomes legal after: {first_text}."))
                }
                _ => None,
            };
        }
        // A state's policy refuses it here (a deep-state constraint over a step that allows
        // it): say who, not that no step leads to it.
        let neutral = self.is_neutral(ev);
        match verdict::first_objection(self, snap, ev, neutral) {
            Some((sid, rule)) => {
                let label = &self.chart.state(sid).label;
                let who = wording::state_in_tier(
                    &format!("\"{label}\""),
                    label,
                    &verdict::tier_of(self, sid),
                );
                Some(format!("{tool} is not allowed now: {who} {rule}."))
            }
            None => Some(format!(
                "{tool} is not reachable from the current step of \"{}\".",
                self.chart.name
            )),
        }
    }

    /// The ending the sequence failed in, with its recovery text: what a call there is told.
    pub(crate) fn ended_in(&self, snap: &Snapshot) -> Option<String> {
        let st = self.chart.state(snap.failed?);
        match &st.kind {
            StateKind::Final {
                recovery: Some(r), ..
            } => Some(format!("Ended in \"{}\": {r}", st.label)),
            _ => None,
        }
    }

    /// Who refuses step `n` now, as "\"state\" (tier) rule — description", when an active
    /// state's policy does. Only plain tool calls can be judged without their input.
    pub(super) fn refusing(&self, snap: &Snapshot, n: &NextStep) -> Option<(StateId, String)> {
        let t = &self.chart.transitions[n.transition];
        let Trigger::Event(p) = &t.trigger else {
            return None;
        };
        let alt = p.alts.first()?;
        if alt.kind.is_some_and(|k| k != EventKind::Tool) || p.is_glob() || n.tool.contains('(') {
            return None;
        }
        let ev = Event::tool(&n.tool, serde_json::Value::Null);
        let neutral = self.is_neutral(&ev);
        verdict::first_objection(self, snap, &ev, neutral).map(|(s, rule)| {
            let st = self.chart.state(s);
            let why = st
                .notes
                .first()
                .map(|d| format!(" — {d}"))
                .unwrap_or_default();
            let text = format!(
                "\"{}\" ({}) {rule}{why}",
                st.label,
                verdict::tier_of(self, s)
            );
            (s, text)
        })
    }

    /// Policy recovery texts: the policy that refuses `denied`; with no denied call, those of
    /// the active states' policies that refuse something now (their `when` holds), except a
    /// gate's: a gate speaks only once its call was denied, and then only its first link that
    /// refuses, so no text names an artifact as missing before the ones it waits for.
    pub(super) fn policy_hints(&self, snap: &Snapshot, denied: Option<&Event>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for &s in &snap.active {
            let texts: Vec<&String> = match denied {
                Some(ev) => {
                    let neutral = self.is_neutral(ev);
                    verdict::objection(self, snap, s, ev, neutral)
                        .and_then(|o| o.policy.recovery.as_ref())
                        .into_iter()
                        .collect()
                }
                None => verdict::policies_now(self, snap, s, None)
                    .filter(|p| p.gate.is_none())
                    .filter_map(|p| p.recovery.as_ref())
                    .collect(),
            };
            out.extend(texts.iter().map(|r| self.fill_facts(r, snap)));
            if denied.is_some() && !out.is_empty() {
                break;
            }
        }
        out
    }

    /// Replace `{reader}` in a recovery text with the reader's sampled value, as
    /// [`shown_fact`] shows it: these texts reach the model.
    pub fn fill_facts(&self, text: &str, snap: &Snapshot) -> String {
        let mut out = text.to_string();
        for r in &self.chart.readers {
            let key = format!("{{{}}}", r.name);
            if out.contains(&key) {
                out = out.replace(&key, &shown_fact(snap.facts.get(&r.name)));
            }
        }
        // The sequence's author wrote a tool it names on any server by its bare name.
        self.spell_any_server(&out, snap)
    }
}

/// Longest fact value a text the model reads quotes, in characters.
pub const SHOWN_FACT_CHARS: usize = 80;

/// A fact as a text for the model quotes it: a scalar, on one line, at most
/// [`SHOWN_FACT_CHARS`] characters. A whole document (`json:…#` with no pointer reads the
/// file) is named, not shown: it may hold what the model must not see (credentials), and a
/// reason is no place for it. The host redacts secrets before facts reach the engine.
pub fn shown_fact(v: Option<&serde_json::Value>) -> String {
    use serde_json::Value;
    let text = match v {
        None | Some(Value::Null) => return "?".into(),
        Some(Value::Object(_)) => return "an object (not shown)".into(),
        Some(Value::Array(_)) => return "a list (not shown)".into(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    // An escape sequence goes whole: replacing only its ESC would leave `[31m` in the text.
    crate::engine::sanitize::clean(&text, SHOWN_FACT_CHARS)
}
