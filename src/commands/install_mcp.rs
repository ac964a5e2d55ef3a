//! `seed install --mcp`: register `seed mcp` in the project's `.mcp.json`, with the same rules
//! as the hooks (idempotent, tagged, backed up, unparseable files refused). seed's entry is
//! tagged by an environment variable, a field `.mcp.json` already has, so Claude Code's schema
//! stays valid.

use serde_json::{Map, Value, json};

pub const SERVER: &str = "seed";
pub const TAG_VAR: &str = "SEED_MANAGED";

pub fn is_seed_server(v: &Value) -> bool {
    v.pointer(&format!("/env/{TAG_VAR}")).is_some()
}

/// Whether a `.mcp.json` value holds seed's (tagged) server.
pub fn has_seed_server(root: &Value) -> bool {
    root.get("mcpServers")
        .and_then(Value::as_object)
        .is_some_and(|m| m.values().any(is_seed_server))
}

fn servers(root: &mut Map<String, Value>) -> Result<&mut Map<String, Value>, String> {
    let entry = root.entry("mcpServers").or_insert_with(|| json!({}));
    entry
        .as_object_mut()
        .ok_or_else(|| "`mcpServers` is not an object; the file was left untouched".to_string())
}

/// The arguments of `seed mcp`: the sequence the hooks of the same install enforce, so the
/// server speaks of it before any session has recorded one.
pub fn server_args(sequence: Option<&str>) -> Vec<String> {
    let mut args = vec!["mcp".to_string()];
    if let Some(s) = sequence {
        args.extend(["--sequence".to_string(), s.to_string()]);
    }
    args
}

pub fn merge(mut root: Value, bin: &str, sequence: Option<&str>) -> Result<Value, String> {
    let obj = root.as_object_mut().ok_or("not a JSON object")?;
    let map = servers(obj)?;
    if let Some(existing) = map.get(SERVER)
        && !is_seed_server(existing)
    {
        return Err(format!(
            "`mcpServers.{SERVER}` exists and is not seed's; rename it or remove it first (the file was left untouched)"
        ));
    }
    map.insert(
        SERVER.into(),
        json!({ "type": "stdio", "command": bin, "args": server_args(sequence), "env": { TAG_VAR: "1" } }),
    );
    Ok(root)
}

/// Remove seed's server (only a tagged one); drops an emptied `mcpServers`.
pub fn remove(mut root: Value) -> (Value, usize) {
    let Some(obj) = root.as_object_mut() else {
        return (root, 0);
    };
    let mut removed = 0;
    let mut now_empty = false;
    if let Some(Value::Object(map)) = obj.get_mut("mcpServers") {
        let ours: Vec<String> = map
            .iter()
            .filter(|(_, v)| is_seed_server(v))
            .map(|(k, _)| k.clone())
            .collect();
        for k in ours {
            map.remove(&k);
            removed += 1;
        }
        now_empty = removed > 0 && map.is_empty();
    }
    if now_empty {
        obj.remove("mcpServers");
    }
    (root, removed)
}

/// With `--user` or `--local`, where the server lives is not a file seed writes: Claude Code
/// keeps both scopes in its own `~/.claude.json` (user: top-level `mcpServers`; local: the
/// project's entry under `projects`), which it rewrites itself while it runs. The note says
/// so and gives the exact `claude mcp` command. `None`: the project scope, whose `.mcp.json`
/// seed writes.
pub fn scope_note(
    scope: super::install::Scope,
    bin: &str,
    sequence: Option<&str>,
    uninstall: bool,
) -> Option<String> {
    use super::install::{Scope, shell_quote};
    let flag = match scope {
        Scope::Project => return None,
        Scope::User => "user",
        Scope::Local => "local",
    };
    if uninstall {
        return Some(format!(
            "seed's MCP server for --{flag} is in Claude Code's ~/.claude.json, which seed does not edit; remove it with:\n  claude mcp remove --scope {flag} {SERVER}"
        ));
    }
    let words: Vec<String> = std::iter::once(bin.to_string())
        .chain(server_args(sequence))
        .map(|w| shell_quote(&w))
        .collect();
    Some(format!(
        "seed's MCP server for --{flag} goes in Claude Code's ~/.claude.json, which seed does not edit; add it with:\n  claude mcp add --scope {flag} {SERVER} -- {}",
        words.join(" ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_is_idempotent_and_keeps_other_servers() {
        let start = json!({"mcpServers": {"github": {"command": "gh-mcp"}}, "other": 1});
        let once = merge(start.clone(), "seed", None).unwrap();
        assert_eq!(merge(once.clone(), "seed", None).unwrap(), once);
        assert_eq!(once["mcpServers"]["github"], json!({"command": "gh-mcp"}));
        assert_eq!(once["mcpServers"]["seed"]["args"], json!(["mcp"]));
        let (back, n) = remove(once);
        assert_eq!((back, n), (start, 1));
    }

    #[test]
    fn the_server_gets_the_hooks_sequence_and_a_new_one_replaces_it() {
        let with = merge(json!({}), "seed", Some("my flow")).unwrap();
        assert_eq!(
            with["mcpServers"]["seed"]["args"],
            json!(["mcp", "--sequence", "my flow"]),
            "an argument, not a shell word: no quoting"
        );
        let without = merge(with, "seed", None).unwrap();
        assert_eq!(without["mcpServers"]["seed"]["args"], json!(["mcp"]));
    }

    #[test]
    fn a_foreign_seed_entry_is_refused() {
        let start = json!({"mcpServers": {"seed": {"command": "someone-else"}}});
        assert!(merge(start.clone(), "seed", None).is_err());
        assert_eq!(remove(start.clone()), (start, 0));
        assert!(merge(json!({"mcpServers": []}), "seed", None).is_err());
    }
}
