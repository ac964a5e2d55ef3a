//! MCP tool names as Claude Code spells them, and the canonical `server.tool` seed matches on.
//!
//! Claude Code names a tool of a server configured in `.mcp.json` or the user settings
//! `mcp__<server>__<tool>`, and a tool of a server a plugin ships
//! `mcp__plugin_<plugin>_<server>__<tool>`. Both are the same `server.tool` to a sequence, so a
//! pattern written either way matches a call made either way; the plugin is kept apart so
//! seed can name the tool back the way the agent sees it.

use std::collections::BTreeMap;

/// A Claude Code MCP tool name taken apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpName<'a> {
    /// The plugin that ships the server, for `mcp__plugin_<plugin>_<server>__<tool>`.
    pub plugin: Option<&'a str>,
    pub server: &'a str,
    pub tool: &'a str,
}

/// `mcp__server__tool` or `mcp__plugin_<plugin>_<server>__tool`; `None` for anything else.
///
/// Server and tool are joined with `__` (splitting on `_` breaks real names). Plugin names are
/// kebab-case, so the plugin ends at the first `_` after `plugin_`; a server whose own name
/// starts with `plugin_` is read as a plugin's (Claude Code gives no other way to tell).
pub fn split_mcp(raw: &str) -> Option<McpName<'_>> {
    let rest = raw.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    if server.is_empty() {
        return None;
    }
    if let Some((plugin, inner)) = server
        .strip_prefix("plugin_")
        .and_then(|p| p.split_once('_'))
        .filter(|(p, s)| !p.is_empty() && !s.is_empty())
    {
        return Some(McpName {
            plugin: Some(plugin),
            server: inner,
            tool,
        });
    }
    Some(McpName {
        plugin: None,
        server,
        tool,
    })
}

/// Why `name` cannot be an MCP server name in an alias (`None` when it can): empty, spaces or
/// control characters, a `.` or `__` (either would split a tool name in the wrong place), or
/// glob characters (aliases are exact names).
pub fn server_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("a server name must not be empty")
    } else if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("a server name has no spaces or control characters")
    } else if name.contains('.') || name.contains("__") {
        Some("a server name has no `.` or `__` (they separate server and tool)")
    } else if name.contains(['*', '?', '[', ']', '|', '(', ')']) {
        Some("a server name is exact: no glob or pattern characters")
    } else {
        None
    }
}

/// `mcp__server__tool` and `mcp__plugin_<p>_server__tool` → `server.tool`; anything else is
/// kept exactly (case, hyphens, underscores).
pub fn canonical_tool_name(raw: &str) -> String {
    match split_mcp(raw) {
        Some(n) => format!("{}.{}", n.server, n.tool),
        None => raw.to_string(),
    }
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

/// `server.tool` as a plugin's server spells it: `mcp__plugin_<plugin>_<server>__<tool>`.
pub fn plugin_tool_name(plugin: &str, canonical: &str) -> String {
    match canonical.split_once('.') {
        Some((server, tool)) if !server.is_empty() && !tool.is_empty() => {
            format!("mcp__plugin_{plugin}_{server}__{tool}")
        }
        _ => canonical.to_string(),
    }
}

/// A call as the agent can make it in this session: `mcp__server__tool…` becomes
/// `mcp__plugin_<p>_server__tool…` when the session's calls showed that `server` comes from
/// plugin `p` (`plugins`: server → plugin, see [`note_spelling`]). Anything else, including
/// input after the name (`mcp__s__t(stage="x")`), is kept.
pub fn spell_as_seen(tool: &str, plugins: &BTreeMap<String, String>) -> String {
    if plugins.is_empty() {
        return tool.to_string();
    }
    match split_mcp(tool) {
        Some(McpName {
            plugin: None,
            server,
            ..
        }) => match plugins.get(server) {
            Some(p) => format!("mcp__plugin_{p}_{}", &tool["mcp__".len()..]),
            None => tool.to_string(),
        },
        _ => tool.to_string(),
    }
}

/// A call as the agent can make it in this session: a tool the sequence names on any server
/// (`odyssean_anchor(stage="init")`) on the server the session reached it through
/// (`servers`: tool → server), then as `spell_as_seen` spells its server.
pub fn spell_seen(
    tool: &str,
    servers: &BTreeMap<String, String>,
    plugins: &BTreeMap<String, String>,
) -> String {
    let head = &tool[..tool.find('(').unwrap_or(tool.len())];
    let on_server = match servers.get(head) {
        Some(server) if !head.contains('.') && !head.starts_with("mcp__") => {
            format!("mcp__{server}__{tool}")
        }
        _ => tool.to_string(),
    };
    spell_as_seen(&on_server, plugins)
}

/// Remember how the agent's tools of a server are spelled, from a call it made: a plugin's
/// name for the server, or none (the newest call decides, so a server configured both ways is
/// named as last used). `canonical` is the event's name, `plugin` its plugin.
pub fn note_spelling(
    plugins: &mut BTreeMap<String, String>,
    canonical: &str,
    plugin: Option<&str>,
) {
    let Some((server, _)) = canonical.split_once('.') else {
        return;
    };
    match plugin {
        Some(p) if plugins.get(server).map(String::as_str) != Some(p) => {
            plugins.insert(server.to_string(), p.to_string());
        }
        Some(_) => {}
        None => {
            plugins.remove(server);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugin_servers_split_after_the_plugin_name() {
        assert_eq!(
            split_mcp("mcp__plugin_seed_seed__who_am_i"),
            Some(McpName {
                plugin: Some("seed"),
                server: "seed",
                tool: "who_am_i"
            })
        );
        assert_eq!(
            split_mcp("mcp__plugin_my-tools_byterover_mcp__store"),
            Some(McpName {
                plugin: Some("my-tools"),
                server: "byterover_mcp",
                tool: "store"
            }),
            "the plugin is kebab-case; the server keeps its underscores"
        );
        assert_eq!(
            canonical_tool_name("mcp__plugin_seed_seed__who_am_i"),
            "seed.who_am_i"
        );
        // Not a plugin's: no server after the plugin name.
        assert_eq!(canonical_tool_name("mcp__plugin_seed__x"), "plugin_seed.x");
        assert_eq!(canonical_tool_name("mcp____x"), "mcp____x");
        assert_eq!(canonical_tool_name("Bash"), "Bash");
    }

    #[test]
    fn calls_are_spelled_as_the_session_showed_them() {
        let mut plugins = BTreeMap::new();
        assert_eq!(
            spell_as_seen("mcp__seed__what_do_i_do", &plugins),
            "mcp__seed__what_do_i_do",
            "no evidence of a plugin: the plain form"
        );
        note_spelling(&mut plugins, "seed.who_am_i", Some("seed"));
        assert_eq!(
            spell_as_seen("mcp__seed__what_do_i_do", &plugins),
            "mcp__plugin_seed_seed__what_do_i_do"
        );
        assert_eq!(
            spell_as_seen("mcp__seed__status(session=\"a\")", &plugins),
            "mcp__plugin_seed_seed__status(session=\"a\")"
        );
        for kept in [
            "mcp__starlog__orient",
            "mcp__plugin_other_seed__x",
            "Bash",
            "Skill(skill=\"x\")",
            "odyssean_anchor(stage=\"init\")",
        ] {
            assert_eq!(spell_as_seen(kept, &plugins), kept);
        }
        note_spelling(&mut plugins, "Bash", None);
        assert_eq!(plugins.len(), 1, "built-in tools say nothing about servers");
        note_spelling(&mut plugins, "seed.status", None);
        assert!(plugins.is_empty(), "the newest call's form wins");
        assert_eq!(
            plugin_tool_name("seed", "seed.status"),
            "mcp__plugin_seed_seed__status"
        );
    }
}
