//! From step reports to the one answer: the most restrictive verdict over the sequences (deny
//! beats ask beats allow, the reason naming the sequence), the per-event output, the guidance
//! line injected when it changed, and the record's `extra`.

use serde_json::{Map, Value, json};

use super::Loaded;
use crate::config::Config;
use crate::engine::ir::Enforcement;
use crate::engine::{Decision, Event, Phase, Snapshot, StepReport, Verdict, VerdictKind};
use crate::protocol::{Answer, HookInput, output};
use crate::store::redact::{Cut, MAX_FIELD, scrub_value};
use crate::store::sessions::SessionMeta;

/// The most guidance injected at once: one line of at most this many characters.
pub const GUIDANCE_MAX_CHARS: usize = 300;

fn rank(d: Decision) -> u8 {
    match d {
        Decision::Deny | Decision::Block => 3,
        Decision::Ask => 2,
        Decision::Allow => 1,
    }
}

/// `seed: …` → `seed [<sequence>]: …`, so the reason names the sequence that objected.
pub fn name_reason(sequence: &str, reason: &str) -> String {
    if reason.is_empty() {
        return String::new();
    }
    let rest = reason.strip_prefix("seed: ").unwrap_or(reason);
    format!("seed [{sequence}]: {rest}")
}

/// The most restrictive verdict, first sequence first on ties; warnings of every sequence
/// that let the call through with one are joined when the result is an allow, and the
/// reasons of every sequence that refuses it when it is not.
pub fn combine(names: &[&str], reports: &[StepReport]) -> Option<Verdict> {
    let verdicts: Vec<(&str, &Verdict)> = names
        .iter()
        .zip(reports)
        .filter_map(|(n, r)| Some((*n, r.verdict.as_ref()?)))
        .collect();
    let (name, best) = verdicts.iter().copied().reduce(|a, b| {
        if rank(b.1.decision) > rank(a.1.decision) {
            b
        } else {
            a
        }
    })?;
    let mut v = best.clone();
    v.reason = name_reason(name, &v.reason);
    if v.decision == Decision::Allow {
        let warnings: Vec<String> = verdicts
            .iter()
            .filter_map(|(n, x)| x.warning.as_ref().map(|w| name_reason(n, w)))
            .collect();
        v.warning = (!warnings.is_empty()).then(|| warnings.join("\n"));
    } else {
        v.warning = v.warning.as_ref().map(|w| name_reason(name, w));
        // Every other sequence that refuses the call says why too, on a line of its own: the
        // way one names may be a call another refuses, and the agent (and the user who chose
        // both) must see that conflict rather than go round between them.
        for (n, x) in &verdicts {
            if *n != name && rank(x.decision) > rank(Decision::Allow) && !x.reason.is_empty() {
                v.reason.push('\n');
                v.reason.push_str(&name_reason(n, &x.reason));
            }
        }
    }
    Some(v)
}

/// The verdict's texts redacted and bounded ([`MAX_FIELD`] each): they are answered and
/// recorded alike, and may quote the payload (a tool name, a command).
pub fn scrub_verdict(v: &mut Verdict, cuts: &mut Vec<Cut>) {
    let Ok(mut value) = serde_json::to_value(&*v) else {
        return;
    };
    let before = value.clone();
    scrub_value(&mut value, MAX_FIELD, "verdict", cuts);
    if value != before
        && let Ok(clean) = serde_json::from_value(value)
    {
        *v = clean;
    }
}

/// Whether every sequence actively expects the call: it moves each one on (advance), in a
/// mode that enforces or advises, with nothing to warn about. Only such a call may be
/// answered with an explicit `allow` (`emit_allow`), which skips the user's own permission
/// prompt: a call a sequence merely lets through (neutral, off the path, observed) is the
/// user's to approve, as it would be without seed.
pub fn expected(reports: &[StepReport]) -> bool {
    !reports.is_empty()
        && reports.iter().all(|r| {
            r.verdict.as_ref().is_some_and(|v| {
                v.kind == VerdictKind::Advance
                    && v.decision == Decision::Allow
                    && v.mode != Enforcement::Observe
                    && v.warning.is_none()
            })
        })
}

/// The answer a verdict calls for on this event (guidance comes separately). `expected`:
/// see [`expected`].
pub fn respond(
    h: &HookInput,
    phase: Option<Phase>,
    verdict: Option<&Verdict>,
    cfg: &Config,
    expected: bool,
) -> Answer {
    let Some(v) = verdict else {
        return Answer::none();
    };
    match (phase, h.event.as_str()) {
        (Some(Phase::Gate), "PreToolUse") => {
            let emit_allow = cfg.emit_allow && expected;
            output::pre_tool_use(v.decision, &v.reason, v.warning.as_deref(), emit_allow)
        }
        (Some(Phase::Stop), _) if v.decision == Decision::Block => output::stop_block(&v.reason),
        // A stop a sequence would hold, let through (advise mode): the user is told.
        (Some(Phase::Stop), "Stop") => match &v.warning {
            Some(w) => output::system_message(w),
            None => Answer::none(),
        },
        _ => Answer::none(),
    }
}

/// Sources after which the model has lost earlier context: the line is always injected.
fn context_lost(source: Option<&str>) -> bool {
    matches!(source, Some("compact" | "resume" | "clear"))
}

/// The `[SEED SEQUENCE]` line to inject now (UserPromptSubmit and SessionStart only). A
/// sequence's line is due when it changed since it was last injected, every `every` prompts
/// (0: never just for being due; a system notification is no prompt), and always after a
/// SessionStart that lost context. The due lines make one line of at most
/// [`GUIDANCE_MAX_CHARS`] (see [`one_line`]); a due line that does not fit stays due, so the
/// next prompt brings it.
pub fn guidance(
    h: &HookInput,
    loaded: &[Loaded],
    snaps: &[Snapshot],
    meta: &mut SessionMeta,
    every: u32,
) -> Option<String> {
    if h.event != "UserPromptSubmit" && h.event != "SessionStart" {
        return None;
    }
    // Claude Code's own notice (a background task finished) is no prompt: it neither counts
    // towards `every` nor makes the line due; a line that changed still goes with it.
    let prompt = h.event == "UserPromptSubmit"
        && !crate::engine::event::is_system_notification(h.prompt.as_deref().unwrap_or(""));
    let force = !prompt && context_lost(h.source.as_deref());
    let mut due: Vec<(&str, String)> = Vec::new();
    for (l, snap) in loaded.iter().zip(snaps) {
        let line = l.machine.guidance_line(snap);
        let inj = meta.inject.entry(l.name.clone()).or_default();
        let is_due = prompt && every > 0 && inj.prompts_since + 1 >= every;
        if force || is_due || inj.line != line {
            due.push((l.name.as_str(), line));
        } else if prompt {
            inj.prompts_since += 1;
        }
    }
    let lines: Vec<&str> = due.iter().map(|(_, line)| line.as_str()).collect();
    let (text, shown) = one_line(&lines)?;
    for (i, (name, line)) in due.iter().enumerate() {
        let inj = meta.inject.entry(name.to_string()).or_default();
        // One left out is remembered as never injected, so it is due at the next prompt.
        inj.line = if i < shown {
            line.clone()
        } else {
            String::new()
        };
        inj.prompts_since = 0;
    }
    Some(text)
}

/// Several sequences' lines as one line of at most [`GUIDANCE_MAX_CHARS`] characters: the
/// first whole (the first sequence in the configured order leads), then the others without
/// their `[SEED SEQUENCE] ` tag, separated by ` | `, as many as fit, then `+N more sequences`
/// for the rest. Returns the line and how many lines it shows.
pub fn one_line(lines: &[&str]) -> Option<(String, usize)> {
    const TAG: &str = "[SEED SEQUENCE] ";
    let chars = |s: &str| s.chars().count();
    let more = |n: usize| match n {
        0 => String::new(),
        1 => " | +1 more sequence".to_string(),
        n => format!(" | +{n} more sequences"),
    };
    let (first, rest) = lines.split_first()?;
    let room = GUIDANCE_MAX_CHARS - chars(&more(rest.len()));
    let mut text = crate::engine::status::truncate_chars(first, room);
    let mut shown = 1;
    for (i, line) in rest.iter().enumerate() {
        let part = format!(" | {}", line.strip_prefix(TAG).unwrap_or(line));
        let left_after = rest.len() - i - 1;
        if chars(&text) + chars(&part) + chars(&more(left_after)) > GUIDANCE_MAX_CHARS {
            break;
        }
        text.push_str(&part);
        shown += 1;
    }
    text.push_str(&more(lines.len() - shown));
    Some((text, shown))
}

/// Keys of the payload's other fields a record keeps in `extra` (the event keeps others).
pub use crate::protocol::input::EXTRA_KEYS;

/// Payload facts worth keeping that the engine does not step on; `event` is the stepped
/// event (`None`: an event seed only records). The payload was scrubbed: every string here is
/// redacted and bounded.
pub fn extra(h: &HookInput, event: Option<&Event>) -> Value {
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    if let Some(p) = &h.permission_mode {
        put("permission_mode", json!(p));
    }
    if let Some(a) = &h.agent_type {
        put("agent_type", json!(a));
    }
    if let Some(s) = &h.source {
        put("source", json!(s));
    }
    if let Some(e) = &h.error {
        put("error", json!(e));
    }
    for k in EXTRA_KEYS {
        if let Some(v) = h
            .rest
            .get(*k)
            .filter(|v| v.is_number() || v.is_boolean() || v.is_string())
        {
            put(k, v.clone());
        }
    }
    if matches!(h.event.as_str(), "Stop" | "SubagentStop") {
        put("stop_hook_active", json!(h.stop_hook_active));
    }
    if h.repairs.lone_surrogates > 0 {
        put("repaired_surrogates", json!(h.repairs.lone_surrogates));
    }
    if h.repairs.invalid_utf8 {
        put("repaired_utf8", json!(true));
    }
    if h.repairs.flattened > 0 {
        put("flattened_too_deep", json!(h.repairs.flattened));
    }
    if h.repairs.huge_numbers > 0 {
        put("quoted_huge_numbers", json!(h.repairs.huge_numbers));
    }
    if event.is_none() {
        put("unknown_event", json!(!h.is_known()));
    }
    if m.is_empty() {
        Value::Null
    } else {
        Value::Object(m)
    }
}

#[cfg(test)]
#[path = "answer_tests.rs"]
mod tests;
