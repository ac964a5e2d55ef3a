//! Whether an event matches a pattern: its kind, its name (either spelling, through the
//! chart's server aliases) and the input matchers on its input.

use std::collections::BTreeMap;

use serde_json::Value;
use wildmatch::WildMatch;

use super::{Alt, Pattern};
use crate::engine::event::{Event, EventKind};
use crate::engine::ir::InputMatcher;

impl Pattern {
    /// Does the event match? `default_kinds` applies to alternatives written without a kind.
    pub fn matches_with(
        &self,
        ev: &Event,
        aliases: &BTreeMap<String, String>,
        default_kinds: &[EventKind],
    ) -> bool {
        self.alts
            .iter()
            .any(|a| a.matches(ev, aliases, default_kinds))
    }

    /// Match as an action trigger (tool / skill / command by default).
    pub fn matches(&self, ev: &Event, aliases: &BTreeMap<String, String>) -> bool {
        self.matches_with(
            ev,
            aliases,
            &[EventKind::Tool, EventKind::Skill, EventKind::Command],
        )
    }

    /// Match an `error.*` trigger: alternatives without a kind match failed tool calls.
    pub fn matches_error(&self, ev: &Event, aliases: &BTreeMap<String, String>) -> bool {
        self.matches_with(ev, aliases, &[EventKind::ErrorTool])
    }

    /// Does this pattern name the given tool (ignoring input matchers)? Used for policies.
    pub fn names_tool(&self, ev: &Event, aliases: &BTreeMap<String, String>) -> bool {
        self.alts.iter().any(|a| {
            let stripped = Alt {
                input: Vec::new(),
                ..a.clone()
            };
            stripped.matches(
                ev,
                aliases,
                &[EventKind::Tool, EventKind::Skill, EventKind::Command],
            )
        })
    }
}

impl Alt {
    fn matches(
        &self,
        ev: &Event,
        aliases: &BTreeMap<String, String>,
        default_kinds: &[EventKind],
    ) -> bool {
        let kind_ok = match self.kind {
            Some(k) => {
                k == ev.kind
                    // The Skill tool is also a tool call: `tool:Skill` matches `skill:x`.
                    || (k == EventKind::Tool && ev.kind == EventKind::Skill && self.glob_matches("Skill"))
            }
            None => default_kinds.contains(&ev.kind),
        };
        if !kind_ok {
            return false;
        }
        let name_ok = if self.kind == Some(EventKind::Tool) && ev.kind == EventKind::Skill {
            true
        } else {
            self.glob_matches(&ev.name)
                || aliased_names(&ev.name, aliases)
                    .iter()
                    .any(|n| self.glob_matches(n))
                || (matches!(ev.kind, EventKind::Tool | EventKind::ErrorTool)
                    && renamed_tool(&ev.name).iter().any(|n| self.glob_matches(n)))
        };
        name_ok
            && self
                .input
                .iter()
                .all(|(ptr, m)| input_matches(&ev.input, ptr, m))
    }

    fn glob_matches(&self, name: &str) -> bool {
        if !self.glob.contains(['*', '?']) {
            return self.glob == name;
        }
        WildMatch::new(&self.glob).matches(name)
    }
}

/// Names under which the event is also known through the chart's aliases
/// (`alias → actual server`): `seed-mcp.status` is also `seed.status` when `seed → seed-mcp`.
fn aliased_names(name: &str, aliases: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for (alias, actual) in aliases {
        let actual = canonical_server(actual);
        if let Some(rest) = name.strip_prefix(&actual).and_then(|r| r.strip_prefix('.')) {
            out.push(format!("{alias}.{rest}"));
        }
    }
    out
}

/// Claude Code's built-in tools that were renamed, as its own matchers and permission rules
/// accept them: a sequence written for either name matches calls under the other (`Task`
/// became `Agent` in 2.1; the shell-killing tools became `TaskStop`).
const RENAMED_TOOLS: &[&[&str]] = &[&["Agent", "Task"], &["TaskStop", "KillShell", "KillBash"]];

fn renamed_tool(name: &str) -> &'static [&'static str] {
    RENAMED_TOOLS
        .iter()
        .find(|names| names.contains(&name))
        .copied()
        .unwrap_or(&[])
}

fn canonical_server(s: &str) -> String {
    s.strip_prefix("mcp__")
        .unwrap_or(s)
        .trim_end_matches('_')
        .to_string()
}

pub fn input_matches(input: &Value, pointer: &str, m: &InputMatcher) -> bool {
    let v = input.pointer(pointer);
    match (m, v) {
        (InputMatcher::Present, v) => v.is_some_and(|v| !v.is_null()),
        (InputMatcher::Equals(want), Some(v)) => want == v,
        (InputMatcher::Glob(g), Some(v)) => {
            let s = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            WildMatch::new(g).matches(&s)
        }
        (_, None) => false,
    }
}
