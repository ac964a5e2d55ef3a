//! What a call counts as in a mined workflow: Bash by its command's first word (two for
//! programs whose second word is a subcommand: `git status`, `cargo test`), the subagent tool
//! by the subagent's type, a skill by its name, any other tool (MCP tools included) by name.
//! Each activity comes with the pattern a sequence writes to recognise it, so the draft
//! generalizes: `git status -s` and `git status` are one step.

use crate::engine::event::claude_tool_name;
use crate::engine::{Event, EventKind};

/// Programs whose second word names what they do.
const SUBCOMMANDS: &[&str] = &[
    "apt",
    "apt-get",
    "brew",
    "bun",
    "bundle",
    "cargo",
    "composer",
    "dart",
    "deno",
    "docker",
    "dotnet",
    "flutter",
    "gh",
    "git",
    "go",
    "gradle",
    "helm",
    "just",
    "kubectl",
    "make",
    "mix",
    "mvn",
    "npm",
    "npx",
    "pip",
    "pip3",
    "pnpm",
    "poetry",
    "rails",
    "rustup",
    "swift",
    "terraform",
    "uv",
    "yarn",
];

/// Calls allowed anywhere in a draft and left out of the mining: reading, searching and
/// note-taking say little about the workflow and happen everywhere.
pub const NEUTRAL: &[&str] = &[
    "Read",
    "Grep",
    "Glob",
    "LS",
    "NotebookRead",
    "TodoWrite",
    "WebSearch",
    "WebFetch",
    "ToolSearch",
    "BashOutput",
    "TaskList",
    "TaskGet",
    "TaskOutput",
    "seed.*",
];

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Activity {
    /// How it is shown: `Bash(git status)`, `Edit`, `mcp__starlog__check`.
    pub label: String,
    /// The trigger a sequence writes for it.
    pub pattern: String,
    /// How specific the pattern is: more specific ones are tried first from one state, so a
    /// `git status` is not taken by a `git` edge of the same state.
    pub rank: u8,
}

/// The activity a gated call counts as; `None` for a call the draft leaves neutral, and for
/// a name that no pattern can spell safely (it would be refused, and is reported so).
pub fn of(ev: &Event) -> Option<Activity> {
    match ev.kind {
        EventKind::Skill => safe(&ev.name).then(|| Activity {
            label: format!("Skill({})", ev.name),
            pattern: format!("skill:{}", ev.name),
            rank: 1,
        }),
        EventKind::Tool if is_neutral(&ev.name) => None,
        EventKind::Tool if ev.name == "Bash" => Some(bash(command(ev))),
        EventKind::Tool if matches!(ev.name.as_str(), "Agent" | "Task") => Some(agent(ev)),
        EventKind::Tool => {
            let name = claude_tool_name(&ev.name);
            safe(&name).then(|| Activity {
                label: name.clone(),
                pattern: name,
                rank: 1,
            })
        }
        _ => None,
    }
}

/// Whether a call is one the draft leaves neutral.
pub fn is_neutral(tool: &str) -> bool {
    NEUTRAL.iter().any(|n| match n.strip_suffix(".*") {
        Some(server) => tool
            .strip_prefix(server)
            .is_some_and(|t| t.starts_with('.')),
        None => *n == tool,
    })
}

/// Whether a call was left out of the mining for its name (no pattern spells it safely).
pub fn unspellable(ev: &Event) -> bool {
    matches!(ev.kind, EventKind::Tool | EventKind::Skill)
        && !is_neutral(&ev.name)
        && of(ev).is_none()
}

fn command(ev: &Event) -> &str {
    ev.input
        .get("command")
        .and_then(|c| c.as_str())
        .unwrap_or("")
}

fn bash(command: &str) -> Activity {
    let mut words = command.split_whitespace();
    let Some(first) = words.next().filter(|w| safe(w) && !w.starts_with('-')) else {
        return Activity {
            label: "Bash".into(),
            pattern: "Bash".into(),
            rank: 0,
        };
    };
    let program = first.rsplit('/').next().unwrap_or(first);
    let second = words.next().filter(|w| {
        SUBCOMMANDS.contains(&program)
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            && !w.starts_with('-')
    });
    let words = match second {
        Some(s) => format!("{first} {s}"),
        None => first.to_string(),
    };
    Activity {
        label: format!("Bash({words})"),
        pattern: format!("Bash(command={words}) | Bash(command={words} *)"),
        rank: if second.is_some() { 3 } else { 2 },
    }
}

fn agent(ev: &Event) -> Activity {
    match ev.input.get("subagent_type").and_then(|t| t.as_str()) {
        Some(t) if safe(t) => Activity {
            label: format!("Agent({t})"),
            pattern: format!("Agent(subagent_type={t})"),
            rank: 2,
        },
        _ => Activity {
            label: "Agent".into(),
            pattern: "Agent".into(),
            rank: 1,
        },
    }
}

/// Characters a name may have to be written in a pattern and a diagram as it is: no glob
/// characters, quotes, separators or spaces.
fn safe(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.:/@+".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bash_label(cmd: &str) -> String {
        of(&Event::tool("Bash", json!({ "command": cmd })))
            .expect("an activity")
            .label
    }

    #[test]
    fn bash_is_named_by_its_first_words() {
        assert_eq!(bash_label("git status -s"), "Bash(git status)");
        assert_eq!(
            bash_label("cargo test --workspace 2>&1 | tail"),
            "Bash(cargo test)"
        );
        assert_eq!(bash_label("ls -la src"), "Bash(ls)");
        assert_eq!(bash_label("git -C repo log"), "Bash(git)");
        assert_eq!(
            bash_label("./node_modules/.bin/jest x"),
            "Bash(./node_modules/.bin/jest)"
        );
        assert_eq!(bash_label("FOO=1 make"), "Bash");
        assert_eq!(bash_label("  "), "Bash");
        assert_eq!(bash_label("echo \"$(rm -rf /)\""), "Bash(echo)");
    }

    #[test]
    fn other_calls_by_name() {
        let name = |e: Event| of(&e).map(|a| a.label);
        assert_eq!(name(Event::tool("Edit", json!({}))), Some("Edit".into()));
        assert_eq!(name(Event::tool("Read", json!({}))), None, "neutral");
        assert_eq!(name(Event::tool("mcp__seed__status", json!({}))), None);
        assert_eq!(
            name(Event::tool("mcp__starlog__check", json!({}))),
            Some("mcp__starlog__check".into())
        );
        assert_eq!(
            name(Event::tool("Skill", json!({"skill": "hope:intent"}))),
            Some("Skill(hope:intent)".into())
        );
        assert_eq!(
            name(Event::tool("Agent", json!({"subagent_type": "Explore"}))),
            Some("Agent(Explore)".into())
        );
        assert_eq!(name(Event::tool("Task", json!({}))), Some("Agent".into()));
        let odd = Event::tool("mcp__x__a\"b", json!({}));
        assert_eq!(name(odd.clone()), None);
        assert!(unspellable(&odd));
    }
}
