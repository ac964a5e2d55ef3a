//! The draft as a Mermaid statechart and its manifest: one state per activity (the last call
//! made), one edge per kept `a > b` with how often it was seen, where sessions start and end.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::activity::NEUTRAL;
use super::miner::{Counts, Edge, Graph, Kept, Node, Thresholds};

pub struct Draft {
    /// The manifest (`<name>.toml`).
    pub manifest: String,
    /// The diagram (`<name>.mmd`), which the manifest names.
    pub diagram: String,
    pub diagram_file: String,
}

/// Words a Mermaid diagram reserves: a state id must be none of them.
const RESERVED: &[&str] = &[
    "state",
    "note",
    "end",
    "direction",
    "as",
    "start",
    "classDef",
    "class",
];

/// State ids: the label's letters and digits, `_` between words, unique.
fn ids(c: &Counts, g: &Graph) -> BTreeMap<usize, String> {
    let mut used: BTreeSet<String> = BTreeSet::from(["start".to_string()]);
    let mut out = BTreeMap::new();
    for &i in &g.kept {
        let mut base: String = c.activities()[i]
            .label
            .chars()
            .map(|ch| {
                if ch.is_ascii_alphanumeric() {
                    ch.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect::<String>()
            .split('_')
            .filter(|w| !w.is_empty())
            .take(6)
            .collect::<Vec<_>>()
            .join("_");
        if base.is_empty()
            || RESERVED.contains(&base.as_str())
            || base.starts_with(|ch: char| ch.is_ascii_digit())
        {
            base = format!("call_{base}");
        }
        let mut id = base.clone();
        let mut n = 2;
        while !used.insert(id.clone()) {
            id = format!("{base}_{n}");
            n += 1;
        }
        out.insert(i, id);
    }
    out
}

fn times(n: u64) -> String {
    if n == 1 {
        "once".into()
    } else {
        format!("{n} times")
    }
}

pub fn render(name: &str, c: &Counts, g: &Graph, t: Thresholds, total_calls: u64) -> Draft {
    let ids = ids(c, g);
    let diagram_file = format!("{name}.mmd");
    let mut d = String::new();
    let _ = writeln!(d, "---\ntitle: {name}\n---\nstateDiagram-v2");
    let _ = writeln!(
        d,
        "    %% Drafted by `seed learn` from {} session{} ({} calls, neutral ones left out): the\n    %% heuristics miner's dependency graph (Weijters & van der Aalst). An edge a --> b is kept\n    %% when b directly followed a at least {} times and (|a>b| - |b>a|) / (|a>b| + |b>a| + 1)\n    %% >= {} (or a and b alternate that surely); each activity also keeps its strongest way in\n    %% and out. A state is the last call made; each edge says how often it was seen.",
        c.sessions.len(),
        if c.sessions.len() == 1 { "" } else { "s" },
        total_calls,
        t.min_count,
        t.dependency
    );
    write_states(&mut d, c, g, &ids);
    let _ = writeln!(d, "\n    [*] --> start");
    write_edges(&mut d, c, g, &ids);
    Draft {
        manifest: manifest(name, c, &diagram_file),
        diagram: d,
        diagram_file,
    }
}

/// One state per kept activity, named by its call and how often it was made.
fn write_states(d: &mut String, c: &Counts, g: &Graph, ids: &BTreeMap<usize, String>) {
    let _ = writeln!(d, "\n    state \"start\\nno call yet\" as start");
    for &i in &g.kept {
        let ends = g.ends.get(&Node::Act(i)).copied().unwrap_or(0);
        let ended = if ends > 0 {
            format!(
                ", {ends} session{} ended here",
                if ends == 1 { "" } else { "s" }
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            d,
            "    state \"{}\\ncalled {}{ended}\" as {}",
            c.label(i),
            times(c.calls[i]),
            ids[&i]
        );
    }
}

/// The kept edges, grouped by the state they leave, each with how often it was seen.
fn write_edges(d: &mut String, c: &Counts, g: &Graph, ids: &BTreeMap<usize, String>) {
    let id = |n: Node| match n {
        Node::Start => "start".to_string(),
        Node::End => "[*]".to_string(),
        Node::Act(i) => ids[&i].clone(),
    };
    // From each state, the more specific patterns first: a `git status` is not taken by the
    // `git` edge of the same state.
    let rank = |n: Node| match n {
        Node::Act(i) => c.activities()[i].rank,
        _ => 0,
    };
    let mut by_source: BTreeMap<Node, Vec<&Edge>> = BTreeMap::new();
    for e in &g.edges {
        by_source.entry(e.from).or_default().push(e);
    }
    for (from, mut out) in by_source {
        out.sort_by(|a, b| {
            rank(b.to)
                .cmp(&rank(a.to))
                .then(b.count.cmp(&a.count))
                .then(a.to.cmp(&b.to))
        });
        let _ = writeln!(d);
        for e in out {
            let _ = writeln!(d, "    %% {}", edge_note(e));
            let trigger = match e.to {
                Node::Act(i) => c.activities()[i].pattern.clone(),
                _ => "SessionEnd".into(),
            };
            let _ = writeln!(d, "    {} --> {} : {trigger}", id(from), id(e.to));
        }
    }
}

/// The manifest beside the diagram: advise mode, off-path calls denied, neutral tools.
fn manifest(name: &str, c: &Counts, diagram_file: &str) -> String {
    let neutral: Vec<String> = NEUTRAL.iter().map(|n| format!("\"{n}\"")).collect();
    format!(
        "# Drafted by `seed learn` from {sessions} session{s}: the workflow the agent followed. Edit\n\
         # it freely; `seed validate {name}.toml` checks it, `seed learn … --min-count N` drafts\n\
         # again with another threshold.\n\
         name = \"{name}\"\n\
         description = \"Drafted from {sessions} session{s}: the calls that followed one another\"\n\
         diagram = \"{diagram_file}\"\n\n\
         # advise: the agent is told when it leaves the drafted workflow. Write \"enforce\" to refuse.\n\
         enforcement = \"advise\"\n\
         # A call the draft does not expect after the last one is off the path.\n\
         off_path = \"deny\"\n\
         # Calls allowed anywhere (they were left out of the mining).\n\
         neutral_tools = [{neutral}]\n",
        sessions = c.sessions.len(),
        s = if c.sessions.len() == 1 { "" } else { "s" },
        neutral = neutral.join(", "),
    )
}

fn edge_note(e: &Edge) -> String {
    let seen = match (e.from, e.to) {
        (Node::Start, _) => format!(
            "{} session{} started so",
            e.count,
            if e.count == 1 { "" } else { "s" }
        ),
        (_, Node::End) => format!(
            "{} session{} ended so",
            e.count,
            if e.count == 1 { "" } else { "s" }
        ),
        _ if e.loop2 > 0.0 => format!(
            "{} (dependency {:.2}; the two alternate: {:.2})",
            times(e.count),
            e.dependency,
            e.loop2
        ),
        _ => format!("{} (dependency {:.2})", times(e.count), e.dependency),
    };
    match e.kept {
        Kept::Threshold => seen,
        Kept::Strongest => {
            format!("{seen}; below the threshold, kept as the strongest way in or out")
        }
        Kept::ToEnd => format!("{seen}; added so the draft can end here"),
    }
}
