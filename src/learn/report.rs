//! What `seed learn` prints: what was mined, with which thresholds, and per session how many
//! calls the draft would have refused; `--json` the same as data.

use std::fmt::Write;

use serde_json::{Value, json};

use super::Learned;
use super::miner::{Kept, Node};
use crate::report::sanitize::clean;

fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

pub fn text(l: &Learned) -> String {
    let c = &l.counts;
    let g = &l.graph;
    let t = l.thresholds;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "learned \"{}\" from {}: {} mined into {} and {} (min count {}, dependency {:.2}; {} left out)",
        l.name,
        plural(c.sessions.len() as u64, "session", "sessions"),
        plural(l.mined_calls, "call", "calls"),
        plural(g.kept.len() as u64, "activity", "activities"),
        plural(g.edges.len() as u64, "edge", "edges"),
        t.min_count,
        t.dependency,
        plural(g.rare_edges as u64, "rare edge", "rare edges"),
    );
    left_out(l, &mut out);
    what_if(l, &mut out);
    let _ = writeln!(
        out,
        "\nRaise --min-count (or --dependency) to leave more rare edges out, lower it to keep more;\nthe refused counts show what each draft would have stopped."
    );
    out
}

/// What the draft does not cover: rare activities, unspellable calls, unreadable input.
fn left_out(l: &Learned, out: &mut String) {
    let (c, g) = (&l.counts, &l.graph);
    if !g.left_out.is_empty() {
        let names: Vec<String> = g
            .left_out
            .iter()
            .take(10)
            .map(|&i| {
                format!(
                    "{} ({})",
                    clean(c.label(i), 80),
                    plural(c.calls[i], "call", "calls")
                )
            })
            .collect();
        let more = g.left_out.len().saturating_sub(10);
        let _ = writeln!(
            out,
            "left out:  {}{}",
            names.join(", "),
            if more > 0 {
                format!(", and {more} more")
            } else {
                String::new()
            }
        );
    }
    if l.unspellable > 0 {
        let _ = writeln!(
            out,
            "left out:  {} whose tool name no pattern can spell",
            plural(l.unspellable, "call", "calls")
        );
    }
    if l.skipped_lines > 0 {
        let _ = writeln!(
            out,
            "skipped:   {} that were not records or transcript lines",
            plural(l.skipped_lines as u64, "line", "lines")
        );
    }
    for (f, e) in &l.unreadable {
        let _ = writeln!(
            out,
            "skipped:   {}: {}",
            clean(&f.display().to_string(), 200),
            clean(e, 200)
        );
    }
}

/// Per session, how many calls the draft would have refused, and the first of them.
fn what_if(l: &Learned, out: &mut String) {
    let _ = writeln!(
        out,
        "\nwhat-if: each session replayed through the draft, enforced"
    );
    let _ = writeln!(out, "  {:>7}  {:>7}  session", "calls", "refused");
    let (mut calls, mut refused) = (0usize, 0usize);
    for s in &l.sessions {
        calls += s.calls;
        refused += s.refused;
        let _ = writeln!(
            out,
            "  {:>7}  {:>7}  {} ({})",
            s.calls,
            s.refused,
            clean(&s.source, 120),
            clean(&s.session, 40)
        );
        for r in &s.first_refused {
            let _ = writeln!(
                out,
                "  {:>16}  #{} {}: {}",
                "",
                r.index,
                clean(&r.call, 60),
                clean(&r.reason, 160)
            );
        }
    }
    let _ = writeln!(out, "  {calls:>7}  {refused:>7}  all");
}

pub fn json(l: &Learned) -> Value {
    let c = &l.counts;
    let node = |n: Node| match n {
        Node::Start => Value::String("start".into()),
        Node::End => Value::String("end".into()),
        Node::Act(i) => Value::String(c.label(i).to_string()),
    };
    let kept: std::collections::BTreeSet<usize> = l.graph.kept.iter().copied().collect();
    let activities: Vec<Value> = (0..c.calls.len())
        .map(|i| {
            json!({"activity": c.label(i), "pattern": c.activities()[i].pattern,
                   "calls": c.calls[i], "kept": kept.contains(&i)})
        })
        .collect();
    let edges: Vec<Value> = l
        .graph
        .edges
        .iter()
        .map(|e| {
            json!({"from": node(e.from), "to": node(e.to), "count": e.count,
                   "dependency": (e.dependency * 1000.0).round() / 1000.0,
                   "alternation": (e.loop2 * 1000.0).round() / 1000.0,
                   "kept": match e.kept { Kept::Threshold => "threshold", Kept::Strongest => "strongest", Kept::ToEnd => "to_end" }})
        })
        .collect();
    json!({
        "name": l.name,
        "sessions": l.sessions,
        "mined_calls": l.mined_calls,
        "unspellable_calls": l.unspellable,
        "skipped_lines": l.skipped_lines,
        "unreadable": l.unreadable.iter().map(|(f, e)| json!({"path": f.display().to_string(), "error": e})).collect::<Vec<_>>(),
        "thresholds": {"min_count": l.thresholds.min_count, "dependency": l.thresholds.dependency},
        "activities": activities,
        "edges": edges,
        "rare_edges": l.graph.rare_edges,
        "refused": l.sessions.iter().map(|s| s.refused).sum::<usize>(),
        "draft": {"manifest": l.draft.manifest, "diagram": l.draft.diagram, "diagram_file": l.draft.diagram_file},
    })
}
