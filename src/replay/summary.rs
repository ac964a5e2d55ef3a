//! `seed replay SOURCE --summary`: what happened (events, tool calls), what the sequence says
//! about it (verdicts, final node and progress), and — for what-if — every call whose verdict
//! differs from the one the hook recorded.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::engine::{Decision, Facts, Phase};
use crate::store::failures::Tally;
use crate::tui::Seq;

#[derive(Debug, Clone, Serialize)]
pub struct CallNote {
    /// Index of the record in the source.
    pub index: usize,
    pub tool: String,
    /// The decision the hook recorded (`None` for transcripts and unrecorded calls).
    pub recorded: Option<String>,
    pub replayed: String,
    pub reason: String,
}

/// A call the source records as refused: the hook's deny or ask, or in a transcript a hook's
/// refusal (`deny`) or a call the user declined when asked (`ask`).
#[derive(Debug, Clone, Serialize)]
pub struct Refusal {
    /// Index of the record in the source.
    pub index: usize,
    pub tool: String,
    pub decision: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Final {
    pub sequence: String,
    pub node: String,
    pub breadcrumb: String,
    pub progress: f64,
    pub highest: f64,
    pub done: bool,
    pub steps_remaining: Option<u32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub source: String,
    pub session: String,
    pub events: usize,
    pub events_by_kind: BTreeMap<String, usize>,
    pub tool_calls: usize,
    pub tools: BTreeMap<String, usize>,
    /// Replayed decisions of the gated calls (`allow`, `ask`, `deny`, `block`); they sum to
    /// the calls the sequence judged.
    pub verdicts: BTreeMap<String, usize>,
    /// The same calls by verdict kind (`advance`, `neutral`, `deny`, `off_path`).
    pub verdict_kinds: BTreeMap<String, usize>,
    pub r#final: Option<Final>,
    /// Calls whose replayed decision differs from the recorded one.
    pub differing: Vec<CallNote>,
    /// Calls the replayed sequence denies (or asks about).
    pub denied: Vec<CallNote>,
    /// Calls the source records as refused, whatever sequence replays them.
    pub refused: Vec<Refusal>,
    /// seed's own failures the source records: lapses apart from fail-closed refusals.
    pub hook_failures: Tally,
    pub skipped_lines: usize,
    /// Records of a newer seed's format, left out of every count above.
    pub newer_records: usize,
}

/// Replay the records through `seq` (every record when `what_if`, else those that name the
/// sequence or none, as the hook stepped them) and summarize.
pub fn summarize(
    source: &crate::session::source::Loaded,
    seq: Option<&Seq>,
    what_if: bool,
) -> Summary {
    let records = &source.records;
    let mut events_by_kind = BTreeMap::new();
    let mut tools = BTreeMap::new();
    let mut hook_failures = Tally::default();
    for r in records {
        hook_failures.add_record(r);
        let key = match &r.event {
            Some(e) => e.kind.as_str().to_string(),
            None => format!("hook:{}", r.hook),
        };
        *events_by_kind.entry(key).or_insert(0) += 1;
        if crate::session::source::is_gated_call(r)
            && let Some(e) = &r.event
        {
            *tools.entry(e.claude_tool_name()).or_insert(0) += 1;
        }
    }
    let mut s = Summary {
        source: source.path.display().to_string(),
        session: source.session.clone(),
        events: records.len(),
        events_by_kind,
        tool_calls: source.tool_calls,
        tools,
        verdicts: BTreeMap::new(),
        verdict_kinds: BTreeMap::new(),
        r#final: None,
        differing: Vec::new(),
        denied: Vec::new(),
        refused: refused(records),
        hook_failures,
        skipped_lines: source.skipped,
        newer_records: source.newer,
    };
    let Some(seq) = seq else { return s };
    let (m, name) = (&*seq.machine, &seq.name);
    let first_facts = records
        .iter()
        .find_map(|r| r.step().map(|(_, _, f)| f.clone()))
        .unwrap_or_else(Facts::new);
    let mut snap = m.start(&first_facts);
    for (i, r) in records.iter().enumerate() {
        let Some((phase, ev, facts)) = r.step() else {
            continue;
        };
        if !what_if && !r.sequences.is_empty() && !r.sequences.contains(name) {
            continue;
        }
        let report = m.step(&mut snap, phase, ev, facts);
        let Some(v) = report.verdict else { continue };
        if phase != Phase::Gate {
            continue;
        }
        let kind = serde_json::to_value(v.kind)
            .ok()
            .and_then(|k| k.as_str().map(String::from))
            .unwrap_or_default();
        *s.verdict_kinds.entry(kind).or_insert(0) += 1;
        *s.verdicts
            .entry(v.decision.as_str().to_string())
            .or_insert(0) += 1;
        let note = |recorded: Option<String>| CallNote {
            index: i,
            tool: ev.claude_tool_name(),
            recorded,
            replayed: v.decision.as_str().to_string(),
            reason: if v.reason.is_empty() {
                v.warning.clone().unwrap_or_default()
            } else {
                v.reason.clone()
            },
        };
        let recorded = r.verdict.as_ref().map(|rv| rv.decision);
        // What-if: a call without a recorded verdict ran (a transcript, or an ungated call), so
        // it differs wherever the sequence would not have allowed it.
        let was = recorded.or(what_if.then_some(Decision::Allow));
        if let Some(was) = was
            && was != v.decision
        {
            s.differing
                .push(note(recorded.map(|d| d.as_str().to_string())));
        }
        if matches!(v.decision, Decision::Deny | Decision::Ask) {
            s.denied
                .push(note(recorded.map(|d| d.as_str().to_string())));
        }
    }
    let st = m.status(&snap);
    s.r#final = Some(Final {
        sequence: st.sequence.clone(),
        node: st.step.clone(),
        breadcrumb: st.breadcrumb.clone(),
        progress: st.progress.overall,
        highest: st.progress.highest,
        done: st.progress.done,
        steps_remaining: st.progress.steps_remaining,
    });
    s
}

/// The gated calls whose recorded verdict refused them (deny or ask).
fn refused(records: &[crate::store::record::Record]) -> Vec<Refusal> {
    records
        .iter()
        .enumerate()
        .filter(|(_, r)| crate::session::source::is_gated_call(r))
        .filter_map(|(index, r)| {
            let v = r.verdict.as_ref()?;
            let tool = r.event.as_ref()?.claude_tool_name();
            matches!(v.decision, Decision::Deny | Decision::Ask).then(|| Refusal {
                index,
                tool,
                decision: v.decision.as_str().to_string(),
                reason: v.reason.clone(),
            })
        })
        .collect()
}

/// The summary as text for a terminal: names, reasons and paths come from the source (a
/// transcript, a log), so control and bidi characters are shown as escapes, never raw.
pub fn render_text(s: &Summary) -> String {
    crate::engine::sanitize::visible(&render_raw(s)).into_owned()
}

fn render_raw(s: &Summary) -> String {
    let mut out = format!(
        "{}  (session {})\n",
        s.source,
        if s.session.is_empty() {
            "?"
        } else {
            &s.session
        }
    );
    let kinds: Vec<String> = s
        .events_by_kind
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    out.push_str(&format!(
        "events:     {} ({})\n",
        s.events,
        kinds.join(", ")
    ));
    let mut tools: Vec<(&String, &usize)> = s.tools.iter().collect();
    tools.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let tl: Vec<String> = tools.iter().map(|(k, v)| format!("{k} {v}")).collect();
    out.push_str(&format!(
        "tool calls: {} ({})\n",
        s.tool_calls,
        tl.join(", ")
    ));
    if let Some(t) = s.hook_failures.text() {
        out.push_str(&format!("seed:       {t} (its own failures)\n"));
    }
    if s.skipped_lines > 0 {
        out.push_str(&format!(
            "skipped:    {} lines that were not events\n",
            s.skipped_lines
        ));
    }
    if s.newer_records > 0 {
        out.push_str(&format!(
            "skipped:    {}\n",
            crate::session::source::newer_notice(s.newer_records)
        ));
    }
    let Some(f) = &s.r#final else {
        out.push_str("sequence:   none (pass --sequence NAME to replay through one)\n");
        render_refused(&mut out, &s.refused);
        return out;
    };
    let counts = |m: &BTreeMap<String, usize>| {
        let v: Vec<String> = m.iter().map(|(k, v)| format!("{k} {v}")).collect();
        v.join(", ")
    };
    if s.verdicts.is_empty() {
        out.push_str("verdicts:   —\n");
    } else {
        out.push_str(&format!(
            "verdicts:   {} (by kind: {})\n",
            counts(&s.verdicts),
            counts(&s.verdict_kinds)
        ));
    }
    out.push_str(&format!(
        "final:      \"{}\" at {} — {:.0}% (highest {:.0}%){}\n",
        f.sequence,
        f.node,
        f.progress,
        f.highest,
        if f.done { ", done" } else { "" }
    ));
    if !s.differing.is_empty() {
        // A call with no recorded verdict (a transcript's, an ungated one) ran.
        out.push_str(&format!(
            "differing:  {} calls (recorded → replayed; `ran`: no verdict was recorded)\n",
            s.differing.len()
        ));
        for d in &s.differing {
            out.push_str(&format!(
                "  #{:<6} {:<32} recorded {:<5} → {:<5} {}\n",
                d.index,
                d.tool,
                d.recorded.as_deref().unwrap_or("ran"),
                d.replayed,
                d.reason
            ));
        }
    }
    if !s.denied.is_empty() {
        // Asked calls are refusals too (the user decides): counted with the denied ones.
        let asked = s.denied.iter().filter(|d| d.replayed == "ask").count();
        let split = if asked == 0 {
            String::new()
        } else {
            format!(" ({} denied, {asked} asked)", s.denied.len() - asked)
        };
        out.push_str(&format!("denied:     {} calls{split}\n", s.denied.len()));
        for d in s.denied.iter().take(50) {
            out.push_str(&format!("  #{:<6} {:<32} {}\n", d.index, d.tool, d.reason));
        }
        if s.denied.len() > 50 {
            out.push_str(&format!("  … {} more (see --json)\n", s.denied.len() - 50));
        }
    }
    out
}

/// The recorded refusals, when no sequence replays the calls (one that does lists its own).
fn render_refused(out: &mut String, refused: &[Refusal]) {
    if refused.is_empty() {
        return;
    }
    out.push_str(&format!(
        "refused:    {} calls (as recorded: denied, or asked and declined; none ran)\n",
        refused.len()
    ));
    // The reasons come from the source (a transcript's text): one clean line each.
    let clean = crate::engine::sanitize::clean;
    for d in refused.iter().take(50) {
        let (tool, reason) = (clean(&d.tool, 64), clean(&d.reason, 400));
        out.push_str(&format!("  #{:<6} {tool:<32} {reason}\n", d.index));
    }
    if refused.len() > 50 {
        out.push_str(&format!("  … {} more (see --json)\n", refused.len() - 50));
    }
}
