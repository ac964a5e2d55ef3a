//! Seed 000's content files (`who_am_i.seed`, `what_do_i_do.seed`, `how_do_i.seed`) served from
//! the state directory, with defaults generated from the active sequence when a file is absent.

use std::path::Path;

use crate::engine::{Machine, Snapshot};

/// Content files are small text; anything larger is refused rather than sent to the model.
const MAX_CONTENT_BYTES: u64 = 256 * 1024;

pub fn read_content(state_dir: Option<&Path>, file: &str) -> Result<Option<String>, String> {
    let Some(dir) = state_dir else {
        return Ok(None);
    };
    let path = dir.join(file);
    match std::fs::metadata(&path) {
        Err(_) => Ok(None),
        Ok(m) if m.len() > MAX_CONTENT_BYTES => Err(format!(
            "{}: {} bytes; content files are limited to {MAX_CONTENT_BYTES}",
            path.display(),
            m.len()
        )),
        Ok(_) => std::fs::read(&path)
            .map(|b| Some(String::from_utf8_lossy(&b).into_owned()))
            .map_err(|e| format!("{}: cannot read: {e}", path.display())),
    }
}

/// The section of `how_do_i.seed` for `component`: a Markdown heading (`#`, `##`, …) or an INI
/// header (`[component]`) names it; the section runs to the next heading of any level.
pub fn section(text: &str, component: &str) -> Option<String> {
    let want = component.trim().to_lowercase();
    let mut out: Option<Vec<&str>> = None;
    for line in text.lines() {
        let t = line.trim();
        let heading = t
            .strip_prefix('#')
            .map(|h| h.trim_start_matches('#').trim())
            .or_else(|| {
                t.strip_prefix('[')
                    .and_then(|h| h.strip_suffix(']'))
                    .map(str::trim)
            });
        if let Some(h) = heading {
            if out.is_some() {
                break;
            }
            if h.to_lowercase() == want {
                out = Some(Vec::new());
            }
            continue;
        }
        if let Some(lines) = &mut out {
            lines.push(line);
        }
    }
    out.map(|l| l.join("\n").trim().to_string())
}

/// Headings available in `how_do_i.seed`.
pub fn components(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let t = l.trim();
            t.strip_prefix('#')
                .map(|h| h.trim_start_matches('#').trim().to_string())
                .or_else(|| {
                    t.strip_prefix('[')
                        .and_then(|h| h.strip_suffix(']'))
                        .map(|h| h.trim().to_string())
                })
        })
        .filter(|h| !h.is_empty())
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
        None => s.push_str("No next step is reachable; call seed's `recovery` tool.\n"),
    }
    let others: Vec<&str> = st.allowed.iter().skip(1).map(String::as_str).collect();
    if !others.is_empty() {
        s.push_str(&format!("Also allowed now: {}.\n", others.join(", ")));
    }
    s
}

pub fn default_how_do_i(m: &Machine, component: &str) -> String {
    let c = &m.chart;
    let wanted = component.trim();
    let matches: Vec<&crate::engine::ir::State> = c
        .states
        .iter()
        .filter(|s| s.key == wanted || s.name == wanted || s.label == wanted)
        .collect();
    if let Some(st) = matches.first() {
        let mut s = format!("\"{}\" is a step of \"{}\".\n", st.label, c.name);
        for note in &st.notes {
            s.push_str(&format!("{note}\n"));
        }
        let into: Vec<String> = c
            .transitions
            .iter()
            .enumerate()
            .filter(|(_, t)| t.targets.contains(&st.id))
            .filter_map(|(i, _)| m.describe_transition(i).map(|d| d.tool))
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
                    .map(|d| format!("{} → {}", d.tool, d.leads_to))
            })
            .collect();
        if !out.is_empty() {
            s.push_str(&format!("From there: {}.\n", out.join("; ")));
        }
        return s;
    }
    let steps: Vec<&str> = c
        .states
        .iter()
        .skip(1)
        .filter(|s| s.is_atomic_like() && !s.is_pseudo())
        .map(|s| s.label.as_str())
        .collect();
    format!(
        "No component \"{wanted}\" in \"{}\" and no how_do_i.seed section for it. Known steps: {}.",
        c.name,
        steps.join(", ")
    )
}
