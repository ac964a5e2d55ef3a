//! Normalized events: `kind:name` plus the input that produced them (ARCHITECTURE §3).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A tool call (`tool:Bash`, `tool:starlog.orient`).
    Tool,
    /// The Skill tool with `input.skill` (`skill:hope:intent`); also matches `tool:Skill`.
    Skill,
    /// A `/command` prompt (`command:hope:intent`).
    Command,
    /// Any other prompt; the name is the prompt text (shortened).
    Prompt,
    /// SessionStart, Stop, SubagentStart, PreCompact…
    Lifecycle,
    /// A failed tool call (`error.tool:Edit`).
    #[serde(rename = "error.tool")]
    ErrorTool,
    /// Engine-internal: a compound or parallel state reached its final state.
    #[serde(rename = "done.state")]
    Done,
    /// Engine-internal: a choice had no enabled branch.
    #[serde(rename = "error.choice")]
    ErrorChoice,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Tool => "tool",
            EventKind::Skill => "skill",
            EventKind::Command => "command",
            EventKind::Prompt => "prompt",
            EventKind::Lifecycle => "lifecycle",
            EventKind::ErrorTool => "error.tool",
            EventKind::Done => "done.state",
            EventKind::ErrorChoice => "error.choice",
        }
    }

    pub fn parse(s: &str) -> Option<EventKind> {
        Some(match s {
            "tool" => EventKind::Tool,
            "skill" => EventKind::Skill,
            "command" => EventKind::Command,
            "prompt" => EventKind::Prompt,
            "lifecycle" => EventKind::Lifecycle,
            "error.tool" | "error" => EventKind::ErrorTool,
            "done.state" | "done" => EventKind::Done,
            "error.choice" => EventKind::ErrorChoice,
            _ => return None,
        })
    }

    /// Kinds that name something the agent does with a tool, skill or command.
    pub fn is_action(self) -> bool {
        matches!(
            self,
            EventKind::Tool | EventKind::Skill | EventKind::Command
        )
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub kind: EventKind,
    pub name: String,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub input: Value,
    /// The tool's result (PostToolUse's `tool_response`, bounded and redacted by the host);
    /// `null` for every other event. `store_as` in workflows keeps it.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub response: Value,
}

/// Longest prompt text kept in an event name; the full prompt stays in the input.
const PROMPT_NAME_CHARS: usize = 200;

impl Event {
    pub fn new(kind: EventKind, name: impl Into<String>) -> Event {
        Event {
            kind,
            name: name.into(),
            input: Value::Null,
            response: Value::Null,
        }
    }

    pub fn with_input(mut self, input: Value) -> Event {
        self.input = input;
        self
    }

    pub fn with_response(mut self, response: Value) -> Event {
        self.response = response;
        self
    }

    /// A tool call as Claude Code names it: `mcp__starlog__orient` becomes `tool:starlog.orient`,
    /// the Skill tool becomes `skill:<name>`.
    pub fn tool(raw_name: &str, input: Value) -> Event {
        if raw_name == "Skill"
            && let Some(skill) = input.get("skill").and_then(Value::as_str)
        {
            let skill = skill.trim_start_matches('/').to_string();
            return Event {
                kind: EventKind::Skill,
                name: skill,
                input,
                response: Value::Null,
            };
        }
        Event {
            kind: EventKind::Tool,
            name: canonical_tool_name(raw_name),
            input,
            response: Value::Null,
        }
    }

    /// A failed tool call.
    pub fn tool_error(raw_name: &str, input: Value) -> Event {
        let mut e = Event::tool(raw_name, input);
        if e.kind == EventKind::Skill {
            e.name = "Skill".into();
        }
        e.kind = EventKind::ErrorTool;
        e
    }

    /// A prompt: `/hope:intent args` becomes `command:hope:intent`, anything else `prompt:<text>`.
    pub fn prompt(text: &str) -> Event {
        let trimmed = text.trim_start();
        if let Some(rest) = trimmed.strip_prefix('/') {
            let name: String = rest.split_whitespace().next().unwrap_or("").to_string();
            if !name.is_empty() && !name.contains('/') {
                return Event {
                    kind: EventKind::Command,
                    name,
                    input: serde_json::json!({ "prompt": text }),
                    response: Value::Null,
                };
            }
        }
        let name: String = trimmed.chars().take(PROMPT_NAME_CHARS).collect();
        Event {
            kind: EventKind::Prompt,
            name,
            input: serde_json::json!({ "prompt": text }),
            response: Value::Null,
        }
    }

    pub fn lifecycle(name: &str) -> Event {
        Event::new(EventKind::Lifecycle, name)
    }

    /// `kind:name`.
    pub fn key(&self) -> String {
        format!("{}:{}", self.kind.as_str(), self.name)
    }

    /// The name Claude Code would show for this tool (`mcp__server__tool`, `Skill`).
    pub fn claude_tool_name(&self) -> String {
        match self.kind {
            EventKind::Skill => "Skill".into(),
            _ => claude_tool_name(&self.name),
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.kind.as_str(), self.name)
    }
}

/// `mcp__server__tool` → `server.tool`; anything else is kept exactly (case, hyphens, underscores).
/// Claude Code joins server and tool with `__`; splitting there works for every real name,
/// splitting on `_` does not.
pub fn canonical_tool_name(raw: &str) -> String {
    if let Some(rest) = raw.strip_prefix("mcp__")
        && let Some((server, tool)) = rest.split_once("__")
        && !server.is_empty()
    {
        return format!("{server}.{tool}");
    }
    raw.to_string()
}

/// `server.tool` → `mcp__server__tool` for names that look like MCP tools (built-in Claude Code
/// tools never contain a dot).
pub fn claude_tool_name(canonical: &str) -> String {
    match canonical.split_once('.') {
        Some((server, tool)) if !server.is_empty() && !tool.is_empty() => {
            format!("mcp__{server}__{tool}")
        }
        _ => canonical.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mcp_names_become_dotted() {
        assert_eq!(
            Event::tool("mcp__starlog__orient", Value::Null).key(),
            "tool:starlog.orient"
        );
        assert_eq!(
            Event::tool("mcp__byterover-mcp__byterover-store-knowledge", Value::Null).key(),
            "tool:byterover-mcp.byterover-store-knowledge"
        );
        assert_eq!(Event::tool("Bash", Value::Null).key(), "tool:Bash");
        assert_eq!(claude_tool_name("starlog.orient"), "mcp__starlog__orient");
        assert_eq!(claude_tool_name("Bash"), "Bash");
    }

    #[test]
    fn skill_tool_becomes_skill_event() {
        let e = Event::tool("Skill", json!({"skill": "hope:intent"}));
        assert_eq!(e.key(), "skill:hope:intent");
        assert_eq!(e.claude_tool_name(), "Skill");
    }

    #[test]
    fn slash_prompt_becomes_command() {
        assert_eq!(
            Event::prompt("/hope:intent add a cache").key(),
            "command:hope:intent"
        );
        assert_eq!(Event::prompt("please fix it").kind, EventKind::Prompt);
        assert_eq!(Event::prompt("/usr/bin is odd").kind, EventKind::Prompt);
        assert_eq!(
            Event::tool_error("Edit", Value::Null).key(),
            "error.tool:Edit"
        );
    }
}
