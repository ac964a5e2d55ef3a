//! Normalized events: `kind:name` plus the input that produced them (ARCHITECTURE §3).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::tool_name::{canonical_tool_name, claude_tool_name};
use super::tool_name::{note_spelling, plugin_tool_name, split_mcp};

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

/// Records are read through [`RawEvent`], so a name written as Claude Code spells it (by an
/// older seed, another tool or a hand) steps exactly like the hook's own normalized one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "RawEvent")]
pub struct Event {
    pub kind: EventKind,
    pub name: String,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub input: Value,
    /// The plugin that ships the MCP server, for a tool Claude Code named
    /// `mcp__plugin_<plugin>_<server>__<tool>` (the name is `server.tool`). A field of its own,
    /// not a key of `input`: input matchers, the Bash rule form and denial counts see only the
    /// tool's own arguments, and a tool may well take an argument called `plugin`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// The tool's result (PostToolUse's `tool_response`, bounded and redacted by the host);
    /// `null` for every other event. `store_as` in workflows keeps it.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub response: Value,
}

/// An event as stored, before its name is normalized.
#[derive(Deserialize)]
struct RawEvent {
    kind: EventKind,
    name: String,
    #[serde(default)]
    input: Value,
    #[serde(default)]
    plugin: Option<String>,
    #[serde(default)]
    response: Value,
}

impl From<RawEvent> for Event {
    fn from(r: RawEvent) -> Event {
        let mut e = match r.kind {
            EventKind::Tool => Event::tool_owned(r.name, r.input),
            EventKind::ErrorTool => Event::tool_owned(r.name, r.input).failed(),
            // An older seed recorded a notification as a prompt: read it as the hook now does.
            EventKind::Prompt if is_system_notification(prompt_text(&r.name, &r.input)) => {
                Event::system_notification(prompt_text(&r.name, &r.input))
            }
            kind => Event {
                kind,
                name: r.name,
                input: r.input,
                plugin: None,
                response: Value::Null,
            },
        };
        if e.plugin.is_none() && e.name.contains('.') {
            e.plugin = r.plugin;
        }
        e.response = r.response;
        e
    }
}

/// Longest error text a failed call's event keeps.
pub const ERROR_CHARS: usize = 300;

/// Longest prompt text kept in an event name; the full prompt stays in the input.
const PROMPT_NAME_CHARS: usize = 200;

/// The event's name for Claude Code's notices that arrive as a prompt.
pub const SYSTEM_NOTIFICATION: &str = "SystemNotification";

/// Claude Code's own notice arriving through UserPromptSubmit, not typed by the user: a
/// background task finished (`<task-notification>…`), or any `[SYSTEM NOTIFICATION - NOT USER
/// INPUT]` text, bare or inside a `<system-reminder>`.
pub fn is_system_notification(text: &str) -> bool {
    let t = text.trim_start();
    let t = t
        .strip_prefix("<system-reminder>")
        .map_or(t, str::trim_start);
    t.starts_with("[SYSTEM NOTIFICATION - NOT USER INPUT]") || t.starts_with("<task-notification>")
}

/// A recorded prompt's whole text: the input's, else the (shortened) name.
fn prompt_text<'a>(name: &'a str, input: &'a Value) -> &'a str {
    input.get("prompt").and_then(Value::as_str).unwrap_or(name)
}

impl Event {
    pub fn new(kind: EventKind, name: impl Into<String>) -> Event {
        Event {
            kind,
            name: name.into(),
            input: Value::Null,
            plugin: None,
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
    /// `mcp__plugin_seed_seed__status` becomes `tool:seed.status` from plugin `seed`, the Skill
    /// tool becomes `skill:<name>`.
    pub fn tool(raw_name: &str, input: Value) -> Event {
        Event::tool_owned(raw_name.to_string(), input)
    }

    fn tool_owned(raw_name: String, input: Value) -> Event {
        if raw_name == "Skill"
            && let Some(skill) = input.get("skill").and_then(Value::as_str)
        {
            let skill = skill.trim_start_matches('/').to_string();
            return Event {
                kind: EventKind::Skill,
                name: skill,
                input,
                plugin: None,
                response: Value::Null,
            };
        }
        let (name, plugin) = match split_mcp(&raw_name) {
            Some(n) => (
                format!("{}.{}", n.server, n.tool),
                n.plugin.map(str::to_string),
            ),
            None => (raw_name, None),
        };
        Event {
            kind: EventKind::Tool,
            name,
            input,
            plugin,
            response: Value::Null,
        }
    }

    /// A failed tool call.
    pub fn tool_error(raw_name: &str, input: Value) -> Event {
        Event::tool(raw_name, input).failed()
    }

    /// A failed tool call with what it failed with (`MCP server "starlog" is not connected`),
    /// kept as its result on one clean line of at most [`ERROR_CHARS`]: recovery, the
    /// guidance line and refusals show it beside the call.
    pub fn tool_failure(raw_name: &str, input: Value, error: Option<&str>) -> Event {
        let error = error
            .map(|e| super::sanitize::clean(e, ERROR_CHARS))
            .filter(|e| !e.is_empty())
            .map(Value::String)
            .unwrap_or(Value::Null);
        Event::tool_error(raw_name, input).with_response(error)
    }

    /// The call this failed one was (a tool event of the same name and input).
    pub fn as_call(&self) -> Event {
        Event {
            kind: match self.kind {
                EventKind::ErrorTool => EventKind::Tool,
                k => k,
            },
            name: self.name.clone(),
            input: self.input.clone(),
            plugin: self.plugin.clone(),
            response: Value::Null,
        }
    }

    fn failed(mut self) -> Event {
        if self.kind == EventKind::Skill {
            self.name = "Skill".into();
        }
        self.kind = EventKind::ErrorTool;
        self
    }

    /// A prompt: `/hope:intent args` becomes `command:hope:intent`, Claude Code's own notice
    /// `lifecycle:SystemNotification` (see [`is_system_notification`]), anything else
    /// `prompt:<text>`.
    pub fn prompt(text: &str) -> Event {
        if is_system_notification(text) {
            return Event::system_notification(text);
        }
        let trimmed = text.trim_start();
        if let Some(rest) = trimmed.strip_prefix('/') {
            let name: String = rest.split_whitespace().next().unwrap_or("").to_string();
            if !name.is_empty() && !name.contains('/') {
                return Event {
                    kind: EventKind::Command,
                    name,
                    input: serde_json::json!({ "prompt": text }),
                    plugin: None,
                    response: Value::Null,
                };
            }
        }
        let name: String = trimmed.chars().take(PROMPT_NAME_CHARS).collect();
        Event {
            kind: EventKind::Prompt,
            name,
            input: serde_json::json!({ "prompt": text }),
            plugin: None,
            response: Value::Null,
        }
    }

    pub fn lifecycle(name: &str) -> Event {
        Event::new(EventKind::Lifecycle, name)
    }

    /// A notice Claude Code sent through UserPromptSubmit (a background task finished): not a
    /// prompt, so no `prompt:*` trigger takes it; a sequence may bind to it by name.
    pub fn system_notification(text: &str) -> Event {
        Event::lifecycle(SYSTEM_NOTIFICATION).with_input(serde_json::json!({ "prompt": text }))
    }

    /// `kind:name`.
    pub fn key(&self) -> String {
        format!("{}:{}", self.kind.as_str(), self.name)
    }

    /// The name Claude Code gave this tool (`mcp__server__tool`,
    /// `mcp__plugin_<p>_<server>__<tool>`, `Skill`): the agent's own spelling.
    pub fn claude_tool_name(&self) -> String {
        match (self.kind, &self.plugin) {
            (EventKind::Skill, _) => "Skill".into(),
            (_, Some(p)) => plugin_tool_name(p, &self.name),
            _ => claude_tool_name(&self.name),
        }
    }

    /// Remember, in a session's `server → plugin` map, how this call spelled its server.
    pub fn note_spelling(&self, plugins: &mut std::collections::BTreeMap<String, String>) {
        if matches!(self.kind, EventKind::Tool | EventKind::ErrorTool) {
            note_spelling(plugins, &self.name, self.plugin.as_deref());
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.kind.as_str(), self.name)
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
    fn plugin_servers_are_the_same_server_and_keep_their_plugin() {
        let e = Event::tool("mcp__plugin_seed_seed__who_am_i", json!({"plugin": "arg"}));
        assert_eq!(e.key(), "tool:seed.who_am_i");
        assert_eq!(e.plugin.as_deref(), Some("seed"));
        assert_eq!(
            e.input,
            json!({"plugin": "arg"}),
            "the tool's own input is untouched"
        );
        assert_eq!(e.claude_tool_name(), "mcp__plugin_seed_seed__who_am_i");
        let failed = Event::tool_error("mcp__plugin_seed_seed__status", Value::Null);
        assert_eq!(
            (failed.key(), failed.claude_tool_name()),
            (
                "error.tool:seed.status".to_string(),
                "mcp__plugin_seed_seed__status".to_string()
            )
        );
        assert_eq!(Event::tool("mcp__seed__status", Value::Null).plugin, None);
    }

    #[test]
    fn stored_events_are_normalized_when_read() {
        let read = |s: &str| serde_json::from_str::<Event>(s).unwrap();
        let cases = [
            (
                r#"{"kind":"tool","name":"mcp__seed__who_am_i"}"#,
                "tool:seed.who_am_i",
            ),
            (
                r#"{"kind":"tool","name":"mcp__plugin_seed_seed__who_am_i"}"#,
                "tool:seed.who_am_i",
            ),
            (
                r#"{"kind":"tool","name":"Skill","input":{"skill":"/hope:intent"}}"#,
                "skill:hope:intent",
            ),
            (
                r#"{"kind":"error.tool","name":"mcp__starlog__orient"}"#,
                "error.tool:starlog.orient",
            ),
            (
                r#"{"kind":"error.tool","name":"Skill","input":{"skill":"x"}}"#,
                "error.tool:Skill",
            ),
            (r#"{"kind":"tool","name":"Skill"}"#, "tool:Skill"),
            (
                r#"{"kind":"tool","name":"starlog.orient"}"#,
                "tool:starlog.orient",
            ),
            (
                r#"{"kind":"prompt","name":"mcp__a__b"}"#,
                "prompt:mcp__a__b",
            ),
        ];
        for (stored, key) in cases {
            assert_eq!(read(stored).key(), key, "{stored}");
        }
        let plugin = read(r#"{"kind":"tool","name":"mcp__plugin_seed_seed__status"}"#);
        assert_eq!(plugin.plugin.as_deref(), Some("seed"));
        // What the hook writes reads back as itself.
        for e in [
            plugin,
            Event::tool("Skill", json!({"skill": "hope:intent"})),
            Event::tool("Bash", json!({"command": "ls"})),
            Event::prompt("/hope:intent go"),
        ] {
            let back = read(&serde_json::to_string(&e).unwrap());
            assert_eq!(back, e);
        }
        let kept = read(r#"{"kind":"tool","name":"seed.status","plugin":"seed"}"#);
        assert_eq!(kept.claude_tool_name(), "mcp__plugin_seed_seed__status");
        let stray = read(r#"{"kind":"tool","name":"Bash","plugin":"seed"}"#);
        assert_eq!(
            stray.plugin, None,
            "only MCP tools come from a plugin's server"
        );
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
