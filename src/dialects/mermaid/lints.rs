//! Mermaid-specific checks on the compiled chart (the engine's own lints run in `validate`).
//! Unlabelled edges between states without activities are eventless, so a diagram drawn with
//! prose labels can loop without ever waiting for the agent: find those loops.

use std::collections::BTreeSet;

use crate::engine::Machine;
use crate::engine::ir::{Guard, StateId, StateKind, Trigger};
use crate::engine::lint::Lint;

/// States the engine would move to from `u` without any event, when that is certain (the
/// first eventless candidate has no guard). `None`: `u` waits (or it depends on data).
fn forced(m: &Machine, u: StateId) -> Option<Vec<StateId>> {
    let chart = &m.chart;
    let unguarded = |g: &Option<Guard>| g.is_none() || *g == Some(Guard::True);
    let leaves = |ti: usize| -> Vec<StateId> {
        let t = &chart.transitions[ti];
        if t.targets.is_empty() {
            return vec![u];
        }
        m.entry_set(&t.targets, m.domain(ti))
            .into_iter()
            .filter(|s| chart.state(*s).is_atomic_like())
            .collect()
    };
    let cands = m.transitions_for(u);
    if let Some(&ti) = cands
        .iter()
        .find(|&&ti| chart.transitions[ti].trigger == Trigger::Always)
    {
        return unguarded(&chart.transitions[ti].guard).then(|| leaves(ti));
    }
    let st = chart.state(u);
    if let (StateKind::Final { .. }, Some(p)) = (&st.kind, st.parent)
        && p != StateId::ROOT
    {
        let ti = cands
            .iter()
            .copied()
            .find(|&ti| chart.transitions[ti].trigger == Trigger::Done(p))?;
        return unguarded(&chart.transitions[ti].guard).then(|| leaves(ti));
    }
    None
}

pub fn eventless_loops(m: &Machine) -> Vec<Lint> {
    let chart = &m.chart;
    let n = chart.states.len();
    let succ: Vec<Option<Vec<StateId>>> = (0..n)
        .map(|i| {
            let id = StateId(i as u32);
            if chart.state(id).is_atomic_like() {
                forced(m, id)
            } else {
                None
            }
        })
        .collect();
    // Iterative DFS with colours; a grey node reached again closes a loop.
    let mut colour = vec![0u8; n];
    let mut out = Vec::new();
    let mut reported: BTreeSet<Vec<StateId>> = BTreeSet::new();
    for start in 0..n {
        if colour[start] != 0 || succ[start].is_none() {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        let mut path: Vec<usize> = vec![start];
        colour[start] = 1;
        while let Some((u, i)) = stack.last().copied() {
            let next = succ[u].as_ref().and_then(|v| v.get(i)).copied();
            let Some(v) = next else {
                colour[u] = 2;
                stack.pop();
                path.pop();
                continue;
            };
            if let Some(top) = stack.last_mut() {
                top.1 += 1;
            }
            let v = v.index();
            match colour[v] {
                0 => {
                    colour[v] = 1;
                    stack.push((v, 0));
                    path.push(v);
                }
                1 => {
                    let from = path.iter().position(|&p| p == v).unwrap_or(0);
                    let mut members: Vec<StateId> =
                        path[from..].iter().map(|&p| StateId(p as u32)).collect();
                    let keys: Vec<String> = members
                        .iter()
                        .chain(std::iter::once(&StateId(v as u32)))
                        .map(|s| chart.state(*s).key.clone())
                        .collect();
                    members.sort();
                    if reported.insert(members) {
                        out.push(Lint::warning(
                            "eventless-loop",
                            format!(
                                "eventless loop {}: no step waits for an event (the engine stops it as a livelock); give one of these states an activity or a trigger",
                                keys.join(" → ")
                            ),
                            chart.state(StateId(v as u32)).span,
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    out
}
