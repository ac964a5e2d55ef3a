//! Progress on random master sequences with layers: for any chart `seed validate` passes
//! without errors, the overall bar never falls along a forward move (one that leaves no loop
//! behind it), whatever the layers list and however the tools are spread over them.

use petgraph::algo::kosaraju_scc;
use petgraph::graph::DiGraph;
use proptest::prelude::*;
use seed::dialects::load_text;
use seed::engine::ir::StateId;
use seed::engine::lint::Severity;
use seed::engine::{Event, Facts, Machine, Phase};
use serde_json::{Map, Value, json};

/// A tool name: a few servers, so runs of one server and changes of server both occur; some
/// plain tools without a server.
fn tool(i: usize) -> String {
    match i % 4 {
        0 => format!("alpha.t{i}"),
        1 => format!("beta.t{i}"),
        2 => format!("alpha.u{i}"),
        _ => format!("T{i}"),
    }
}

#[derive(Debug, Clone)]
struct Spec {
    /// Per tool: the tools it may lead to (indexes, any direction: loops and back edges too).
    next: Vec<Vec<usize>>,
    /// Layer widths (they tile [0, 100]) and, per layer, the tools it lists (maybe none).
    layers: Vec<(u8, Vec<usize>)>,
}

fn spec() -> impl Strategy<Value = Spec> {
    (2usize..9).prop_flat_map(|n| {
        let next = prop::collection::vec(prop::collection::vec(0..n, 0..3), n);
        let layers = prop::collection::vec((1u8..10, prop::collection::vec(0..n, 0..3)), 1..4);
        (next, layers).prop_map(|(next, layers)| Spec { next, layers })
    })
}

fn text(s: &Spec) -> String {
    let mut transitions = Map::new();
    for (i, next) in s.next.iter().enumerate() {
        let names: Vec<Value> = next.iter().map(|j| json!(tool(*j))).collect();
        transitions.insert(tool(i), json!({ "next_allowed": names }));
    }
    let total: u32 = s.layers.iter().map(|(w, _)| u32::from(*w)).sum();
    let mut layers = Map::new();
    let mut lo = 0.0;
    for (k, (w, steps)) in s.layers.iter().enumerate() {
        let hi = if k + 1 == s.layers.len() {
            100.0
        } else {
            lo + 100.0 * f64::from(*w) / f64::from(total)
        };
        let mut spec = Map::new();
        spec.insert("range".into(), json!([lo, hi]));
        if !steps.is_empty() {
            let names: Vec<Value> = steps.iter().map(|j| json!(tool(*j))).collect();
            spec.insert("steps".into(), Value::Array(names));
        }
        layers.insert(format!("layer{k}"), Value::Object(spec));
        lo = hi;
    }
    json!({
        "name": "random",
        "start": [tool(0)],
        "tool_transitions": transitions,
        "progress_layers": layers,
    })
    .to_string()
}

/// The strongly connected component of each state, over the chart's transitions.
fn components(m: &Machine) -> Vec<usize> {
    let n = m.chart.states.len();
    let mut g: DiGraph<usize, ()> = DiGraph::new();
    let nodes: Vec<_> = (0..n).map(|i| g.add_node(i)).collect();
    for t in &m.chart.transitions {
        for x in &t.targets {
            g.update_edge(nodes[t.source.index()], nodes[x.index()], ());
        }
    }
    let mut comp = vec![0; n];
    for (c, members) in kosaraju_scc(&g).into_iter().enumerate() {
        for v in members {
            comp[g[v]] = c;
        }
    }
    comp
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn progress_never_falls_on_a_forward_move_of_a_valid_chart(
        s in spec(),
        picks in prop::collection::vec(any::<u16>(), 1..30),
    ) {
        let Ok(loaded) = load_text("random.json", &text(&s), &|_| None) else {
            // A layer listing a tool twice in one list, and the like: refused at load.
            return Ok(());
        };
        let m = Machine::new(loaded.chart);
        let lints = m.lint();
        prop_assume!(lints.iter().all(|l| l.severity != Severity::Error));
        let comp = components(&m);
        let tools: Vec<Event> = (0..s.next.len())
            .map(|i| Event::tool(&tool(i), Value::Null))
            .collect();
        let facts = Facts::new();
        let mut snap = m.start(&facts);
        for p in picks {
            let ev = &tools[p as usize % tools.len()];
            let before = m.progress(&snap).overall;
            let report = m.step(&mut snap, Phase::Advance, ev, &facts);
            let after = m.progress(&snap).overall;
            let moves: Vec<(StateId, StateId)> = report
                .microsteps
                .iter()
                .flat_map(|ms| ms.transitions.iter())
                .flat_map(|&ti| {
                    let t = &m.chart.transitions[ti];
                    t.targets.iter().map(move |x| (t.source, *x))
                })
                .collect();
            let forward = moves.iter().all(|(a, b)| comp[a.index()] != comp[b.index()]);
            if forward {
                prop_assert!(
                    after + 1e-9 >= before,
                    "{before} -> {after} on {ev} in {}\n{lints:?}",
                    text(&s)
                );
            }
            prop_assert!((0.0..=100.0).contains(&after));
        }
    }
}

/// A railroad of `next` (tool `i` leads to the tools listed) whose tools are named by
/// `name`, with layers of the given widths that list no steps: the spreading places them all.
fn unlisted(next: &[Vec<usize>], widths: &[u8], name: &dyn Fn(usize) -> String) -> String {
    let mut transitions = Map::new();
    for (i, to) in next.iter().enumerate() {
        let names: Vec<Value> = to.iter().map(|j| json!(name(*j))).collect();
        transitions.insert(name(i), json!({ "next_allowed": names }));
    }
    let total: u32 = widths.iter().map(|w| u32::from(*w)).sum();
    let mut layers = Map::new();
    let mut lo = 0.0;
    for (k, w) in widths.iter().enumerate() {
        let hi = if k + 1 == widths.len() {
            100.0
        } else {
            lo + 100.0 * f64::from(*w) / f64::from(total)
        };
        layers.insert(format!("layer{k}"), json!([lo, hi]));
        lo = hi;
    }
    json!({
        "name": "spread",
        "start": [name(0)],
        "tool_transitions": transitions,
        "progress_layers": layers,
    })
    .to_string()
}

/// Each layer's steps (tools that lead on; endings join the step before them), in range
/// order, and how many steps there are.
fn filled(text: &str) -> Option<(Vec<usize>, usize)> {
    let chart = load_text("spread.json", text, &|_| None).ok()?.chart;
    let step = |s: &seed::engine::ir::StateId| !chart.state(*s).is_final();
    let steps = chart
        .states
        .iter()
        .filter(|s| s.activity.is_some() && !s.is_final())
        .count();
    let counts = chart
        .bands
        .iter()
        .map(|b| b.states.iter().filter(|s| step(s)).count())
        .collect();
    Some((counts, steps))
}

fn railroads() -> impl Strategy<Value = (Vec<Vec<usize>>, Vec<u8>)> {
    (2usize..12).prop_flat_map(|n| {
        (
            prop::collection::vec(prop::collection::vec(0..n, 0..3), n),
            prop::collection::vec(1u8..20, 1..5),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// One server's tools, however the layers are cut: with a step for every layer, none is
    /// left empty (a bar that stays empty, then fills at once, is a jump).
    #[test]
    fn one_servers_steps_leave_no_layer_empty((next, widths) in railroads()) {
        let text = unlisted(&next, &widths, &|i| format!("s.t{i}"));
        let Some((counts, steps)) = filled(&text) else { return Ok(()) };
        if steps >= counts.len() {
            prop_assert!(counts.iter().all(|c| *c > 0), "{counts:?} of {steps} steps:\n{text}");
        }
    }

    /// Any servers: layers fill in range order, so an empty layer never comes before one that
    /// holds steps.
    #[test]
    fn layers_fill_in_range_order((next, widths) in railroads()) {
        let text = unlisted(&next, &widths, &tool);
        let Some((counts, _)) = filled(&text) else { return Ok(()) };
        let first_empty = counts.iter().position(|c| *c == 0).unwrap_or(counts.len());
        prop_assert!(counts[first_empty..].iter().all(|c| *c == 0), "{counts:?}:\n{text}");
    }
}
