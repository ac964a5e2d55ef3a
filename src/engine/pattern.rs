//! Event patterns: `[kind:]glob` alternatives separated by `|`, each with optional input matchers
//! written `Name(/pointer=glob, …)` (or `Bash(git clone*)`, which matches `/command`).
//!
//! Globs are matched case-sensitively against the canonical name (`server.tool` for MCP tools),
//! and a pattern written the Claude Code way (`mcp__server__tool`) is canonicalized first, so
//! both spellings name the same tool.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use wildmatch::WildMatch;

use super::event::{Event, EventKind, canonical_tool_name};
use super::ir::InputMatcher;

#[derive(Debug, Clone, PartialEq)]
pub struct Alt {
    /// `None`: matches tool, skill and command events.
    pub kind: Option<EventKind>,
    pub glob: String,
    pub input: Vec<(String, InputMatcher)>,
}

#[derive(Debug, Clone, PartialEq)]
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
    pub fn parse(text: &str) -> Result<Pattern, PatternError> {
        let err = |reason: &str| PatternError {
            pattern: text.to_string(),
            reason: reason.into(),
        };
        let mut alts = Vec::new();
        for raw in split_top_level(text, '|') {
            let raw = raw.trim();
            if raw.is_empty() {
                return Err(err("empty alternative"));
            }
            alts.push(parse_alt(raw).map_err(|r| err(&r))?);
        }
        if alts.is_empty() {
            return Err(err("empty pattern"));
        }
        Ok(Pattern { alts })
    }

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

/// `*.odyssean_anchor` (any MCP server) → `odyssean_anchor`: the tool is called the same on
/// whichever server provides it, and `mcp__*__odyssean_anchor` is not a name anyone can call.
pub fn any_server_tool(glob: &str) -> Option<&str> {
    let (server, tool) = glob.split_once('.')?;
    (server.contains(['*', '?']) && !tool.is_empty() && !tool.contains(['*', '?'])).then_some(tool)
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

fn escape_glob(name: &str) -> String {
    // wildmatch has no escape syntax; tool names never contain `*` or `?`, so exact names are
    // kept as they are.
    name.to_string()
}

/// Split on `sep` outside parentheses.
fn split_top_level(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn parse_alt(raw: &str) -> Result<Alt, String> {
    let (head, args) = match raw.find('(') {
        Some(i) => {
            if !raw.ends_with(')') {
                return Err("unclosed `(`".into());
            }
            (&raw[..i], Some(&raw[i + 1..raw.len() - 1]))
        }
        None => (raw, None),
    };
    let head = head.trim();
    let (kind, glob) = if let Some(cmd) = head.strip_prefix('/') {
        (Some(EventKind::Command), cmd.to_string())
    } else {
        match head.split_once(':') {
            // `error.tool:Edit`, `skill:hope:intent`; but `hope:intent` keeps its colon.
            Some((k, rest)) if EventKind::parse(k).is_some() && !rest.is_empty() => {
                (EventKind::parse(k), rest.to_string())
            }
            _ => (None, head.to_string()),
        }
    };
    if glob.is_empty() {
        return Err("missing name".into());
    }
    if glob.chars().any(|c| c.is_whitespace()) && kind != Some(EventKind::Prompt) {
        return Err("names cannot contain spaces".into());
    }
    let glob = match kind {
        None | Some(EventKind::Tool) | Some(EventKind::ErrorTool) => canonical_glob(&glob),
        _ => glob,
    };
    let mut input = Vec::new();
    if let Some(args) = args {
        for part in split_top_level(args, ',') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            match part.split_once('=') {
                Some((k, v)) => {
                    let k = k.trim();
                    let ptr = if k.starts_with('/') {
                        k.to_string()
                    } else {
                        format!("/{k}")
                    };
                    input.push((ptr, InputMatcher::Glob(unquote(v.trim()).to_string())));
                }
                // Claude Code's permission-rule form: `Bash(git clone*)` matches the command.
                None => input.push(("/command".into(), InputMatcher::Glob(unquote(part).into()))),
            }
        }
    }
    Ok(Alt { kind, glob, input })
}

/// `mcp__github__*` → `github.*`, `mcp__*__odyssean_anchor` → `*.odyssean_anchor`,
/// `mcp__plugin_seed_seed__status` → `seed.status` (a plugin's server is the same server).
fn canonical_glob(glob: &str) -> String {
    canonical_tool_name(glob)
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s)
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .alts
            .iter()
            .map(|a| {
                let mut s = match a.kind {
                    Some(EventKind::Command) => format!("/{}", a.glob),
                    Some(k) => format!("{}:{}", k.as_str(), a.glob),
                    None => a.glob.clone(),
                };
                if !a.input.is_empty() {
                    let args: Vec<String> = a
                        .input
                        .iter()
                        .map(|(p, m)| match m {
                            InputMatcher::Glob(g) => format!("{p}={g}"),
                            InputMatcher::Equals(v) => format!("{p}={v}"),
                            InputMatcher::Present => format!("{p}=*"),
                        })
                        .collect();
                    s.push_str(&format!("({})", args.join(",")));
                }
                s
            })
            .collect();
        f.write_str(&parts.join("|"))
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Pattern::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
