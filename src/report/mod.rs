//! Text and JSON renderings of the engine's `Status`, shared by the CLI, the MCP tools and the
//! prompt injection, so every face says the same thing.

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

pub fn status_text(st: &Status) -> String {
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
    if let Some(f) = &st.failed {
        s.push_str(&format!("failed:  {f}\n"));
    }
    if !st.vars.is_empty() {
        let v: Vec<String> = st
            .vars
            .iter()
            .map(|(k, v)| format!("{} = {}", clip(k), clip(&v.to_string())))
            .collect();
        s.push_str(&format!("vars:    {}\n", v.join(", ")));
    }
    s
}

/// At most 60 characters of a name or a value (JSON: control characters come escaped).
fn clip(text: &str) -> String {
    let clean: String = text.chars().filter(|ch| !ch.is_control()).collect();
    let mut c: String = clean.chars().take(60).collect();
    if c.len() < clean.len() {
        c.push('…');
    }
    c
}

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
        "events": st.events,
        "vars": st.vars,
    })
}

pub fn recovery_text(st: &Status) -> String {
    let mut s = format!(
        "{} — at \"{}\" ({:.0}% done)\n",
        st.sequence, st.step, st.progress.overall
    );
    if st.recovery.suggestions.is_empty() {
        s.push_str("  nothing to recover: the sequence is finished\n");
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
        "ending": st.recovery.ending,
        "suggestions": st.recovery.suggestions,
    })
}
