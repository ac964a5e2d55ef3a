//! What a verdict tells the model about where it is: the call as it was made, the current
//! step, the tier of a refusing state, and the advice (the next call, the way to a denied one).

use crate::engine::event::{Event, EventKind};
use crate::engine::ir::{InputMatcher, StateId};
use crate::engine::machine::Machine;
use crate::engine::snapshot::Snapshot;
use crate::engine::wording;

/// The region (tier) a state belongs to: the child of the root that contains it.
pub(crate) fn tier_of(m: &Machine, id: StateId) -> String {
    let chart = &m.chart;
    let mut cur = id;
    while let Some(p) = chart.state(cur).parent {
        if p == StateId::ROOT {
            return chart.state(cur).label.clone();
        }
        cur = p;
    }
    chart.name.clone()
}

/// Current step labels for messages.
pub fn current_label(m: &Machine, snap: &Snapshot) -> String {
    let labels: Vec<String> = m
        .atomic_active(snap)
        .iter()
        .filter(|s| !m.is_monitor(**s))
        .map(|s| m.chart.state(*s).label.clone())
        .collect();
    if labels.is_empty() {
        "start".into()
    } else {
        labels.join(" ∥ ")
    }
}

/// Where the sequence is, worded as status words it (`last call: "starship.fly"` for a step named
/// after the call that led there, `at: "start"` for any other), so a refusal never reads as if
/// the step were the call to make next.
pub fn where_now(m: &Machine, snap: &Snapshot) -> String {
    let word = crate::engine::wording::position_word(m.step_is_call(snap));
    format!("{word}: \"{}\"", current_label(m, snap))
}

/// The call as the agent made it, for messages: a skill by its name (`Skill(skill="hope:loop")`),
/// not the `Skill` tool every skill shares.
pub(crate) fn called(ev: &Event) -> String {
    match ev.kind {
        EventKind::Skill => format!("Skill(skill=\"{}\")", ev.name),
        _ => ev.claude_tool_name(),
    }
}

/// The call as it was made, with the input values the sequence tells its steps apart by
/// (`mcp__hestai__odyssean_anchor(stage="bind")`): which stage was refused, not just the tool.
/// Only inputs some pattern of the tool names exactly (a stage, a mode) are shown, not free
/// text a pattern only globs (a command, a path).
pub(crate) fn called_as_judged(m: &Machine, ev: &Event) -> String {
    let name = called(ev);
    if ev.kind != EventKind::Tool {
        return name;
    }
    let chart = &m.chart;
    let policies = chart.states.iter().flat_map(|s| s.all_policies());
    let patterns = chart
        .mentioned_patterns()
        .into_iter()
        .chain(policies.flat_map(|p| p.allow.iter().chain(&p.deny)));
    let mut keys: Vec<&str> = Vec::new();
    for p in patterns.filter(|p| p.names_tool(ev, &chart.aliases)) {
        for (ptr, matcher) in p.alts.iter().flat_map(|a| &a.input) {
            let exact = match matcher {
                InputMatcher::Equals(_) => true,
                InputMatcher::Glob(g) => !g.contains(['*', '?', '[']),
                InputMatcher::Present => false,
            };
            if exact && !keys.contains(&ptr.as_str()) {
                keys.push(ptr);
            }
        }
    }
    let args: Vec<String> = keys
        .iter()
        .filter_map(|ptr| {
            let shown = match ev.input.pointer(ptr)? {
                serde_json::Value::String(v) if v.chars().count() <= 40 => format!("\"{v}\""),
                v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_)) => v.to_string(),
                _ => return None,
            };
            Some(format!(
                "{}={shown}",
                ptr.trim_start_matches('/').replace('/', ".")
            ))
        })
        .collect();
    if args.is_empty() {
        name
    } else {
        format!("{name}({})", args.join(", "))
    }
}

/// The next call, a sentence naming the path to the denied tool, and how many calls come
/// before it on that path (only computed for calls the sequence objects to: it searches the
/// graph).
pub(super) fn advice(
    m: &Machine,
    snap: &Snapshot,
    ev: &Event,
) -> (Option<String>, String, Option<usize>) {
    let tool = called(ev);
    let recovery = m.recovery(snap, Some(ev));
    let next = recovery.next.first().map(|n| n.tool.clone());
    let stuck = recovery
        .next
        .first()
        .is_some_and(|n| n.blocked_by.is_some());
    // A refused step is not a call to make.
    let next = next.filter(|_| !stuck);
    // "First" once, at the head of the path; the call itself closes it, with the input its
    // step needs when the denied input fits no step.
    let allowed_as = |last: &str| {
        if recovery.denied_input_differs {
            format!("{tool} is allowed only as {last}, not with this input")
        } else {
            // The same tool at another stage (its input) reads as that stage; a step bound to
            // other calls too (`*`, `hope:loop | ExitPlanMode`) names the call that was made.
            let head = last.split('(').next().unwrap_or(last);
            let same_tool = head == tool || tool.ends_with(&format!("__{head}"));
            let shown = if same_tool && last.len() > head.len() {
                last
            } else {
                tool.as_str()
            };
            format!("{shown} is allowed")
        }
    };
    let next_text = match (&recovery.path_to_denied, &next) {
        _ if stuck => recovery.suggestions.first().cloned().unwrap_or_default(),
        (Some(path), _) if path.len() > 1 => {
            let first: Vec<String> = path[..path.len() - 1]
                .iter()
                .map(|s| s.tool.clone())
                .collect();
            let failed = failed_before(m, snap, &first[0])
                .map(|said| format!(" {said}"))
                .unwrap_or_default();
            format!(
                "First call {}; after that, {}.{failed}",
                wording::calls_in_order(&first, ", then "),
                allowed_as(&path[path.len() - 1].tool)
            )
        }
        (Some(path), _) if recovery.denied_input_differs && path.len() == 1 => {
            format!("Here, {}.", allowed_as(&path[0].tool))
        }
        // At an error ending whose recovery names a call: the ending, then the call.
        (_, Some(n)) => match m.ended_in(snap) {
            Some(ended) => format!(
                "{}{} Next: call {n}.",
                ended,
                if ended.ends_with(['.', '!', '?']) {
                    ""
                } else {
                    "."
                }
            ),
            None => match failed_before(m, snap, n) {
                Some(said) => said,
                None => format!("Next: call {n}."),
            },
        },
        // At an ending: what the ending says to do.
        _ => m.ended_in(snap).unwrap_or_default(),
    };
    // A call to a server the configuration lacks ends in "No such tool available", which no
    // hook hears: said here, with how to add the server.
    let first = match (&recovery.path_to_denied, &next) {
        (Some(path), _) if path.len() > 1 => Some(path[0].tool.as_str()),
        (_, Some(n)) => Some(n.as_str()),
        _ => None,
    };
    let next_text = match first
        .filter(|_| !stuck)
        .and_then(|c| m.unavailable(snap, c))
    {
        Some(u) => format!("{next_text} {}", u.sentence()),
        None => next_text,
    };
    let ahead = recovery
        .path_to_denied
        .as_ref()
        .filter(|_| !stuck && !recovery.denied_input_differs)
        .map(|p| p.len().saturating_sub(1))
        .filter(|n| *n > 0);
    (next, next_text, ahead)
}

/// When the next call is the one that failed last (its MCP server not connected…), the
/// refusal says so with its error: calling it again as it is would fail again.
fn failed_before(m: &Machine, snap: &Snapshot, next: &str) -> Option<String> {
    let ev = snap.failed_call.as_ref()?;
    let call = called_as_judged(m, &ev.as_call());
    (call == next).then(|| wording::failed_call_text(&call, ev.response.as_str()))
}
