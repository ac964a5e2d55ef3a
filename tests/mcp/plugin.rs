//! seed's server shipped by the plugin: Claude Code names its tools
//! `mcp__plugin_seed_seed__<tool>`. They are the same tools to the sequence, and once the agent
//! has called one that way, seed names the calls it suggests that way too.

use crate::support::mcp as mcp_common;

use mcp_common::{
    Client, deny_reason, hook_call_in, hook_event, seed, stdout_of, text, without_session,
};
use serde_json::{Value, json};

const PLUGIN: &str = "5eed0000-0000-4000-8000-00000000000p";
const PLAIN: &str = "5eed0000-0000-4000-8000-00000000000m";

fn status_json(home: &std::path::Path, session: &str) -> Value {
    without_session(
        serde_json::from_str(&stdout_of(seed(home).args([
            "status",
            "--json",
            "--session",
            session,
        ])))
        .unwrap(),
    )
}

#[test]
fn plugin_tool_names_advance_the_sequence_like_the_plain_ones() {
    let home = tempfile::tempdir().unwrap();
    for (session, server) in [(PLUGIN, "mcp__plugin_seed_seed__"), (PLAIN, "mcp__seed__")] {
        hook_call_in(
            home.path(),
            session,
            &format!("{server}who_am_i"),
            "toolu_1",
        );
        hook_call_in(
            home.path(),
            session,
            &format!("{server}what_do_i_do"),
            "toolu_2",
        );
    }
    let (plugin, plain) = (
        status_json(home.path(), PLUGIN),
        status_json(home.path(), PLAIN),
    );
    assert_eq!(plugin["progress"], plain["progress"]);
    assert_eq!(plugin["current"], plain["current"]);
    assert_eq!(
        plugin["current"][0], "railroad.seed.what_do_i_do",
        "who_am_i → what_do_i_do: {plugin}"
    );
    assert_eq!(
        plugin["progress"]["overall"], 50.0,
        "the base layer is full"
    );
    assert_eq!(
        plugin["next"]["tool"], "mcp__starlog__check",
        "starlog was never seen through a plugin: its plain name"
    );
}

#[test]
fn denials_and_suggestions_name_seeds_tools_as_the_agent_calls_them() {
    let home = tempfile::tempdir().unwrap();
    hook_call_in(
        home.path(),
        PLUGIN,
        "mcp__plugin_seed_seed__who_am_i",
        "toolu_1",
    );
    hook_call_in(home.path(), PLAIN, "mcp__seed__who_am_i", "toolu_1");

    let denied = hook_event(home.path(), PLUGIN, "PreToolUse", "Bash", "toolu_2");
    assert!(
        deny_reason(&denied)
            .contains("First call mcp__plugin_seed_seed__what_do_i_do, then mcp__starlog__check"),
        "{denied}"
    );
    let denied = hook_event(home.path(), PLAIN, "PreToolUse", "Bash", "toolu_2");
    assert!(
        deny_reason(&denied)
            .contains("First call mcp__seed__what_do_i_do, then mcp__starlog__check"),
        "{denied}"
    );
    // seed's own tools are never refused by the railroad: who_am_i again goes through (no
    // decision printed) and does not move the sequence.
    let again = hook_event(
        home.path(),
        PLUGIN,
        "PreToolUse",
        "mcp__plugin_seed_seed__who_am_i",
        "toolu_3",
    );
    assert_eq!(again, Value::Null, "allowed: nothing printed");

    // status and recovery, CLI and MCP alike.
    let cli = status_json(home.path(), PLUGIN);
    assert_eq!(cli["next"]["tool"], "mcp__plugin_seed_seed__what_do_i_do");
    let mut c = Client::start(home.path(), Some(PLUGIN));
    assert_eq!(c.structured("status", json!({})), cli);
    let what = text(&c.call("what_do_i_do", json!({})));
    assert!(
        what.contains("Do next: call mcp__plugin_seed_seed__what_do_i_do"),
        "{what}"
    );
}

/// Every allowed call names seed's tools as the agent reaches them, through the plugin: the
/// `seed status` allowed line, its JSON and `what_do_i_do`'s list; a session that called the
/// plain server keeps the plain names.
#[test]
fn allowed_tools_are_spelled_as_the_plugin_serves_them() {
    let home = tempfile::tempdir().unwrap();
    // The plugin session last: the MCP server follows the newest session of the project.
    hook_call_in(home.path(), PLAIN, "mcp__seed__who_am_i", "toolu_1");
    hook_call_in(
        home.path(),
        PLUGIN,
        "mcp__plugin_seed_seed__who_am_i",
        "toolu_1",
    );

    let line = |session: &str| {
        stdout_of(seed(home.path()).args(["status", "--session", session]))
            .lines()
            .find(|l| l.starts_with("allowed: "))
            .unwrap_or_default()
            .to_string()
    };
    let plugin_line = line(PLUGIN);
    assert!(
        plugin_line.contains("mcp__plugin_seed_seed__status")
            && plugin_line.contains("mcp__plugin_seed_seed__recovery")
            && !plugin_line.contains("mcp__seed__"),
        "{plugin_line}"
    );
    let plain_line = line(PLAIN);
    assert!(
        plain_line.contains("mcp__seed__status") && !plain_line.contains("mcp__plugin_"),
        "{plain_line}"
    );
    let allowed = status_json(home.path(), PLUGIN)["allowed"].clone();
    let names: Vec<&str> = allowed
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with("mcp__seed__")),
        "{names:?}"
    );
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "no name twice: {names:?}");

    let mut c = Client::start(home.path(), Some(PLUGIN));
    let what = text(&c.call("what_do_i_do", json!({})));
    let also = what
        .lines()
        .find(|l| l.starts_with("Also allowed now: "))
        .unwrap_or_default();
    assert!(
        also.contains("mcp__plugin_seed_seed__status") && !also.contains("mcp__seed__"),
        "{what}"
    );
}
