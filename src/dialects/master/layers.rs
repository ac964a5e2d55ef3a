//! `progress_layers` become progress bands; tools no layer lists are placed in path order.

use std::collections::{BTreeMap, VecDeque};

use serde_json::{Map, Value};

use super::spans::key_spans;
use super::{Ctx, as_object};
use crate::dialects::locate::LoadError;
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{Band, StateId};

/// `progress_layers`: `{ "base": [0, 50] }` or `{ "base": { "range": [0, 50], "steps": [...] } }`.
/// Tools no layer lists fall into the layer of the step before them, or, when no layer lists
/// steps at all, are spread over the layers in path order.
pub(super) fn layers(
    cx: &Ctx,
    obj: &Map<String, Value>,
    b: &mut ChartBuilder,
    tools: &BTreeMap<String, StateId>,
) -> Result<(), LoadError> {
    let Some(v) = obj.get("progress_layers") else {
        return Ok(());
    };
    let mut bands: Vec<Band> = Vec::new();
    let layer_map = as_object(cx, v, "progress_layers")?;
    let spans = key_spans(cx.text, "\"progress_layers\"", layer_map.keys(), true);
    for (name, spec) in layer_map {
        let (range, steps) = match spec {
            Value::Array(_) => (spec, None),
            Value::Object(o) => (
                o.get("range").ok_or_else(|| {
                    cx.err(
                        &["progress_layers", name],
                        format!("layer `{name}` needs `range: [lo, hi]`"),
                    )
                })?,
                o.get("steps"),
            ),
            _ => {
                return Err(cx.err(
                    &["progress_layers", name],
                    format!("layer `{name}` must be [lo, hi] or {{ range, steps }}"),
                ));
            }
        };
        let nums: Vec<f64> = range
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        if nums.len() != 2 {
            return Err(cx.err(
                &["progress_layers", name],
                format!("layer `{name}`: expected a range of two numbers [lo, hi]"),
            ));
        }
        let mut states = Vec::new();
        if let Some(steps) = steps {
            let list = steps.as_array().ok_or_else(|| {
                cx.err(
                    &["progress_layers", name, "steps"],
                    "`steps` must be an array of tool names",
                )
            })?;
            for s in list {
                let s = s.as_str().unwrap_or_default();
                let id = tools.get(s).ok_or_else(|| {
                    cx.err(
                        &["progress_layers", name, s],
                        format!("layer `{name}` lists `{s}`, which is not in tool_transitions"),
                    )
                })?;
                states.push(*id);
            }
        }
        bands.push(Band {
            name: name.clone(),
            lo: nums[0],
            hi: nums[1],
            states,
            span: spans.get(name).copied(),
        });
    }
    assign_unlisted(b, &mut bands, tools);
    for band in bands {
        b.add_band(band);
    }
    Ok(())
}

fn assign_unlisted(b: &ChartBuilder, bands: &mut [Band], tools: &BTreeMap<String, StateId>) {
    if bands.is_empty() {
        return;
    }
    let chart = b.chart();
    // Path order: breadth-first from the start state over the railroad transitions.
    let mut order: Vec<StateId> = Vec::new();
    let start = chart
        .states
        .iter()
        .find(|s| s.name == "start")
        .map(|s| s.id);
    let mut queue: VecDeque<StateId> = start.into_iter().collect();
    while let Some(u) = queue.pop_front() {
        for t in chart.transitions.iter().filter(|t| t.source == u) {
            for &x in &t.targets {
                if !order.contains(&x) && tools.values().any(|v| *v == x) {
                    order.push(x);
                    queue.push_back(x);
                }
            }
        }
    }
    for id in tools.values() {
        if !order.contains(id) {
            order.push(*id);
        }
    }
    let listed_any = bands.iter().any(|b| !b.states.is_empty());
    if !listed_any {
        // Spread in path order, proportionally to each band's width.
        let total: f64 = bands
            .iter()
            .map(|b| (b.hi - b.lo).max(0.0))
            .sum::<f64>()
            .max(1e-9);
        let n = order.len();
        let mut i = 0usize;
        let mut acc = 0.0;
        let count = bands.len();
        for (bi, band) in bands.iter_mut().enumerate() {
            acc += (band.hi - band.lo).max(0.0) / total;
            let end = if bi + 1 == count {
                n
            } else {
                ((acc * n as f64).round() as usize).min(n)
            };
            while i < end {
                band.states.push(order[i]);
                i += 1;
            }
        }
        return;
    }
    let unlisted: Vec<StateId> = order
        .iter()
        .copied()
        .filter(|id| !bands.iter().any(|b| b.states.contains(id)))
        .collect();
    let open: Vec<usize> = (0..bands.len())
        .filter(|&i| bands[i].states.is_empty())
        .collect();
    if !open.is_empty() {
        // Tools no layer lists fill the layers that list none, in path order.
        let total: f64 = open
            .iter()
            .map(|&i| (bands[i].hi - bands[i].lo).max(0.0))
            .sum::<f64>()
            .max(1e-9);
        let n = unlisted.len();
        let (mut i, mut acc) = (0usize, 0.0);
        for (k, &bi) in open.iter().enumerate() {
            acc += (bands[bi].hi - bands[bi].lo).max(0.0) / total;
            let end = if k + 1 == open.len() {
                n
            } else {
                ((acc * n as f64).round() as usize).min(n)
            };
            while i < end {
                bands[bi].states.push(unlisted[i]);
                i += 1;
            }
        }
        return;
    }
    // Every layer lists steps: an unlisted tool joins the layer of the step before it.
    let mut current: Option<usize> = None;
    for id in order {
        if let Some(bi) = bands.iter().position(|b| b.states.contains(&id)) {
            current = Some(bi);
        } else if let Some(bi) = current.or(Some(0)) {
            bands[bi].states.push(id);
        }
    }
}
