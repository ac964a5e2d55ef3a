//! How refusals read: calls spelled as the agent makes them, states with their tier.
#![warn(clippy::too_many_lines)] // Past 80 lines (clippy.toml) a function is split or says why.

pub(crate) mod explain;
pub(crate) mod verdict;

use std::collections::BTreeMap;

use super::event::{EventKind, claude_tool_name};
use super::pattern::{Alt, Pattern, any_server_tool};
use super::progress::Ended;
use super::tool_name::spell_seen;

/// How every face names where the agent is: a step named after the call that led to it (a
/// railroad's `seed.what_do_i_do`) is the *last call*, so "step: X · next: Y" is never read
/// as "now do X"; any other step is where the agent is *at*.
pub fn position_word(step_is_call: bool) -> &'static str {
    if step_is_call { "last call" } else { "at" }
}

/// `last call: seed.what_do_i_do`, `at: acknowledge` (see [`position_word`]).
pub fn position(step: &str, step_is_call: bool) -> String {
    format!("{}: {step}", position_word(step_is_call))
}

/// What recovery says of a call the sequence expected that failed: the call, its error, and
/// to make it work before calling it again (an MCP tool's server first of all).
pub fn failed_call_text(call: &str, error: Option<&str>) -> String {
    let error = error
        .map(|e| format!(": {}", e.trim_end_matches('.')))
        .unwrap_or_default();
    let mcp = call
        .strip_prefix("mcp__")
        .and_then(|rest| rest.split("__").next())
        .map(|server| {
            format!(
                " (its MCP server `{server}` must be configured and connected: `claude mcp list`)"
            )
        })
        .unwrap_or_default();
    format!("{call} failed{error}. Make it work{mcp}, then call it again.")
}

/// `shown (tier)`, or just `shown` when the state is a tier of its own (a top-level state).
pub fn state_in_tier(shown: &str, label: &str, tier: &str) -> String {
    if label == tier {
        shown.to_string()
    } else {
        format!("{shown} ({tier})")
    }
}

/// What an error ending tells: `"seq" ended in error at "ending" (message). Recovery: …`.
pub fn ended_text(sequence: &str, ended: &Ended) -> String {
    let message = ended
        .message
        .as_deref()
        .map(|m| format!(" ({})", m.trim_end_matches('.')))
        .unwrap_or_default();
    let recovery = ended
        .recovery
        .as_deref()
        .map(|r| format!(" Recovery: {r}"))
        .unwrap_or_default();
    format!(
        "\"{sequence}\" ended in error at \"{}\"{message}; it gates no call any more.{recovery}",
        ended.ending
    )
}

/// [`as_calls_seen`] outside a session (a sequence's own wording, the dashboard's lists).
pub(crate) fn as_calls(p: &Pattern) -> String {
    as_calls_seen(p, &BTreeMap::new(), &BTreeMap::new())
}

/// A rule's pattern as the calls it names, spelled as the agent makes them
/// (`odyssean_anchor(stage="init")`, `mcp__starlog__orient`), not the pattern's inner form; a
/// tool named on any server as the server the session called it through, a plugin's server as
/// the plugin's (`servers`, `plugins` of the snapshot). Alternatives joined by "or".
pub(crate) fn as_calls_seen(
    p: &Pattern,
    servers: &BTreeMap<String, String>,
    plugins: &BTreeMap<String, String>,
) -> String {
    calls_seen(p, servers, plugins).join(" or ")
}

/// The calls a rule's pattern names, one per alternative, spelled as in [`as_calls_seen`];
/// alternatives that read the same are one call: `mcp__*__x` and `x` both as `x`, and a skill
/// matched with and without its plugin (`p:x|x`) as the name the plugin gives it.
pub(crate) fn calls_seen(
    p: &Pattern,
    servers: &BTreeMap<String, String>,
    plugins: &BTreeMap<String, String>,
) -> Vec<String> {
    let is_skill = |a: &Alt| a.kind == Some(EventKind::Skill);
    let mut seen: Vec<String> = Vec::new();
    for a in &p.alts {
        let bare_of_plugin_skill = is_skill(a)
            && !a.glob.contains(':')
            && p.alts.iter().any(|o| {
                is_skill(o) && o.input == a.input && o.glob.ends_with(&format!(":{}", a.glob))
            });
        if bare_of_plugin_skill {
            continue;
        }
        let call = Pattern {
            alts: vec![a.clone()],
        }
        .describe_call();
        let plain_tool =
            matches!(a.kind, None | Some(EventKind::Tool)) && any_server_tool(&a.glob).is_none();
        let call = match call.strip_prefix(a.glob.as_str()) {
            Some(rest) if plain_tool => format!("{}{rest}", claude_tool_name(&a.glob)),
            _ => call,
        };
        let c = spell_seen(&call, servers, plugins);
        if !seen.contains(&c) {
            seen.push(c);
        }
    }
    seen
}

/// Calls in order, joined by `sep`; a call made several times in a row is named once with how
/// many times (`Skill(skill="hope:consult") twice`), so a path does not read as a stutter.
pub fn calls_in_order(calls: &[String], sep: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < calls.len() {
        let n = calls[i..].iter().take_while(|c| **c == calls[i]).count();
        out.push(match n {
            1 => calls[i].clone(),
            2 => format!("{} twice", calls[i]),
            n => format!("{} {n} times", calls[i]),
        });
        i += n;
    }
    out.join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_calls_are_counted_not_repeated() {
        let c = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            calls_in_order(&c(&["a", "b", "b", "c", "c", "c", "b"]), ", then "),
            "a, then b twice, then c 3 times, then b"
        );
        assert_eq!(calls_in_order(&c(&[]), " → "), "");
    }
}
