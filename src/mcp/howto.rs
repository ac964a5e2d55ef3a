//! `how_do_i(component)`: a component is a step, a tool or a whole MCP server of the sequence,
//! one of seed's own tools (`seed.status`; `seed` for all of them), or a section of
//! `how_do_i.seed`. Names compare as seed compares tools: `starlog.orient`,
//! `mcp__starlog__orient` and `Starlog.Orient` are one component, and `starlog` is every
//! `starlog.*` step and section.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::content::Section;
use super::specs;
use crate::engine::event::{canonical_tool_name, claude_tool_name};
use crate::engine::ir::State;
use crate::engine::tool_name::spell_as_seen;
use crate::engine::{Machine, Snapshot};

/// The name compared: lowercase, dotted, without a trailing `()`.
pub fn normalize(name: &str) -> String {
    let t = name.trim().to_lowercase();
    let t = t.strip_suffix("()").unwrap_or(&t);
    let t = canonical_tool_name(t);
    match t.strip_prefix("mcp__") {
        // A bare server as Claude Code spells it: `mcp__starlog`.
        Some(server) if !server.contains("__") => server.trim_end_matches('_').to_string(),
        _ => t,
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Match {
    Exact,
    /// `want` is a prefix of the name up to a dot: a server, or a composite state.
    Under,
}

fn compare(name: &str, want: &str) -> Option<Match> {
    let name = normalize(name);
    if name == want {
        Some(Match::Exact)
    } else {
        name.strip_prefix(want)
            .filter(|rest| rest.starts_with('.'))
            .map(|_| Match::Under)
    }
}

/// The best match of a state: by key, local name, label, or the tool that performs it.
fn state_match(s: &State, want: &str) -> Option<Match> {
    let mut names = vec![s.key.as_str(), s.name.as_str(), s.label.as_str()];
    if let Some(p) = &s.activity {
        names.extend(p.alts.iter().map(|a| a.glob.as_str()));
    }
    let found: Vec<Match> = names.iter().filter_map(|n| compare(n, want)).collect();
    found
        .iter()
        .copied()
        .find(|m| *m == Match::Exact)
        .or(found.first().copied())
}

/// What `how_do_i` answers: the text and its structured form.
pub struct Answer {
    pub text: String,
    pub structured: Value,
}

/// The steps of a chart the agent can be told about (no root, no choice points).
fn steps(m: &Machine) -> impl Iterator<Item = &State> {
    m.chart.states.iter().skip(1).filter(|s| !s.is_pseudo())
}

/// A step worth listing to the agent: one a call performs or leads to, or one that counts for
/// progress. The master dialect's `start` and its constraint region (`no constraint`, one
/// state per constraint, switched by readers) are neither: they are the chart's inner workings.
fn listed(m: &Machine, s: &State) -> bool {
    let called = || {
        s.activity.is_some()
            || m.chart
                .transitions
                .iter()
                .enumerate()
                .any(|(i, t)| t.targets.contains(&s.id) && m.describe_transition(i).is_some())
    };
    s.is_atomic_like() && (s.weight > 0.0 || called())
}

/// seed's own tools a name asks for: `seed.status` that one, `seed` all of them.
fn seed_tools(want: &str) -> Vec<&'static str> {
    if want == specs::SERVER {
        return specs::NAMES.to_vec();
    }
    want.strip_prefix(specs::SERVER)
        .and_then(|t| t.strip_prefix('.'))
        .and_then(|t| specs::NAMES.iter().copied().find(|n| *n == t))
        .into_iter()
        .collect()
}

/// What seed's own tools `tools` do, named as the session calls them.
fn seed_help(tools: &[&str], plugins: &BTreeMap<String, String>) -> String {
    tools
        .iter()
        .filter_map(|t| {
            let called = spell_as_seen(
                &claude_tool_name(&format!("{}.{t}", specs::SERVER)),
                plugins,
            );
            specs::help(t, &called)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `at`: the sequence and where the session stands (suggested calls are spelled as its calls
/// showed them). Every source that knows the component answers, in this order: the
/// `how_do_i.seed` sections named exactly so (their text as written), the steps (exact
/// matches, else every step under a server or composite), sections under it, seed's own tools.
pub fn answer(at: Option<(&Machine, &Snapshot)>, sections: &[Section], component: &str) -> Answer {
    let m = at.map(|(m, _)| m);
    let plugins = at.map(|(_, s)| s.plugins.clone()).unwrap_or_default();
    let describe_step = |m: &Machine, st: &State| describe_step(m, &plugins, st);
    let want = normalize(component);
    let own = seed_tools(&want);
    let matched: Vec<(&State, Match)> = m
        .map(|m| {
            steps(m)
                .filter_map(|s| state_match(s, &want).map(|k| (s, k)))
                .collect()
        })
        .unwrap_or_default();
    let exact: Vec<&State> = matched
        .iter()
        .filter(|(_, k)| *k == Match::Exact)
        .map(|(s, _)| *s)
        .collect();
    let steps_found: Vec<&State> = match exact.is_empty() {
        false => exact.clone(),
        true => matched.iter().map(|(s, _)| *s).collect(),
    };
    let by = |kind: Match| -> Vec<Section> {
        sections
            .iter()
            .filter(|s| compare(&s.heading, &want) == Some(kind))
            .cloned()
            .collect()
    };
    let (exact_sections, under_sections) = (by(Match::Exact), by(Match::Under));
    if steps_found.is_empty()
        && exact_sections.is_empty()
        && under_sections.is_empty()
        && own.is_empty()
    {
        return unknown(m, sections, component);
    }
    let mut parts: Vec<String> = exact_sections.iter().map(|s| s.body.clone()).collect();
    if let Some(m) = m.filter(|_| !steps_found.is_empty()) {
        if exact.is_empty() {
            parts.push(format!(
                "\"{component}\" in \"{}\": {} step(s).",
                m.chart.name,
                steps_found.len()
            ));
        }
        parts.extend(steps_found.iter().map(|s| describe_step(m, s)));
    }
    parts.extend(
        under_sections
            .iter()
            .map(|s| format!("## {}\n{}\n", s.heading, s.body)),
    );
    if !own.is_empty() {
        parts.push(seed_help(&own, &plugins));
    }
    let all_sections: Vec<Section> = exact_sections.into_iter().chain(under_sections).collect();
    found(
        component,
        parts.join("\n"),
        &steps_found,
        &all_sections,
        &own,
    )
}

fn found(
    component: &str,
    text: String,
    steps: &[&State],
    sections: &[Section],
    seed_tools: &[&str],
) -> Answer {
    let structured = json!({
        "component": component,
        "found": true,
        "steps": steps.iter().map(|s| s.key.as_str()).collect::<Vec<_>>(),
        "sections": sections.iter().map(|s| s.heading.as_str()).collect::<Vec<_>>(),
        "seed_tools": seed_tools,
        "text": text,
    });
    Answer { text, structured }
}

fn unknown(m: Option<&Machine>, sections: &[Section], component: &str) -> Answer {
    let mut servers = BTreeSet::from([specs::SERVER.to_string()]);
    let mut step_names = Vec::new();
    for s in m.into_iter().flat_map(steps) {
        if let Some((server, _)) = normalize(&s.name).split_once('.') {
            servers.insert(server.to_string());
        }
        if m.is_some_and(|m| listed(m, s)) {
            step_names.push(s.label.clone());
        }
    }
    let headings: Vec<&str> = sections.iter().map(|s| s.heading.as_str()).collect();
    let within = m
        .map(|m| format!(" in \"{}\"", m.chart.name))
        .unwrap_or_default();
    let mut text =
        format!("No component \"{component}\"{within} and no how_do_i.seed section for it.\n");
    let list = |label: &str, items: &[&str]| match items {
        [] => String::new(),
        _ => format!("- {label}: {}\n", items.join(", ")),
    };
    let servers: Vec<&str> = servers.iter().map(String::as_str).collect();
    let step_refs: Vec<&str> = step_names.iter().map(String::as_str).collect();
    let known = [
        list("servers", &servers),
        list("steps", &step_refs),
        list("seed's own tools", &specs::NAMES),
        list("how_do_i.seed sections", &headings),
    ]
    .concat();
    text.push_str("Known components:\n");
    text.push_str(&known);
    let structured = json!({
        "component": component,
        "found": false,
        "known": {
            "servers": servers, "steps": step_refs, "seed_tools": specs::NAMES, "sections": headings
        },
        "text": text,
    });
    Answer { text, structured }
}

fn describe_step(m: &Machine, plugins: &BTreeMap<String, String>, st: &State) -> String {
    let c = &m.chart;
    let mut s = format!("\"{}\" is a step of \"{}\".\n", st.label, c.name);
    for note in &st.notes {
        s.push_str(&format!("{note}\n"));
    }
    let into: Vec<String> = c
        .transitions
        .iter()
        .enumerate()
        .filter(|(_, t)| t.targets.contains(&st.id))
        .filter_map(|(i, _)| {
            m.describe_transition(i)
                .map(|d| spell_as_seen(&d.tool, plugins))
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if !into.is_empty() {
        s.push_str(&format!("Reached by calling: {}.\n", into.join(", ")));
    }
    let out: Vec<String> = c
        .transitions
        .iter()
        .enumerate()
        .filter(|(_, t)| t.source == st.id)
        .filter_map(|(i, _)| {
            m.describe_transition(i)
                .map(|d| format!("{} → {}", spell_as_seen(&d.tool, plugins), d.leads_to))
        })
        .collect();
    if !out.is_empty() {
        s.push_str(&format!("From there: {}.\n", out.join("; ")));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_and_dotted_spellings_are_one_component() {
        for spelling in [
            "starlog.orient",
            "mcp__starlog__orient",
            "Starlog.Orient",
            " MCP__STARLOG__ORIENT ",
            "starlog.orient()",
        ] {
            assert_eq!(normalize(spelling), "starlog.orient", "{spelling}");
        }
        assert_eq!(normalize("mcp__starlog"), "starlog");
        assert_eq!(normalize("GIINT"), "giint");
    }

    #[test]
    fn a_server_is_a_prefix_up_to_a_dot() {
        assert_eq!(compare("starlog.orient", "starlog"), Some(Match::Under));
        assert_eq!(
            compare("mcp__starlog__orient", "starlog"),
            Some(Match::Under)
        );
        assert_eq!(compare("starlog_x.orient", "starlog"), None);
        assert_eq!(
            compare("Starlog.Orient", "starlog.orient"),
            Some(Match::Exact)
        );
    }
}
