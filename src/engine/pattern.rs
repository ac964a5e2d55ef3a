//! Event patterns: `[kind:]glob` alternatives separated by `|`, each with optional input matchers
//! written `Name(/pointer=glob, …)` (or `Bash(git clone*)`, which matches `/command`).
//!
//! Globs are matched case-sensitively against the canonical name (`server.tool` for MCP tools),
//! and a pattern written the Claude Code way (`mcp__server__tool`) is canonicalized first, so
//! both spellings name the same tool.
//!
//! This file holds the pattern and what it says about itself; `text` parses and prints it,
//! `matching` matches events against it.

mod matching;
mod text;

use super::event::{EventKind, canonical_tool_name};
use super::ir::InputMatcher;

pub use matching::input_matches;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Alt {
    /// `None`: matches tool, skill and command events.
    pub kind: Option<EventKind>,
    pub glob: String,
    pub input: Vec<(String, InputMatcher)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pattern {
    pub alts: Vec<Alt>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid pattern `{pattern}`: {reason}")]
pub struct PatternError {
    pub pattern: String,
    pub reason: String,
}

impl Pattern {
    /// A pattern that matches exactly one tool name (no glob characters are interpreted).
    pub fn exact_tool(name: &str) -> Pattern {
        Pattern {
            alts: vec![Alt {
                kind: None,
                glob: escape_glob(&canonical_tool_name(name)),
                input: Vec::new(),
            }],
        }
    }

    pub fn with_input(mut self, pointer: &str, matcher: InputMatcher) -> Pattern {
        for a in &mut self.alts {
            a.input.push((pointer.to_string(), matcher.clone()));
        }
        self
    }

    pub fn needs_input(&self) -> bool {
        self.alts.iter().any(|a| !a.input.is_empty())
    }

    /// A human-readable call for recovery text: `starlog.orient`, `odyssean_anchor(stage="init")`.
    pub fn describe_call(&self) -> String {
        let a = &self.alts[0];
        let mut name = any_server_tool(&a.glob).unwrap_or(&a.glob).to_string();
        if let Some(k) = a.kind
            && !k.is_action()
        {
            name = format!("{}:{}", k.as_str(), name);
        }
        if a.kind == Some(EventKind::Command) {
            name = format!("/{}", a.glob);
        }
        if a.kind == Some(EventKind::Skill) {
            name = format!("Skill(skill=\"{}\")", a.glob);
        }
        if a.input.is_empty() {
            return name;
        }
        let args: Vec<String> = a
            .input
            .iter()
            .map(|(ptr, m)| {
                let key = ptr.trim_start_matches('/').replace('/', ".");
                match m {
                    InputMatcher::Glob(g) => format!("{key}=\"{g}\""),
                    InputMatcher::Equals(v) => format!("{key}={v}"),
                    InputMatcher::Present => format!("{key}=…"),
                }
            })
            .collect();
        format!("{name}({})", args.join(", "))
    }

    /// Whether the pattern contains glob characters (it names a family, not one tool).
    pub fn is_glob(&self) -> bool {
        self.alts.iter().any(|a| a.glob.contains(['*', '?']))
    }

    /// A bare `*`: any tool call, whatever its input (seed 001's BOUND `*`).
    pub fn is_any_call(&self) -> bool {
        self.alts.iter().any(|a| {
            a.glob.chars().all(|c| c == '*')
                && a.input.is_empty()
                && matches!(a.kind, None | Some(EventKind::Tool))
        })
    }

    /// Every alternative of `other` is one of this pattern's (a tool written with or without
    /// `tool:` alike): the calls `other` names, this one names too.
    pub fn covers(&self, other: &Pattern) -> bool {
        let tool = |k: Option<EventKind>| k.unwrap_or(EventKind::Tool);
        other.alts.iter().all(|o| {
            self.alts
                .iter()
                .any(|a| a.glob == o.glob && a.input == o.input && tool(a.kind) == tool(o.kind))
        })
    }
}

/// `*.odyssean_anchor` (any MCP server) → `odyssean_anchor`: the tool is called the same on
/// whichever server provides it, and `mcp__*__odyssean_anchor` is not a name anyone can call.
pub fn any_server_tool(glob: &str) -> Option<&str> {
    let (server, tool) = glob.split_once('.')?;
    (server.contains(['*', '?']) && !tool.is_empty() && !tool.contains(['*', '?'])).then_some(tool)
}

fn escape_glob(name: &str) -> String {
    // wildmatch has no escape syntax; tool names never contain `*` or `?`, so exact names are
    // kept as they are.
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::Event;
    use serde_json::{Value, json};
    use std::collections::BTreeMap;

    fn no_alias() -> BTreeMap<String, String> {
        BTreeMap::new()
    }

    #[test]
    fn both_spellings_name_the_same_tool() {
        let ev = Event::tool("mcp__starlog__orient", Value::Null);
        for p in [
            "starlog.orient",
            "mcp__starlog__orient",
            "starlog.*",
            "mcp__starlog__*",
            "tool:starlog.orient",
        ] {
            assert!(Pattern::parse(p).unwrap().matches(&ev, &no_alias()), "{p}");
        }
        assert!(
            !Pattern::parse("starlog.check")
                .unwrap()
                .matches(&ev, &no_alias())
        );
        assert!(
            !Pattern::parse("Starlog.orient")
                .unwrap()
                .matches(&ev, &no_alias()),
            "case kept"
        );
    }

    /// Claude Code renamed `Task` to `Agent` and the shell killers to `TaskStop`; its matchers
    /// take either name, and so do a sequence's patterns, for calls and failed calls alike.
    #[test]
    fn renamed_built_in_tools_match_under_either_name() {
        let matches = |p: &str, ev: &Event| Pattern::parse(p).unwrap().matches(ev, &no_alias());
        let agent = Event::tool("Agent", json!({"subagent_type": "Explore"}));
        let task = Event::tool("Task", json!({"subagent_type": "Explore"}));
        for ev in [&agent, &task] {
            assert!(matches("Task", ev) && matches("Agent", ev), "{}", ev.name);
            assert!(matches("Task(subagent_type=Explore)", ev));
            assert!(!matches("Task(subagent_type=Plan)", ev));
        }
        assert!(matches("KillShell", &Event::tool("TaskStop", Value::Null)));
        assert!(matches("TaskStop", &Event::tool("KillBash", Value::Null)));
        let failed = Pattern::parse("Task").unwrap();
        assert!(failed.matches_error(&Event::tool_error("Agent", Value::Null), &no_alias()));
        // Only tools: a tool merely starting with the name is another tool, and a skill named
        // like the old tool is not the new one.
        assert!(!matches("Task", &Event::tool("TaskCreate", Value::Null)));
        assert!(!matches(
            "Agent",
            &Event::tool("Skill", json!({"skill": "Task"}))
        ));
    }

    #[test]
    fn a_plugins_server_matches_patterns_written_for_the_server() {
        let ev = Event::tool("mcp__plugin_seed_seed__who_am_i", Value::Null);
        for p in [
            "seed.who_am_i",
            "mcp__seed__who_am_i",
            "seed.*",
            "mcp__plugin_seed_seed__who_am_i",
            "tool:mcp__plugin_seed_seed__*",
        ] {
            assert!(Pattern::parse(p).unwrap().matches(&ev, &no_alias()), "{p}");
        }
        assert!(
            Pattern::parse("mcp__plugin_seed_seed__who_am_i")
                .unwrap()
                .matches(
                    &Event::tool("mcp__seed__who_am_i", Value::Null),
                    &no_alias()
                ),
            "and the plugin form names the plain one"
        );
        assert!(
            !Pattern::parse("plugin_seed_seed.who_am_i")
                .unwrap()
                .matches(&ev, &no_alias())
        );
    }

    #[test]
    fn hyphens_and_underscores_are_kept() {
        let ev = Event::tool("mcp__byterover-mcp__byterover-store-knowledge", Value::Null);
        assert!(
            Pattern::parse("byterover-mcp.*")
                .unwrap()
                .matches(&ev, &no_alias())
        );
        assert!(
            !Pattern::parse("byterover_mcp.*")
                .unwrap()
                .matches(&ev, &no_alias())
        );
        let heaven = Event::tool("mcp__heaven-subagent__spawn", Value::Null);
        assert!(
            Pattern::parse("heaven-subagent.*")
                .unwrap()
                .matches(&heaven, &no_alias())
        );
    }

    #[test]
    fn any_server_calls_are_described_by_tool_name() {
        let p = Pattern::parse("mcp__*__odyssean_anchor(stage=init)").unwrap();
        assert_eq!(p.describe_call(), "odyssean_anchor(stage=\"init\")");
        assert_eq!(any_server_tool("starlog.orient"), None);
        assert_eq!(any_server_tool("*.*"), None);
    }

    #[test]
    fn any_server_wildcard() {
        let ev = Event::tool("mcp__hestai__odyssean_anchor", json!({"stage": "init"}));
        let p = Pattern::parse("mcp__*__odyssean_anchor(stage=init)").unwrap();
        assert!(p.matches(&ev, &no_alias()));
        let p2 = Pattern::parse("*.odyssean_anchor(stage=bind)").unwrap();
        assert!(!p2.matches(&ev, &no_alias()));
    }

    #[test]
    fn kinds() {
        let skill = Event::tool("Skill", json!({"skill": "hope:intent"}));
        let cmd = Event::prompt("/hope:intent now");
        let bare = Pattern::parse("hope:intent").unwrap();
        assert!(bare.matches(&skill, &no_alias()) && bare.matches(&cmd, &no_alias()));
        assert!(
            !Pattern::parse("/hope:intent")
                .unwrap()
                .matches(&skill, &no_alias())
        );
        assert!(
            Pattern::parse("tool:Skill")
                .unwrap()
                .matches(&skill, &no_alias())
        );
        let err = Event::tool_error("Edit", Value::Null);
        assert!(!Pattern::parse("Edit").unwrap().matches(&err, &no_alias()));
        assert!(
            Pattern::parse("Edit")
                .unwrap()
                .matches_error(&err, &no_alias())
        );
        assert!(
            Pattern::parse("error.tool:Edit")
                .unwrap()
                .matches(&err, &no_alias())
        );
    }

    #[test]
    fn bash_command_rule_form() {
        let ev = Event::tool("Bash", json!({"command": "git clone https://x"}));
        assert!(
            Pattern::parse("Bash(git clone*)")
                .unwrap()
                .matches(&ev, &no_alias())
        );
        assert!(
            !Pattern::parse("Bash(npm *)")
                .unwrap()
                .matches(&ev, &no_alias())
        );
    }

    #[test]
    fn aliases() {
        let mut al = BTreeMap::new();
        al.insert("seed".to_string(), "seed-mcp".to_string());
        let ev = Event::tool("mcp__seed-mcp__status", Value::Null);
        assert!(Pattern::parse("seed.status").unwrap().matches(&ev, &al));
    }

    #[test]
    fn round_trip_display() {
        for p in [
            "starlog.orient",
            "/hope:intent",
            "skill:hope:*",
            "a|b.*",
            "x(/stage=init)",
        ] {
            let parsed = Pattern::parse(p).unwrap();
            assert_eq!(Pattern::parse(&parsed.to_string()).unwrap(), parsed);
        }
        assert!(Pattern::parse("").is_err());
        assert!(Pattern::parse("a||b").is_err());
        assert!(Pattern::parse("x(").is_err());
    }
}
