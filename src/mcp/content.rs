//! Seed 000's content files (`who_am_i.seed`, `what_do_i_do.seed`, `how_do_i.seed`) read from
//! the state directory, and the text generated from the active sequence when a file is absent.

use std::collections::BTreeMap;
use std::path::Path;

use crate::engine::event::claude_tool_name;
use crate::engine::tool_name::spell_as_seen;
use crate::engine::{Machine, Snapshot};

/// Content files are small text; anything larger is refused rather than sent to the model.
const MAX_CONTENT_BYTES: u64 = 256 * 1024;

/// The file's text, or `None` when there is no state directory or the file is absent,
/// unreadable or too large: the caller then serves the generated default. Why a present file
/// was skipped goes to stderr, the MCP server's log.
pub fn read_content(state_dir: Option<&Path>, file: &str) -> Option<String> {
    let state = state_dir?;
    let path = state.join(file);
    if !path.exists() {
        return None;
    }
    // The state directory's rules: no symlink of another user's (they would choose what the
    // agent is told), a regular file, bounded.
    let read = crate::store::paths::verify_in(state, &path)
        .and_then(|()| crate::store::paths::read_bounded(&path, MAX_CONTENT_BYTES));
    match read {
        Ok(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        Err(e) => {
            eprintln!("seed mcp: {e}; serving the default for {file}");
            None
        }
    }
}

/// One section of `how_do_i.seed`.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub heading: String,
    pub body: String,
}

fn heading(line: &str) -> Option<&str> {
    let t = line.trim();
    t.strip_prefix('#')
        .map(|h| h.trim_start_matches('#').trim())
        .or_else(|| {
            t.strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .map(str::trim)
        })
}

/// The sections of `how_do_i.seed`: a Markdown heading (`#`, `##`, …) or an INI header
/// (`[component]`) names one; it runs to the next heading of any level.
pub fn sections(text: &str) -> Vec<Section> {
    let mut out: Vec<(String, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        match heading(line) {
            Some(h) => out.push((h.to_string(), Vec::new())),
            None => {
                if let Some((_, lines)) = out.last_mut() {
                    lines.push(line);
                }
            }
        }
    }
    out.into_iter()
        .filter(|(h, _)| !h.is_empty())
        .map(|(heading, lines)| Section {
            heading,
            body: lines.join("\n").trim().to_string(),
        })
        .collect()
}

pub fn default_who_am_i(m: &Machine) -> String {
    let c = &m.chart;
    let mut s = format!(
        "You are an agent working under the seed sequence \"{}\" ({} dialect, {} mode).\n",
        c.name,
        c.dialect.as_str(),
        c.settings.enforcement.as_str()
    );
    if !c.description.is_empty() {
        s.push_str(&format!("{}\n", c.description));
    }
    if !c.bands.is_empty() {
        let layers: Vec<String> = c
            .bands
            .iter()
            .map(|b| format!("{} {}–{}%", b.name, b.lo, b.hi))
            .collect();
        s.push_str(&format!("Layers: {}.\n", layers.join(", ")));
    }
    s.push_str("seed checks every tool call against this sequence; call seed's `status` tool to see where you are.");
    s
}

pub fn default_what_do_i_do(m: &Machine, snap: &Snapshot) -> String {
    let st = m.status(snap);
    let mut s = format!("{}\n", m.guidance_line(snap));
    match &st.next {
        Some(n) => s.push_str(&format!(
            "Do next: call {} (leads to \"{}\").\n",
            n.tool, n.leads_to
        )),
        None if st.progress.done => s.push_str("The sequence is finished.\n"),
        None if st.allowed.is_any() => {
            s.push_str("No call is expected here: every tool is allowed now.\n")
        }
        None => match &st.progress.waiting_for {
            Some(w) => s.push_str(&format!(
                "No call is expected: the sequence waits for {w}.\n"
            )),
            None => s.push_str("No next step is reachable; call seed's `recovery` tool.\n"),
        },
    }
    let next = st.next.as_ref().map(|n| n.tool.as_str());
    let mut others: Vec<String> = Vec::new();
    // `*` (every tool) is said above, not listed as a call.
    for a in st
        .allowed
        .calls()
        .iter()
        .filter(|a| Some(a.as_str()) != next)
    {
        let a = callable(a, &snap.plugins);
        if !others.contains(&a) && Some(a.as_str()) != next {
            others.push(a);
        }
    }
    if !others.is_empty() {
        s.push_str(&format!("Also allowed now: {}.\n", others.join(", ")));
    }
    s
}

/// An entry of the allowed list as the agent calls it: `seed.status` is `mcp__seed__status`
/// (or the plugin form the session showed); `Read`, `Bash(git *)`, `/hope:intent`, `skill:x`
/// and names already spelled for Claude Code are kept.
fn callable(entry: &str, plugins: &BTreeMap<String, String>) -> String {
    let plain = entry.contains('.')
        && !entry.starts_with("mcp__")
        && !entry.contains(['(', ':', '/', ' ', '|']);
    if plain {
        spell_as_seen(&claude_tool_name(entry), plugins)
    } else {
        entry.to_string()
    }
}

/// The content tools' answer when no sequence is active (`why` says so in one line).
pub fn no_sequence(why: &str) -> String {
    format!(
        "{why}.\nseed has no workflow to guide you through here: any tool is allowed. Call seed's `sequences` tool to list the sequences, and choose one with `seed install --sequence NAME`, the project's .seed.toml (`sequence = \"NAME\"`) or SEED_SEQUENCE.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Event, Facts, Phase};
    use serde_json::json;

    #[test]
    fn what_do_i_do_once_bound_says_every_tool_is_allowed_not_that_nothing_is_reachable() {
        let loaded = crate::dialects::builtin("odyssean_anchor")
            .expect("a built-in")
            .expect("it loads");
        let m = Machine::new(loaded.chart);
        let facts = Facts::new();
        let mut snap = m.start(&facts);
        for (stage, extra) in [
            (
                "init",
                json!({"role": "lead", "tier": "LITE", "topic": "t"}),
            ),
            ("commit_identity", json!({"payload": "===IDENTITY==="})),
            ("bind", json!({"payload": "===IDENTITY==="})),
        ] {
            let mut input = extra;
            input["stage"] = json!(stage);
            // Bound when the bind's answer says so (seed 001: "Returns: SUCCESS + WORK_PERMIT").
            let ev = Event::tool("mcp__hestai__odyssean_anchor", input)
                .with_response(json!("SUCCESS\nWORK_PERMIT: granted"));
            m.step(&mut snap, Phase::Advance, &ev, &facts);
        }
        let what = default_what_do_i_do(&m, &snap);
        assert!(what.contains("at: BOUND"), "{what}");
        assert!(
            what.contains("No call is expected here: every tool is allowed now."),
            "{what}"
        );
        assert!(!what.contains("No next step is reachable"), "{what}");
        assert!(!what.contains("Also allowed now: *"), "{what}");
    }

    #[test]
    fn sections_run_from_a_heading_to_the_next_of_any_level() {
        let s = sections("intro\n# waypoint\nCall it.\n\n## carton\nAdd.\n[giint]\nPlan.\n");
        let got: Vec<(&str, &str)> = s
            .iter()
            .map(|s| (s.heading.as_str(), s.body.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("waypoint", "Call it."),
                ("carton", "Add."),
                ("giint", "Plan.")
            ]
        );
    }

    #[test]
    fn allowed_entries_are_named_as_the_agent_calls_them() {
        let mut plugins = BTreeMap::new();
        for (entry, called) in [
            ("seed.status", "mcp__seed__status"),
            ("heaven-subagent.*", "mcp__heaven-subagent__*"),
            ("mcp__starlog__check", "mcp__starlog__check"),
            ("Read", "Read"),
            ("Bash(git *)", "Bash(git *)"),
            ("/hope:intent", "/hope:intent"),
            ("skill:hope.x", "skill:hope.x"),
            (
                "odyssean_anchor(stage=\"init\")",
                "odyssean_anchor(stage=\"init\")",
            ),
        ] {
            assert_eq!(callable(entry, &plugins), called, "{entry}");
        }
        plugins.insert("seed".to_string(), "seed".to_string());
        assert_eq!(
            callable("seed.status", &plugins),
            "mcp__plugin_seed_seed__status"
        );
    }

    #[test]
    fn a_missing_state_directory_or_file_reads_as_absent() {
        assert_eq!(read_content(None, "who_am_i.seed"), None);
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_content(Some(dir.path()), "who_am_i.seed"), None);
        std::fs::create_dir(dir.path().join("who_am_i.seed")).unwrap();
        assert_eq!(
            read_content(Some(dir.path()), "who_am_i.seed"),
            None,
            "a directory in the file's place is unreadable: the default is served"
        );
    }
}
