//! How a record becomes (part of) a timeline row: its class (call before or after it ran,
//! prompt, stop, lifecycle event, seed's own failure), the gate's answer, the call's name; and
//! the interner rows keep names in.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::engine::{EventKind, Phase};

use super::lite::Rec;
use super::rows::Gate;
use super::sanitize;

/// Interned strings: each distinct tool name or lane is stored once, sanitized once (looked up
/// by its raw form, so a repeated name costs one hash lookup).
#[derive(Debug, Clone, Default)]
pub struct Interner {
    ids: HashMap<Box<str>, u32>,
    pub names: Vec<Box<str>>,
}

impl Interner {
    pub fn intern(&mut self, raw: &str, max: usize) -> u32 {
        if let Some(&id) = self.ids.get(raw) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(sanitize::clean(raw, max).into());
        self.ids.insert(raw.into(), id);
        id
    }
}

/// How a record shows in the timeline.
pub enum Class {
    Lapse,
    Pre,
    Post { failed: bool },
    Prompt,
    Stop,
    Lifecycle,
}

pub fn classify<R: Rec + ?Sized>(r: &R) -> Class {
    if r.error().is_some() && r.event().is_none() {
        return Class::Lapse;
    }
    let kind = r.event().map(|e| e.0);
    match r.hook() {
        "PreToolUse" => return Class::Pre,
        "PostToolUse" => return Class::Post { failed: false },
        "PostToolUseFailure" => return Class::Post { failed: true },
        "UserPromptSubmit" if !is_notice(kind, r.event()) => return Class::Prompt,
        "Stop" | "SubagentStop" => return Class::Stop,
        _ => {}
    }
    match (r.phase(), kind) {
        (Some(Phase::Gate), _) => Class::Pre,
        (Some(Phase::Stop), _) => Class::Stop,
        (_, Some(EventKind::ErrorTool)) => Class::Post { failed: true },
        (Some(Phase::Advance), Some(EventKind::Tool | EventKind::Skill)) => {
            Class::Post { failed: false }
        }
        (_, Some(EventKind::Prompt | EventKind::Command)) if !is_notice(kind, r.event()) => {
            Class::Prompt
        }
        _ => Class::Lifecycle,
    }
}

/// Claude Code's own notice sent as a prompt (a background task finished): an event row, not
/// a prompt. A lite record of an older log still calls it a prompt; its name tells.
fn is_notice(kind: Option<EventKind>, ev: Option<(EventKind, &str)>) -> bool {
    kind == Some(EventKind::Lifecycle)
        || ev.is_some_and(|(_, name)| crate::engine::event::is_system_notification(name))
}

pub fn gate_of<R: Rec + ?Sized>(r: &R) -> Gate {
    match r.verdict() {
        None => Gate::Unknown,
        Some(v) if v.blocks => Gate::Deny,
        Some(v) if v.warning || v.ask => Gate::Advise,
        Some(_) => Gate::Allow,
    }
}

pub fn non_empty(s: &str, default: &str) -> String {
    if s.is_empty() {
        default.into()
    } else {
        s.into()
    }
}

/// The dotted name the chart uses (`starlog.orient`); a skill as the tool the agent called,
/// `Skill` (the row's detail names the skill). Raw: the interner sanitizes it once.
pub fn call_name(kind: EventKind, name: &str) -> Cow<'_, str> {
    match kind {
        EventKind::Skill => Cow::Borrowed("Skill"),
        // As the agent calls it (`mcp__starlog__orient`), as every other region spells it.
        EventKind::Tool if name.contains('.') => Cow::Owned(super::common::as_called(name)),
        _ => Cow::Borrowed(name),
    }
}
