//! What Claude Code's configuration gives a session in a project: its MCP servers, read from
//! the project's `.mcp.json` (and which settings approve them), the user's `~/.claude.json`
//! (user-wide servers and this project's local ones), the settings files' permission rules, and
//! the servers of enabled plugins. The engine is told the result as data
//! ([`Hosted`](crate::engine::servers::Hosted)); a server handed to one run with
//! `--mcp-config` is not in any file and cannot be known here.
//!
//! Every file is read bounded and parsed once; one that is missing says nothing, one that is
//! unreadable, too large or not JSON is one line in `problems` and gives no servers.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::engine::Machine;
use crate::engine::servers::{Hosted, ServerNeed};
use crate::engine::tool_name::split_mcp;

/// Largest configuration file read: `~/.claude.json` keeps every project's history, but a
/// file past this is no configuration a person wrote.
pub const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// Longest server name kept (Claude Code's are short; a longer one is no name to print).
const MAX_NAME: usize = 128;

/// What was read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reading {
    pub hosted: Hosted,
    /// Servers in the project's `.mcp.json` no setting approves: Claude Code asks the user at
    /// the start of an interactive session and leaves them out of a print-mode one.
    pub unapproved: Vec<String>,
    /// Files that could not be used, one line each.
    pub problems: Vec<String>,
}

/// Where Claude Code keeps the user's files: `$CLAUDE_CONFIG_DIR`, else `~/.claude` (settings,
/// plugins) and `~/.claude.json` (servers, projects).
struct UserFiles {
    dir: Option<PathBuf>,
    global: Option<PathBuf>,
}

impl UserFiles {
    fn from_env(env: &dyn Fn(&str) -> Option<String>) -> UserFiles {
        let set = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        match (set("CLAUDE_CONFIG_DIR"), set("HOME")) {
            (Some(dir), _) => UserFiles {
                global: Some(dir.join(".claude.json")),
                dir: Some(dir),
            },
            (None, Some(home)) => UserFiles {
                dir: Some(home.join(".claude")),
                global: Some(home.join(".claude.json")),
            },
            (None, None) => UserFiles {
                dir: None,
                global: None,
            },
        }
    }
}

/// The MCP servers Claude Code's configuration gives sessions in `project`.
pub fn read(project: &Path, env: &dyn Fn(&str) -> Option<String>) -> Reading {
    let user = UserFiles::from_env(env);
    let mut r = Reading::default();
    let mut settings: Vec<Value> = Vec::new();
    let local = project.join(".claude");
    let files = [
        user.dir.as_ref().map(|d| d.join("settings.json")),
        Some(local.join("settings.json")),
        Some(local.join("settings.local.json")),
    ];
    for path in files.into_iter().flatten() {
        settings.extend(object_file(&path, &mut r.problems));
    }
    let global = user
        .global
        .as_ref()
        .and_then(|p| object_file(p, &mut r.problems));
    let this_project = global.as_ref().and_then(|g| project_entry(g, project));
    // Approvals of `.mcp.json` servers live in the settings and in the project's entry.
    let approvals: Vec<&Value> = settings.iter().chain(this_project).collect();
    project_servers(project, &approvals, &mut r);
    for servers in [global.as_ref(), this_project]
        .into_iter()
        .flatten()
        .filter_map(|v| v.get("mcpServers"))
    {
        r.hosted.servers.extend(names(servers));
    }
    for s in &settings {
        permitted_tools(s, &mut r.hosted);
    }
    plugin_servers(&settings, user.dir.as_deref(), &mut r);
    r
}

/// Whether the configuration provides a server a sequence needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provided {
    Yes,
    /// In `.mcp.json`, waiting for the user's approval.
    Unapproved,
    /// Nowhere: a call to it ends in "No such tool available".
    No,
    /// A tool named on any server: provided by one of these, seed cannot tell which.
    OneOf(Vec<String>),
}

/// One server a sequence needs, and whether the configuration provides it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// `None`: any server that provides the tools.
    pub server: Option<String>,
    pub tools: Vec<String>,
    pub provided: Provided,
}

impl Finding {
    /// One line: the server, its tools, and what the configuration says of it.
    pub fn line(&self) -> String {
        let tools = self.tools.join(", ");
        let server = match &self.server {
            Some(s) => format!("MCP server \"{s}\" ({tools})"),
            None => format!("an MCP server that provides {tools}"),
        };
        match &self.provided {
            Provided::Yes => format!("needs {server}: configured"),
            Provided::Unapproved => format!(
                "needs {server}: in .mcp.json, not approved yet (Claude Code asks when a session starts)"
            ),
            Provided::No => format!(
                "needs {server}, which Claude Code's configuration for this project does not provide"
            ),
            Provided::OneOf(s) => format!("needs {server}: one of {} may provide it", s.join(", ")),
        }
    }

    /// What to do about it, when anything.
    pub fn fix(&self) -> Option<String> {
        match (&self.provided, &self.server) {
            (Provided::No, Some(s)) => Some(format!(
                "{} (or list it in the project's .mcp.json)",
                crate::engine::servers::add_command(s)
            )),
            (Provided::No, None) => {
                Some("add the server that provides it: claude mcp add <name> -- <command>".into())
            }
            (Provided::Unapproved, _) => Some(
                "approve it when Claude Code asks, or set \"enableAllProjectMcpServers\": true in .claude/settings.local.json".into(),
            ),
            _ => None,
        }
    }
}

/// What the configuration says of each server `machine`'s steps call.
pub fn findings(machine: &Machine, reading: &Reading) -> Vec<Finding> {
    let h = &reading.hosted;
    machine
        .server_needs()
        .iter()
        .map(|need| {
            let provided = match &need.server {
                Some(s) if reading.unapproved.contains(s) => Provided::Unapproved,
                Some(s) if h.servers.contains(s) => Provided::Yes,
                Some(_) => Provided::No,
                None => any_server(need, h),
            };
            Finding {
                server: need.server.clone(),
                tools: need.tools.clone(),
                provided,
            }
        })
        .collect()
}

/// A tool named on any server: the server a permission rule names it on, else the configured
/// servers besides seed's own (none: not provided).
fn any_server(need: &ServerNeed, h: &Hosted) -> Provided {
    if need.tools.iter().all(|t| h.tools.contains_key(t)) {
        return Provided::Yes;
    }
    let others: Vec<String> = h.servers.iter().filter(|s| *s != "seed").cloned().collect();
    match others.len() {
        0 => Provided::No,
        1 => Provided::Yes,
        _ => Provided::OneOf(others),
    }
}

/// `.mcp.json`'s servers: each approved one is provided, each that no setting approves or
/// refuses is noted as waiting for approval (and named, since approving it is one answer).
fn project_servers(project: &Path, approvals: &[&Value], r: &mut Reading) {
    let path = project.join(".mcp.json");
    let Some(file) = object_file(&path, &mut r.problems) else {
        return;
    };
    let Some(servers) = file.get("mcpServers") else {
        return;
    };
    let listed = |key: &str| -> BTreeSet<String> {
        approvals
            .iter()
            .filter_map(|v| v.get(key).and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_str)
            .map(normalize)
            .collect()
    };
    let (enabled, disabled) = (
        listed("enabledMcpjsonServers"),
        listed("disabledMcpjsonServers"),
    );
    let all = approvals
        .iter()
        .any(|v| v.get("enableAllProjectMcpServers") == Some(&Value::Bool(true)));
    for name in names(servers) {
        if disabled.contains(&name) {
            continue;
        }
        if !(all || enabled.contains(&name)) {
            r.unapproved.push(name.clone());
        }
        r.hosted.servers.insert(name);
    }
}

/// `~/.claude.json`'s entry for `project` (Claude Code keys it by the absolute directory).
fn project_entry<'v>(global: &'v Value, project: &Path) -> Option<&'v Value> {
    let projects = global.get("projects")?.as_object()?;
    let real = std::fs::canonicalize(project).ok();
    [Some(project.to_path_buf()), real]
        .into_iter()
        .flatten()
        .find_map(|p| projects.get(p.to_str()?))
}

/// A permission rule naming one tool exactly (`mcp__anchor__odyssean_anchor`) says which server
/// provides it.
fn permitted_tools(settings: &Value, hosted: &mut Hosted) {
    let rules = ["allow", "ask"]
        .iter()
        .filter_map(|k| settings.get("permissions")?.get(k)?.as_array())
        .flatten()
        .filter_map(Value::as_str);
    for rule in rules {
        let Some(n) = split_mcp(rule) else { continue };
        let exact = |s: &str| !s.is_empty() && s.len() <= MAX_NAME && normalize(s) == s;
        if exact(n.server) && exact(n.tool) {
            hosted
                .tools
                .entry(n.tool.to_string())
                .or_insert_with(|| n.server.to_string());
        }
    }
}

/// The servers of every plugin a settings file enables, from where Claude Code installed it.
/// seed's own plugin ships the `seed` server wherever it was installed from.
fn plugin_servers(settings: &[Value], user_dir: Option<&Path>, r: &mut Reading) {
    let enabled: BTreeSet<&str> = settings
        .iter()
        .filter_map(|s| s.get("enabledPlugins")?.as_object())
        .flatten()
        .filter(|(_, on)| **on != Value::Bool(false))
        .map(|(k, _)| k.as_str())
        .collect();
    if enabled.is_empty() {
        return;
    }
    let installed = user_dir
        .map(|d| d.join("plugins").join("installed_plugins.json"))
        .and_then(|p| object_file(&p, &mut r.problems));
    for key in enabled {
        let plugin = normalize(key.split('@').next().unwrap_or(key));
        let mut servers: BTreeSet<String> = BTreeSet::new();
        for dir in install_paths(installed.as_ref(), key) {
            for file in [
                dir.join(".mcp.json"),
                dir.join(".claude-plugin/plugin.json"),
            ] {
                let Some(v) = object_file(&file, &mut r.problems) else {
                    continue;
                };
                // A plugin's `.mcp.json` may hold the map itself.
                match v.get("mcpServers") {
                    Some(m) => servers.extend(names(m)),
                    None if file.ends_with(".mcp.json") => servers.extend(names(&v)),
                    None => {}
                }
            }
        }
        if plugin == "seed" {
            servers.insert("seed".to_string());
        }
        for s in servers {
            r.hosted.plugins.insert(s.clone(), plugin.clone());
            r.hosted.servers.insert(s);
        }
    }
}

/// Where `installed_plugins.json` says the plugin `key` is: one entry, or a list of them.
fn install_paths(installed: Option<&Value>, key: &str) -> Vec<PathBuf> {
    let Some(entry) = installed.and_then(|v| v.get("plugins")?.get(key)) else {
        return Vec::new();
    };
    let entries: Vec<&Value> = match entry {
        Value::Array(a) => a.iter().collect(),
        one => vec![one],
    };
    entries
        .into_iter()
        .filter_map(|e| e.get("installPath")?.as_str())
        .map(PathBuf::from)
        .collect()
}

/// The server names of a `mcpServers` object, as Claude Code spells them in tool names.
fn names(servers: &Value) -> Vec<String> {
    servers
        .as_object()
        .map(Map::keys)
        .into_iter()
        .flatten()
        .filter(|k| !k.is_empty() && k.len() <= MAX_NAME)
        .map(|k| normalize(k))
        .collect()
}

/// A name as Claude Code puts it in a tool name: anything but letters, digits, `_` and `-`
/// becomes `_`.
fn normalize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A JSON object from `path`: `None` when the file is missing (nothing to say) or unusable
/// (one line in `problems`).
fn object_file(path: &Path, problems: &mut Vec<String>) -> Option<Value> {
    let shown = crate::engine::sanitize::escape(&path.display().to_string(), 1000);
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            problems.push(format!("{shown}: cannot read: {e}"));
            return None;
        }
    };
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        problems.push(format!("{shown}: is a directory, not a file"));
        return None;
    }
    let mut bytes = Vec::new();
    if let Err(e) = file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes) {
        problems.push(format!("{shown}: cannot read: {e}"));
        return None;
    }
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        problems.push(format!(
            "{shown}: larger than {} MiB, not read",
            MAX_CONFIG_BYTES >> 20
        ));
        return None;
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v @ Value::Object(_)) => Some(v),
        Ok(_) => {
            problems.push(format!("{shown}: not a JSON object, its servers not read"));
            None
        }
        Err(e) => {
            problems.push(format!("{shown}: not JSON ({e}), its servers not read"));
            None
        }
    }
}

#[cfg(test)]
#[path = "hosted_tests.rs"]
mod tests;
