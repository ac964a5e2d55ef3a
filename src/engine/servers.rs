//! The MCP servers a sequence needs, and what the host knows of the servers Claude Code gives
//! the session (`Hosted`, read by the host from Claude Code's configuration and handed in as
//! data). A call is worded as the agent can make it: a tool the sequence names on any server
//! (`odyssean_anchor`) on the server the session used, else the one the configuration points
//! to; and a step whose server the configuration does not provide is said to be unavailable,
//! since Claude Code answers such a call "No such tool available" without any hook.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::event::EventKind;
use super::ir::Trigger;
use super::machine::Machine;
use super::pattern::any_server_tool;
use super::snapshot::Snapshot;
use super::tool_name::split_mcp;

/// An MCP server a sequence's steps call, and the tools they name on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerNeed {
    /// The server as Claude Code knows it (an alias resolved); `None`: any server that
    /// provides the tools (`mcp__*__odyssean_anchor`).
    pub server: Option<String>,
    /// The tools named on it (`*` for a whole-server pattern such as `waypoint.*`).
    pub tools: Vec<String>,
}

/// What the host read of the MCP servers Claude Code gives sessions in this project.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hosted {
    /// Every configured server, by the name its tools carry (`starlog`, a plugin's `seed`).
    pub servers: BTreeSet<String>,
    /// Servers only a plugin provides: server → plugin (`mcp__plugin_<p>_<server>__…`).
    pub plugins: BTreeMap<String, String>,
    /// Tools the settings name exactly on a server (a permission rule
    /// `mcp__anchor__odyssean_anchor`): tool → server.
    pub tools: BTreeMap<String, String>,
}

impl Hosted {
    /// The server that provides `tool`, which the sequence names on any server: the one a
    /// setting names it on, else the only configured server besides seed's own.
    fn server_of(&self, tool: &str) -> Option<&str> {
        if let Some(s) = self.tools.get(tool) {
            return Some(s);
        }
        let mut others = self.servers.iter().filter(|s| s.as_str() != "seed");
        match (others.next(), others.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    }
}

impl Machine {
    /// Tell this machine what the host knows of the session's MCP servers.
    pub fn set_hosted(&mut self, hosted: Hosted) {
        self.hosted = Some(hosted);
    }

    /// The MCP servers the sequence's steps call, each with its tools, in the order the
    /// sequence first names them.
    pub fn server_needs(&self) -> &[ServerNeed] {
        self.needs.get_or_init(|| self.find_needs())
    }

    fn find_needs(&self) -> Vec<ServerNeed> {
        let chart = &self.chart;
        let steps = chart.transitions.iter().filter_map(|t| match &t.trigger {
            Trigger::Event(p) => Some(p),
            _ => None,
        });
        let activities = chart.states.iter().filter_map(|s| s.activity.as_ref());
        let mut needs: Vec<ServerNeed> = Vec::new();
        for alt in steps.chain(activities).flat_map(|p| &p.alts) {
            if !matches!(alt.kind, None | Some(EventKind::Tool)) {
                continue;
            }
            let Some((server, tool)) = alt.glob.split_once('.') else {
                continue;
            };
            let server = match any_server_tool(&alt.glob) {
                Some(_) => None,
                None if server.contains(['*', '?', '[']) => continue,
                None => Some(chart.aliases.get(server).map_or(server, String::as_str)),
            };
            let at = match needs.iter().position(|n| n.server.as_deref() == server) {
                Some(i) => i,
                None => {
                    needs.push(ServerNeed {
                        server: server.map(str::to_string),
                        tools: Vec::new(),
                    });
                    needs.len() - 1
                }
            };
            if !needs[at].tools.iter().any(|t| t == tool) {
                needs[at].tools.push(tool.to_string());
            }
        }
        needs
    }

    /// The tool → server map calls are spelled with: the servers the session reached tools
    /// through, then those the configuration points to.
    pub(crate) fn seen_servers<'s>(&self, snap: &'s Snapshot) -> Cow<'s, BTreeMap<String, String>> {
        let Some(h) = &self.hosted else {
            return Cow::Borrowed(&snap.servers);
        };
        let mut map = snap.servers.clone();
        for need in self.server_needs().iter().filter(|n| n.server.is_none()) {
            for tool in &need.tools {
                if let (false, Some(s)) = (map.contains_key(tool), h.server_of(tool)) {
                    map.insert(tool.clone(), s.to_string());
                }
            }
        }
        Cow::Owned(map)
    }

    /// The server → plugin map calls are spelled with: the session's spellings, then the
    /// servers only a plugin provides.
    pub(crate) fn seen_plugins<'s>(&self, snap: &'s Snapshot) -> Cow<'s, BTreeMap<String, String>> {
        match &self.hosted {
            Some(h) if !h.plugins.is_empty() => {
                let mut map = h.plugins.clone();
                map.extend(snap.plugins.iter().map(|(k, v)| (k.clone(), v.clone())));
                Cow::Owned(map)
            }
            _ => Cow::Borrowed(&snap.plugins),
        }
    }

    /// Why `call` (as worded for the agent: `mcp__starlog__check`, `odyssean_anchor(…)`)
    /// cannot be made in this project: the host knows the configuration and it provides no
    /// server for it. `None` for every other call, and when the host knows nothing.
    pub fn unavailable(&self, snap: &Snapshot, call: &str) -> Option<Unavailable> {
        let hosted = self.hosted.as_ref()?;
        let head = &call[..call.find('(').unwrap_or(call.len())];
        if let Some(n) = split_mcp(head) {
            let used =
                snap.servers.values().any(|s| s == n.server) || snap.plugins.contains_key(n.server);
            return (!hosted.servers.contains(n.server) && !used).then(|| Unavailable {
                tool: head.to_string(),
                server: Some(n.server.to_string()),
            });
        }
        let any_server = self
            .server_needs()
            .iter()
            .any(|n| n.server.is_none() && n.tools.iter().any(|t| t == head));
        // Several servers besides seed's: one of them may provide it, seed cannot tell.
        let none = hosted.servers.iter().all(|s| s == "seed") && !hosted.tools.contains_key(head);
        (any_server && !snap.servers.contains_key(head) && none).then(|| Unavailable {
            tool: head.to_string(),
            server: None,
        })
    }

    /// A text the sequence wrote for the agent, with every tool it names on any server
    /// (`odyssean_anchor(stage="init")`) spelled as the agent can call it, when its server is
    /// known (`mcp__anchor__odyssean_anchor(stage="init")`).
    pub(crate) fn spell_any_server(&self, text: &str, snap: &Snapshot) -> String {
        let servers = self.seen_servers(snap);
        let plugins = self.seen_plugins(snap);
        let mut out = text.to_string();
        for need in self.server_needs().iter().filter(|n| n.server.is_none()) {
            for tool in need.tools.iter().filter(|t| servers.contains_key(*t)) {
                let spelled = super::tool_name::spell_seen(tool, &servers, &plugins);
                out = replace_word(&out, tool, &spelled);
            }
        }
        out
    }
}

/// A call the configuration provides no server for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    /// The tool as named (`mcp__starlog__check`, `odyssean_anchor`).
    pub tool: String,
    /// The server it needs; `None`: a tool named on any server, on none the host can name.
    pub server: Option<String>,
}

impl Unavailable {
    /// One sentence for a refusal: what is missing and how to add it.
    pub fn sentence(&self) -> String {
        match &self.server {
            Some(s) => format!(
                "{} cannot be called here: no MCP server \"{s}\" is configured for this project (add it: {}).",
                self.tool,
                add_command(s)
            ),
            None => format!(
                "{t} is a tool of an MCP server, and no server configured for this project is known to provide it: add that server (claude mcp add <name> -- <command>), then call it as mcp__<name>__{t}.",
                t = self.tool
            ),
        }
    }

    /// A few words for the guidance line.
    pub fn brief(&self) -> String {
        match &self.server {
            Some(s) => format!("no MCP server \"{s}\" configured: {}", add_command(s)),
            None => format!("no configured MCP server provides {}", self.tool),
        }
    }
}

/// `text` with each whole-word `word` (not already part of a longer name such as
/// `mcp__x__word`) replaced by `with`.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(ident) || after.is_some_and(ident) {
            out.push_str(word);
        } else {
            out.push_str(with);
        }
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

/// The command that adds `server` to Claude Code: seed's own through `seed install --mcp`.
pub fn add_command(server: &str) -> String {
    if server == "seed" {
        "seed install --mcp".to_string()
    } else {
        format!("claude mcp add {server} -- <command that starts it>")
    }
}
