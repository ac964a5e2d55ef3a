//! The content tools' own call, still in flight while they answer.
//!
//! Claude Code runs a tool between its PreToolUse and PostToolUse hooks, and a sequence
//! advances on PostToolUse: while `what_do_i_do` runs, the session's log holds its gate and not
//! yet its advance, so the plain status would tell the agent to call `what_do_i_do`. The content
//! tools answer as the agent will read them, after the call: when the session has a gate of
//! this very tool that no later record completes, the advance is projected on a copy of the
//! snapshot. `status`, `recovery`, `sequences` and `validate` do not project: they show exactly
//! what the CLI shows.

use std::collections::HashSet;
use std::path::Path;

use crate::engine::{EventKind, Machine, Pattern, Phase, Snapshot};
use crate::session::records::{TAIL_BYTES, tail_records};
use crate::store::record::Record;

/// Records looked back through for the call: enough for a batch of parallel calls.
const WINDOW: usize = 64;

/// `snap` as it will be once this server's tool `tool` (`what_do_i_do`, …) has completed, when
/// the session's log shows that call in flight; else `snap` unchanged.
pub fn after_own_call(m: &Machine, snap: &Snapshot, log: Option<&Path>, tool: &str) -> Snapshot {
    let mut projected = snap.clone();
    let Some(log) = log else {
        return projected;
    };
    let records = tail_records(log, TAIL_BYTES);
    if let Some(gate) = pending_gate(m, &records, tool)
        && let Some((_, event, facts)) = gate.step()
    {
        m.step(&mut projected, Phase::Advance, event, facts);
    }
    projected
}

/// The newest gate of `seed.<tool>` (any spelling, or an alias of the `seed` server) that no
/// later record completes, and that was not denied (a denied call never runs). A prompt, a
/// lifecycle event or a stop ends the search: nothing before it is still in flight.
fn pending_gate<'a>(m: &Machine, records: &'a [Record], tool: &str) -> Option<&'a Record> {
    let own = Pattern::exact_tool(&format!("seed.{tool}"));
    let mut done_ids: HashSet<&str> = HashSet::new();
    let mut done_keys: HashSet<String> = HashSet::new();
    for r in records.iter().rev().take(WINDOW) {
        let (Some(phase), Some(ev)) = (r.phase, r.event.as_ref()) else {
            continue;
        };
        match phase {
            Phase::Gate => {
                let completed = match &r.tool_use_id {
                    Some(id) => done_ids.contains(id.as_str()),
                    None => done_keys.contains(&ev.key()),
                };
                if !completed && own.names_tool(ev, &m.chart.aliases) {
                    return r.verdict.as_ref().is_none_or(|v| !v.blocks()).then_some(r);
                }
            }
            // A completion: by the call's id, else by its name (a failed call is
            // `error.tool:<name>`, its gate `tool:<name>`).
            Phase::Advance if r.tool_use_id.is_some() => {
                done_ids.extend(r.tool_use_id.as_deref());
            }
            Phase::Advance if matches!(ev.kind, EventKind::Tool | EventKind::Skill) => {
                done_keys.insert(ev.key());
            }
            Phase::Advance if ev.kind == EventKind::ErrorTool => {
                done_keys.insert(format!("tool:{}", ev.name));
            }
            Phase::Advance | Phase::Stop => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Event;
    use serde_json::Value;

    fn machine() -> Machine {
        let l = crate::dialects::builtin("compound_intelligence")
            .unwrap()
            .unwrap();
        Machine::new(l.chart)
    }

    fn record(phase: Phase, tool: &str, id: Option<&str>) -> Record {
        let mut r = Record::new("", "s", "");
        r.phase = Some(phase);
        r.event = Some(Event::tool(tool, Value::Null));
        r.tool_use_id = id.map(str::to_string);
        r
    }

    fn found(records: &[Record]) -> Option<usize> {
        let m = machine();
        pending_gate(&m, records, "what_do_i_do")
            .and_then(|g| records.iter().position(|r| std::ptr::eq(r, g)))
    }

    #[test]
    fn the_newest_uncompleted_gate_of_this_tool_in_any_spelling() {
        use Phase::{Advance, Gate};
        let who = |p| record(p, "mcp__seed__who_am_i", Some("t1"));
        for spelling in [
            "mcp__seed__what_do_i_do",
            "mcp__plugin_seed_seed__what_do_i_do",
        ] {
            let recs = [who(Gate), who(Advance), record(Gate, spelling, Some("t2"))];
            assert_eq!(found(&recs), Some(2), "{spelling}");
        }
        // Parallel calls: another call's gate and its completion came after ours.
        let recs = [
            record(Gate, "mcp__seed__what_do_i_do", Some("t2")),
            record(Gate, "Read", Some("t3")),
            record(Advance, "Read", Some("t3")),
        ];
        assert_eq!(found(&recs), Some(0));
        // Completed already, another server's tool of the same name, a different tool.
        for recs in [
            vec![
                record(Gate, "mcp__seed__what_do_i_do", Some("t2")),
                record(Advance, "mcp__seed__what_do_i_do", Some("t2")),
            ],
            vec![record(Gate, "mcp__other__what_do_i_do", Some("t2"))],
            vec![record(Gate, "mcp__seed__who_am_i", Some("t2"))],
            vec![
                record(Gate, "mcp__seed__what_do_i_do", None),
                record(Advance, "mcp__seed__what_do_i_do", None),
            ],
            vec![],
        ] {
            assert_eq!(found(&recs), None, "{recs:?}");
        }
    }

    #[test]
    fn a_denied_or_stale_gate_is_not_in_flight() {
        let m = machine();
        let mut denied = record(Phase::Gate, "mcp__seed__what_do_i_do", Some("t2"));
        let mut snap = m.start(&Default::default());
        // seed's own tools are neutral in the shipped sequences; a policy naming one can still
        // refuse it, and then the record holds a refusal like this one.
        let ev = Event::tool("Bash", Value::Null);
        denied.verdict = m
            .step(&mut snap, Phase::Gate, &ev, &Default::default())
            .verdict;
        assert!(denied.verdict.as_ref().is_some_and(|v| v.blocks()));
        assert_eq!(found(&[denied]), None);
        // A prompt after the gate: that turn is over.
        let mut prompt = Record::new("", "s", "UserPromptSubmit");
        prompt.phase = Some(Phase::Advance);
        prompt.event = Some(Event::prompt("go on"));
        let stale = record(Phase::Gate, "mcp__seed__what_do_i_do", Some("t2"));
        assert_eq!(found(&[stale, prompt]), None);
    }
}
