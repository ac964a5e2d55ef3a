//! Text and JSON renderings of the engine's `Status`, shared by the CLI, the MCP tools and the
//! prompt injection, so every face says the same thing.

pub mod sanitize;

use serde_json::{Value, json};

use crate::engine::Status;

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
    st.allowed.iter_mut().for_each(one);
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
    st
}

pub fn status_text(st: &Status) -> String {
    let st = &cleaned(st);
    let mut s = String::new();
    s.push_str(&format!(
        "{}  ({}, {})\n",
        st.sequence, st.dialect, st.enforcement
    ));
    s.push_str(&format!("at:    {}\n", st.breadcrumb));
    s.push('\n');
    let name_w = st
        .progress
        .layers
        .iter()
        .map(|l| l.name.chars().count())
        .max()
        .unwrap_or(7)
        .max(7);
    for l in &st.progress.layers {
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
    let remaining = match st.progress.steps_remaining {
        Some(0) if st.progress.done => "done".to_string(),
        Some(n) => format!("≥ {n} steps to done"),
        None => "no ending reachable".to_string(),
    };
    s.push_str(&format!(
        "  {:<name_w$} {:7} {} {:>3.0}%  highest {:.0}%  {remaining}{}\n",
        "overall",
        "",
        ascii_bar(st.progress.overall / 100.0, BAR, '#', '-'),
        st.progress.overall,
        st.progress.highest,
        if st.progress.in_loop { "  ↺" } else { "" }
    ));
    s.push('\n');
    s.push_str(&format!("step:    {}\n", st.step));
    match &st.next {
        Some(n) => {
            s.push_str(&format!("next:    {}  → {}\n", n.tool, n.leads_to));
            if let Some(by) = &n.blocked_by {
                s.push_str(&format!("         blocked: {by}\n"));
            }
        }
        None if st.progress.done => s.push_str("next:    — (sequence finished)\n"),
        None => s.push_str("next:    —\n"),
    }
    s.push_str(&format!(
        "allowed: {}\n",
        if st.allowed.is_empty() {
            "—".into()
        } else if st.allowed == ["*"] {
            "any tool".into()
        } else {
            st.allowed.join(", ")
        }
    ));
    if !st.denied.is_empty() {
        let d: Vec<String> = st
            .denied
            .iter()
            .map(|d| format!("{} (by {})", d.pattern, d.by))
            .collect();
        s.push_str(&format!("denied:  {}\n", d.join(", ")));
    }
    if let Some(d) = &st.denied_call {
        s.push_str(&format!("last denied call: {d}\n"));
    }
    if let Some(f) = &st.failed {
        s.push_str(&format!("failed:  {f}\n"));
    }
    if st.livelock {
        s.push_str(&format!("livelock: {LIVELOCK}\n"));
    }
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
    s
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
        "events": st.events,
        "vars": st.vars,
    })
}

pub fn recovery_text(st: &Status) -> String {
    let st = &cleaned(st);
    let mut s = format!(
        "{} — at \"{}\" ({:.0}% done)\n",
        st.sequence, st.step, st.progress.overall
    );
    if let Some(d) = &st.denied_call {
        s.push_str(&format!("  last denied call: {d}\n"));
    }
    if st.livelock {
        s.push_str(&format!("  livelock: {LIVELOCK}\n"));
    }
    if st.recovery.suggestions.is_empty() {
        if st.progress.done || st.halted {
            s.push_str("  nothing to recover: the sequence is finished\n");
        } else if st.allowed == ["*"] {
            s.push_str(&format!(
                "  nothing to recover: at \"{}\", and any tool is allowed here\n",
                st.step
            ));
        } else {
            s.push_str(&format!(
                "  nothing to recover: at \"{}\", waiting for the next event\n",
                st.step
            ));
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
        "path_to_denied": st.recovery.path_to_denied,
        "livelock": st.livelock,
        "ending": st.recovery.ending,
        "suggestions": st.recovery.suggestions,
    })
}
