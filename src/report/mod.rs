//! Text and JSON renderings of the engine's `Status`, shared by the CLI, the MCP tools and the
//! prompt injection, so every face says the same thing.

#![warn(clippy::too_many_lines)] // Past 80 lines (clippy.toml) a function is split or says why.

pub mod deep_state;
pub mod explain;
pub mod sanitize;
pub mod sequences;
pub mod session;
pub mod validation;

use serde_json::{Value, json};

use crate::engine::Status;
use crate::engine::ir::{Enforcement, Outcome};
use crate::engine::progress::{Ended, Progress};
use crate::engine::status::Allowed;
use crate::engine::wording::{position, position_word};
use crate::store::failures::Tally;

/// `[#########-----]` for a fraction in [0, 1].
pub fn ascii_bar(fraction: f64, width: usize, full: char, empty: char) -> String {
    let f = if fraction.is_finite() {
        fraction.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let filled = (f * width as f64).round() as usize;
    let mut s = String::with_capacity(width + 2);
    s.push('[');
    s.extend(std::iter::repeat_n(full, filled));
    s.extend(std::iter::repeat_n(empty, width - filled));
    s.push(']');
    s
}

const BAR: usize = 24;

/// Longest text one field of a status shows in a terminal.
const FIELD_CHARS: usize = 2000;

/// A copy of `st` whose text fields are each one clean line (names, labels, tools and reasons
/// come from sequence files and logs: no escape sequence, no forged line).
fn cleaned(st: &Status) -> Status {
    let one = |s: &mut String| *s = sanitize::clean(s, FIELD_CHARS);
    let mut st = st.clone();
    for f in [&mut st.sequence, &mut st.breadcrumb, &mut st.step] {
        one(f);
    }
    st.progress.layers.iter_mut().for_each(|l| one(&mut l.name));
    if let Allowed::Calls(calls) = &mut st.allowed {
        calls.iter_mut().for_each(one);
    }
    for d in &mut st.denied {
        one(&mut d.pattern);
        one(&mut d.by);
    }
    for n in st.next.iter_mut().chain(st.recovery.next.iter_mut()) {
        one(&mut n.tool);
        one(&mut n.leads_to);
        n.blocked_by.iter_mut().for_each(one);
    }
    st.recovery.suggestions.iter_mut().for_each(one);
    st.denied_call.iter_mut().for_each(one);
    st.failed.iter_mut().for_each(one);
    if let Some(f) = &mut st.failed_call {
        one(&mut f.call);
        f.error.iter_mut().for_each(one);
    }
    st
}

pub fn status_text(st: &Status) -> String {
    let st = &cleaned(st);
    let mut s = String::new();
    s.push_str(&format!(
        "{}  ({}, {})\n",
        st.sequence,
        st.dialect,
        st.enforcement.as_str()
    ));
    s.push_str(&format!("path:  {}\n", st.breadcrumb));
    s.push('\n');
    progress_lines(&mut s, &st.progress);
    s.push('\n');
    position_lines(&mut s, st);
    outcome_lines(&mut s, st);
    value_lines(&mut s, st);
    s
}

/// One bar per layer, then the overall one with what is left.
fn progress_lines(s: &mut String, p: &Progress) {
    let name_w = p
        .layers
        .iter()
        .map(|l| l.name.chars().count())
        .max()
        .unwrap_or(7)
        .max(7);
    for l in &p.layers {
        s.push_str(&format!(
            "  {:<name_w$} {:>3}–{:<3} {} {:>3.0}%{}\n",
            l.name,
            l.lo.round(),
            l.hi.round(),
            ascii_bar(l.value / 100.0, BAR, '#', '-'),
            l.value,
            if l.current { "  ◂" } else { "" }
        ));
    }
    let remaining = remaining(p);
    s.push_str(&format!(
        "  {:<name_w$} {:7} {} {:>3.0}%  highest {:.0}%  {remaining}{}\n",
        "overall",
        "",
        ascii_bar(p.overall / 100.0, BAR, '#', '-'),
        p.overall,
        p.highest,
        if p.in_loop { "  ↺" } else { "" }
    ));
}

/// Where the sequence is, the next call and what is allowed and denied now.
fn position_lines(s: &mut String, st: &Status) {
    // `next:` lines up under `at:`; `last call:` is longer and says so.
    let word = format!("{}:", position_word(st.step_is_call));
    s.push_str(&format!("{word:<8} {}\n", st.step));
    match &st.next {
        Some(n) => {
            s.push_str(&format!("next:    {}  → {}\n", n.tool, n.leads_to));
            if let Some(by) = &n.blocked_by {
                s.push_str(&format!("         blocked: {by}\n"));
            }
        }
        None if st.progress.done => {
            s.push_str("next:    — (sequence finished; it gates no call any more)\n")
        }
        None if failed_ending(st).is_some() => {
            s.push_str("next:    — (ended in error; see its recovery)\n")
        }
        None => s.push_str("next:    —\n"),
    }
    s.push_str(&format!("allowed: {}\n", allowed_text(st)));
    if !st.denied.is_empty() {
        let d: Vec<String> = st
            .denied
            .iter()
            .map(|d| format!("{} (by {})", d.pattern, d.by))
            .collect();
        s.push_str(&format!("denied:  {}\n", d.join(", ")));
    }
}

/// The last denied and failed call, how the sequence ended, a livelock.
fn outcome_lines(s: &mut String, st: &Status) {
    if let Some(d) = &st.denied_call {
        s.push_str(&format!("last denied call: {d}\n"));
    }
    if let Some(f) = &st.failed_call {
        let error = f
            .error
            .as_deref()
            .map(|e| format!(": {e}"))
            .unwrap_or_default();
        s.push_str(&format!("failed call: {}{error}\n", f.call));
    }
    match (failed_ending(st), &st.failed) {
        (Some(e), _) => s.push_str(&format!("ended:   {}\n", ended_line(e))),
        (None, Some(f)) => s.push_str(&format!("failed:  {f}\n")),
        (None, None) => {}
    }
    if st.livelock {
        s.push_str(&format!("livelock: {LIVELOCK}\n"));
    }
}

/// The sequence's variables and flags that hold a value.
fn value_lines(s: &mut String, st: &Status) {
    if !st.vars.is_empty() {
        let v: Vec<String> = st
            .vars
            .iter()
            .map(|(k, v)| {
                format!(
                    "{} = {}",
                    sanitize::clean(k, 60),
                    sanitize::clean(&v.to_string(), 60)
                )
            })
            .collect();
        s.push_str(&format!("vars:    {}\n", v.join(", ")));
    }
    if !st.flags.is_empty() {
        let f: Vec<String> = st
            .flags
            .iter()
            .map(|(k, v)| format!("{} = {v}", sanitize::clean(k, 60)))
            .collect();
        s.push_str(&format!("flags:   {}\n", f.join(", ")));
    }
}

/// seed's own failures in a session, for the end of its status (`None`: there were none):
/// lapses (a call let through unjudged, a hook over its budget) apart from fail-closed
/// refusals, which did their job.
pub fn failures_line(t: &Tally) -> Option<String> {
    let counts = t.text()?;
    Some(format!(
        "seed's own failures: {counts} — `seed doctor` lists when and why"
    ))
}

/// `text` with the session's [`failures_line`] after it, when there is one.
pub fn with_failures(text: &str, t: &Tally) -> String {
    match failures_line(t) {
        Some(line) => format!("{}\n\n{line}\n", text.trim_end()),
        None => text.to_string(),
    }
}

/// The same counts for `--json` (always present for a session: zero is news too).
pub fn failures_json(t: &Tally) -> Value {
    json!({ "lapses": t.lapses, "failed_closed": t.failed_closed })
}

/// What is left, as every face says it (the CLI, the dashboard at any width): done, how the
/// sequence ended, that no call is left to make (the way to an ending waits on deep state, an
/// event or the session's end), or at least how many steps.
pub fn remaining(p: &Progress) -> String {
    match (&p.ended, p.steps_remaining) {
        (Some(e), _) if e.outcome == Outcome::Error => format!("ended: error — {}", e.ending),
        (Some(_), _) => "done".to_string(),
        (None, _) if p.waiting_for.is_some() => format!(
            "no call left to make; waiting for {}",
            p.waiting_for.as_deref().unwrap_or_default()
        ),
        (None, Some(0)) => "no call left to make".to_string(),
        (None, Some(n)) => format!("≥ {n} step{} to go", if n == 1 { "" } else { "s" }),
        (None, None) => "no ending reachable".to_string(),
    }
}

/// [`remaining`] in fewer columns (a dashboard's progress line): `≥ 3 steps`, `done`, `error`,
/// `no call left`, `no ending`.
pub fn remaining_short(p: &Progress) -> String {
    match (&p.ended, p.steps_remaining) {
        (Some(e), _) if e.outcome == Outcome::Error => "error".to_string(),
        (Some(_), _) => "done".to_string(),
        (None, _) if p.waiting_for.is_some() => "no call left".to_string(),
        (None, Some(0)) => "no call left".to_string(),
        (None, Some(n)) => format!("≥ {n} step{}", if n == 1 { "" } else { "s" }),
        (None, None) => "no ending".to_string(),
    }
}

fn failed_ending(st: &Status) -> Option<&Ended> {
    st.progress
        .ended
        .as_ref()
        .filter(|e| e.outcome == Outcome::Error)
}

/// `error at "ending": message — recovery: …`.
fn ended_line(e: &Ended) -> String {
    let one = |t: &str| sanitize::clean(t, FIELD_CHARS);
    let mut line = format!("error at \"{}\"", one(&e.ending));
    if let Some(m) = &e.message {
        line.push_str(&format!(": {}", one(m)));
    }
    if let Some(r) = &e.recovery {
        line.push_str(&format!(" — recovery: {}", one(r)));
    }
    line
}

/// The calls allowed now, as a line: in observe mode every call goes through (recorded, not
/// judged), whatever the sequence expects.
fn allowed_text(st: &Status) -> String {
    let listed = match &st.allowed {
        Allowed::Any => "any tool".to_string(),
        Allowed::Calls(c) if c.is_empty() => "—".to_string(),
        Allowed::Calls(c) => c.join(", "),
    };
    if st.enforcement == Enforcement::Observe {
        if st.allowed.is_any() || st.allowed.calls().is_empty() {
            return "any tool (observe mode: calls are recorded, not judged)".to_string();
        }
        return format!(
            "any tool (observe mode: calls are recorded, not judged; the sequence expects {listed})"
        );
    }
    listed
}

/// What a livelock means for the user: the sequence, not the agent, needs fixing.
pub const LIVELOCK: &str = "the sequence did not settle (eventless transitions kept firing up to the microstep cap); fix its eventless loop — `seed validate` points at it";

pub fn status_json(st: &Status) -> Value {
    json!({
        "sequence": st.sequence,
        "description": st.description,
        "dialect": st.dialect,
        "enforcement": st.enforcement,
        "current": st.current,
        "step": st.step,
        "position": position(&st.step, st.step_is_call),
        "breadcrumb": st.breadcrumb,
        "progress": st.progress,
        "allowed": st.allowed,
        "denied": st.denied,
        "neutral": st.neutral,
        "next": st.next,
        "recovery": st.recovery.suggestions,
        "halted": st.halted,
        "failed": st.failed,
        "livelock": st.livelock,
        "denied_call": st.denied_call,
        "failed_call": st.failed_call,
        "events": st.events,
        "vars": st.vars,
        "flags": st.flags,
    })
}

pub fn recovery_text(st: &Status) -> String {
    let st = &cleaned(st);
    let at = position(&st.step, st.step_is_call);
    let mut s = match failed_ending(st) {
        Some(_) => format!(
            "{} — {at} (ended in error; highest {:.0}%)\n",
            st.sequence, st.progress.highest
        ),
        None => format!(
            "{} — {at} ({:.0}% done)\n",
            st.sequence, st.progress.overall
        ),
    };
    if let Some(d) = &st.denied_call {
        s.push_str(&format!("  last denied call: {d}\n"));
    }
    if st.livelock {
        s.push_str(&format!("  livelock: {LIVELOCK}\n"));
    }
    if st.recovery.suggestions.is_empty() {
        if st.progress.done || st.halted {
            s.push_str("  nothing to recover: the sequence is finished, and any tool is allowed\n");
        } else if st.allowed.is_any() {
            s.push_str("  nothing to recover: any tool is allowed here\n");
        } else {
            s.push_str("  nothing to recover: waiting for the next event\n");
        }
    }
    for (i, line) in st.recovery.suggestions.iter().enumerate() {
        s.push_str(&format!("  {}. {line}\n", i + 1));
    }
    s
}

pub fn recovery_json(st: &Status) -> Value {
    json!({
        "sequence": st.sequence,
        "current": st.current,
        "next": st.recovery.next,
        "denied_call": st.denied_call,
        "failed_call": st.failed_call,
        "path_to_denied": st.recovery.path_to_denied,
        "livelock": st.livelock,
        "ending": st.recovery.ending,
        "suggestions": st.recovery.suggestions,
    })
}
