//! How refusals read: calls spelled as the agent makes them, states with their tier.

use super::event::{EventKind, claude_tool_name};
use super::pattern::{Pattern, any_server_tool};

/// `shown (tier)`, or just `shown` when the state is a tier of its own (a top-level state).
pub fn state_in_tier(shown: &str, label: &str, tier: &str) -> String {
    if label == tier {
        shown.to_string()
    } else {
        format!("{shown} ({tier})")
    }
}

/// A rule's pattern as the calls it names, spelled as the agent makes them
/// (`odyssean_anchor(stage="init")`, `mcp__starlog__orient`), not the pattern's inner form.
pub(crate) fn as_calls(p: &Pattern) -> String {
    let calls: Vec<String> = p
        .alts
        .iter()
        .map(|a| {
            let call = Pattern {
                alts: vec![a.clone()],
            }
            .describe_call();
            let plain_tool = matches!(a.kind, None | Some(EventKind::Tool))
                && any_server_tool(&a.glob).is_none();
            match call.strip_prefix(a.glob.as_str()) {
                Some(rest) if plain_tool => format!("{}{rest}", claude_tool_name(&a.glob)),
                _ => call,
            }
        })
        .collect();
    // Alternatives that read the same (`mcp__*__x` and `x` both as `x`) are one call.
    let mut seen: Vec<String> = Vec::new();
    for c in calls {
        if !seen.contains(&c) {
            seen.push(c);
        }
    }
    seen.join(" or ")
}
