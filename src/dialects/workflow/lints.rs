//! The dialect's lints on the compiled chart (seed 003's verification plan): path coverage —
//! an ending reachable from every node (every node reachable from the start is the engine's
//! `unreachable` lint) — plus loops that need no tool call, and `${var}` texts that name
//! nothing the workflow sets.

use std::collections::BTreeSet;

use petgraph::algo::kosaraju_scc;
use petgraph::graph::DiGraph;

use super::compile::Cx;
use super::schema::{Node, Sp, span_of};
use crate::engine::ir::{Action, Chart, Span, StateId, StateKind, Trigger};
use crate::engine::lint::Lint;

/// Variables the environment provides; `${…}` naming them is fine.
const ENV_VARS: &[&str] = &[
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_PLUGIN_ROOT",
    "HOME",
    "HEAVEN_DATA_DIR",
    "SEED_HOME",
    "CLAUDE_SESSION_ID",
];

pub fn check(chart: &Chart, text: &str) -> Vec<Lint> {
    let mut out = Vec::new();
    coverage(chart, &mut out);
    eventless_loops(chart, &mut out);
    interpolation(chart, text, &mut out);
    out
}

/// Successors of each state: its transitions' targets, and a compound's initial child.
fn successors(chart: &Chart) -> Vec<Vec<usize>> {
    let mut succ = vec![Vec::new(); chart.states.len()];
    // Entering a compound enters its initial child.
    for s in &chart.states {
        if let StateKind::Compound { initial } = s.kind {
            succ[s.id.index()].push(initial.index());
        }
    }
    for t in &chart.transitions {
        for x in &t.targets {
            succ[t.source.index()].push(x.index());
        }
    }
    succ
}

fn coverage(chart: &Chart, out: &mut Vec<Lint>) {
    let succ = successors(chart);
    let mut seen = vec![false; chart.states.len()];
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(u) = stack.pop() {
        for &v in &succ[u] {
            if !seen[v] {
                seen[v] = true;
                stack.push(v);
            }
        }
    }
    let mut pred = vec![Vec::new(); chart.states.len()];
    for (u, vs) in succ.iter().enumerate() {
        for &v in vs {
            pred[v].push(u);
        }
    }
    let mut finishes = vec![false; chart.states.len()];
    let mut stack: Vec<usize> = chart
        .states
        .iter()
        .filter(|s| s.is_final())
        .map(|s| s.id.index())
        .collect();
    for &f in &stack {
        finishes[f] = true;
    }
    while let Some(v) = stack.pop() {
        for &u in &pred[v] {
            if !finishes[u] {
                finishes[u] = true;
                stack.push(u);
            }
        }
    }
    // A node or ending the start does not lead to is the engine's `unreachable` finding (once
    // per node, with why): reported there, not twice.
    for s in chart.states.iter().skip(1) {
        if seen[s.id.index()] && !finishes[s.id.index()] {
            out.push(Lint::error(
                "workflow-no-ending",
                format!("path coverage: no ending can be reached from `{}`", s.key),
                s.span,
            ));
        }
    }
}

/// Loops made only of eventless moves spin until the engine's microstep cap (a livelock).
fn eventless_loops(chart: &Chart, out: &mut Vec<Lint>) {
    let mut g: DiGraph<StateId, ()> = DiGraph::new();
    let idx: Vec<_> = chart.states.iter().map(|s| g.add_node(s.id)).collect();
    let mut self_loops = BTreeSet::new();
    for t in chart
        .transitions
        .iter()
        .filter(|t| t.trigger == Trigger::Always)
    {
        for x in &t.targets {
            if *x == t.source {
                self_loops.insert(x.index());
            }
            g.add_edge(idx[t.source.index()], idx[x.index()], ());
        }
    }
    for comp in kosaraju_scc(&g) {
        if comp.len() < 2
            && !comp
                .first()
                .is_some_and(|n| self_loops.contains(&n.index()))
        {
            continue;
        }
        let mut ids: Vec<StateId> = comp.iter().map(|n| g[*n]).collect();
        ids.sort();
        let keys: Vec<&str> = ids.iter().map(|i| chart.state(*i).key.as_str()).collect();
        out.push(Lint::warning(
            "workflow-eventless-loop",
            format!("`{}` loop without any tool call: unless a guard changes, the engine stops it as a livelock", keys.join(" → ")),
            ids.first().and_then(|i| chart.state(*i).span),
        ));
    }
}

/// `${name}` in the text (a value, a note, a call's URL, path or command) where `name` is not
/// an environment variable and the workflow never gives it a value: not declared at all, or
/// declared `null` and never set (the call or text then never has it).
fn interpolation(chart: &Chart, text: &str, out: &mut Vec<Lint>) {
    let declared: BTreeSet<String> = chart
        .vars
        .keys()
        .map(|k| k.trim_start_matches("flags.").to_string())
        .collect();
    // Written: an action sets it, or it starts with a value.
    let mut known: BTreeSet<String> = chart
        .vars
        .iter()
        .filter(|(k, v)| k.starts_with("flags.") || !v.is_null())
        .map(|(k, _)| k.trim_start_matches("flags.").to_string())
        .collect();
    known.extend(ENV_VARS.iter().map(|s| s.to_string()));
    for a in chart.all_actions() {
        match a {
            Action::SetFlag { name, .. }
            | Action::SetVar { name, .. }
            | Action::SetVarFromInput { name, .. }
            | Action::SetVarFromResult { name, .. }
            | Action::AppendVar { name, .. }
            | Action::MergeVar { name, .. }
            | Action::CountVar { name, .. } => {
                let head = name.split('.').next().unwrap_or(name);
                known.insert(head.to_string());
            }
            _ => {}
        }
    }
    let mut reported = BTreeSet::new();
    for (ln, line) in text.lines().enumerate() {
        let code = match line.find(" #") {
            Some(i) if !line[..i].contains(['"', '\'']) => &line[..i],
            _ => line,
        };
        if code.trim_start().starts_with('#') {
            continue;
        }
        let mut from = 0;
        while let Some(i) = code[from..].find("${") {
            let start = from + i;
            let Some(len) = code[start..].find('}') else {
                break;
            };
            let name = &code[start + 2..start + len];
            let head = name.split('.').next().unwrap_or(name);
            if !known.contains(name) && !known.contains(head) && reported.insert(name.to_string()) {
                let col = code[..start].chars().count() as u32 + 1;
                let at = Some(Span::at(ln as u32 + 1, col));
                out.push(if declared.contains(head) {
                    Lint::warning(
                        "workflow-never-written",
                        format!("`${{{name}}}` reads `{head}`, which starts as null and nothing in this workflow sets: give it a value (a `store_as`, a `set_state`) before it is read"),
                        at,
                    )
                } else {
                    Lint::warning(
                        "workflow-unknown-variable",
                        format!("`${{{name}}}` names nothing this workflow sets; the text keeps it as written"),
                        at,
                    )
                });
            }
            from = start + len;
        }
    }
}

/// Schema validation: keys a node type does not use are reported, not silently dropped.
pub fn stray_keys(cx: &mut Cx, kind: &str, name: &Sp<String>, n: &Node) {
    let used: &[&str] = match kind {
        "action" => &["actions", "on_success", "on_failure"],
        "conditional" => &["condition", "branches"],
        "user_prompt" => &["prompt", "on_response", "store_as"],
        "validation_gate" => &["validations", "on_valid", "on_invalid"],
        "reference" => &["doc", "section", "context", "next_node"],
        _ => return,
    };
    let present = [
        ("actions", n.actions.is_some()),
        ("on_success", n.on_success.is_some()),
        ("on_failure", n.on_failure.is_some()),
        ("condition", n.condition.is_some()),
        ("branches", n.branches.is_some()),
        ("prompt", n.prompt.is_some()),
        ("store_as", n.store_as.is_some()),
        ("on_response", n.on_response.is_some()),
        ("validations", n.validations.is_some()),
        ("on_valid", n.on_valid.is_some()),
        ("on_invalid", n.on_invalid.is_some()),
        ("doc", n.doc.is_some()),
        ("section", n.section.is_some()),
        ("context", n.context.is_some()),
        ("next_node", n.next_node.is_some()),
    ];
    for (key, set) in present {
        if set && !used.contains(&key) {
            cx.warn(
                "workflow-unused-key",
                format!(
                    "`{key}` is not used by a {kind} node (`{}`); it uses {}",
                    name.value,
                    used.join(", ")
                ),
                span_of(name),
            );
        }
    }
}
