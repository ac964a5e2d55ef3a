//! `progress_layers` become progress bands; tools no layer lists are placed in path order.
//!
//! Seed 000's example lists no steps: its layers are identity (`seed.*`), project context
//! (`starlog.*`, ending with the flight) and execution. The rule that recovers them from the
//! railroad alone: spread the steps over the layers in path order, in proportion to each
//! layer's width, with each boundary moved to a change of server (`seed.*` → `starlog.*`) up
//! to one step away — the later one on a tie — so one server's run of steps stays in one
//! layer; a tool that ends the railroad belongs to the layer of the step before it. No layer
//! is left empty while steps remain for it, unless the steps end one step from its boundary
//! at a change of server (seed 000's flight, before the subchains the example leaves out).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use serde_json::{Map, Value};

use super::spans::key_spans;
use super::{Ctx, as_object};
use crate::dialects::locate::LoadError;
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{Band, StateId};
use crate::engine::tool_name::canonical_tool_name;

/// `progress_layers`: `{ "base": [0, 50] }` or `{ "base": { "range": [0, 50], "steps": [...] } }`.
/// Tools no layer lists are spread over the layers that list none (see the module's rule), or,
/// when every layer lists steps, fall into the layer of the step before them.
pub(super) fn layers(
    cx: &Ctx,
    obj: &Map<String, Value>,
    b: &mut ChartBuilder,
    tools: &BTreeMap<String, StateId>,
) -> Result<(), LoadError> {
    let Some(v) = obj.get("progress_layers") else {
        return Ok(());
    };
    let layer_map = as_object(cx, v, "progress_layers")?;
    let spans = key_spans(cx.text, "\"progress_layers\"", layer_map.keys(), true);
    let mut bands: Vec<Band> = Vec::new();
    for (name, spec) in layer_map {
        let (lo, hi, steps) = layer(cx, name, spec)?;
        bands.push(Band {
            name: name.clone(),
            lo,
            hi,
            states: match steps {
                Some(steps) => listed_steps(cx, name, steps, tools)?,
                None => Vec::new(),
            },
            span: spans.get(name).copied(),
        });
    }
    assign_unlisted(b, &mut bands, tools);
    for band in bands {
        b.add_band(band);
    }
    Ok(())
}

/// A layer's range, and the steps it lists (if it does).
fn layer<'v>(
    cx: &Ctx,
    name: &str,
    spec: &'v Value,
) -> Result<(f64, f64, Option<&'v Value>), LoadError> {
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
    match nums.as_slice() {
        [lo, hi] => Ok((*lo, *hi, steps)),
        _ => Err(cx.err(
            &["progress_layers", name],
            format!("layer `{name}`: expected a range of two numbers [lo, hi]"),
        )),
    }
}

/// A layer's `steps`: tools of `tool_transitions`.
fn listed_steps(
    cx: &Ctx,
    name: &str,
    steps: &Value,
    tools: &BTreeMap<String, StateId>,
) -> Result<Vec<StateId>, LoadError> {
    let list = steps.as_array().ok_or_else(|| {
        cx.err(
            &["progress_layers", name, "steps"],
            "`steps` must be an array of tool names",
        )
    })?;
    let mut states = Vec::new();
    for s in list {
        let s = s.as_str().ok_or_else(|| {
            cx.err(
                &["progress_layers", name, "steps"],
                format!("layer `{name}`: `steps` entries must be tool names (strings), not {s}"),
            )
        })?;
        let id = tools.get(&canonical_tool_name(s)).ok_or_else(|| {
            cx.err(
                &["progress_layers", name, s],
                format!("layer `{name}` lists `{s}`, which is not in tool_transitions"),
            )
        })?;
        states.push(*id);
    }
    Ok(states)
}

/// Tools in path order: breadth-first from the railroad's start, then tools nothing reaches.
fn path_order(b: &ChartBuilder, tools: &BTreeMap<String, StateId>) -> Vec<StateId> {
    let chart = b.chart();
    let is_tool: HashSet<StateId> = tools.values().copied().collect();
    let mut order: Vec<StateId> = Vec::new();
    let mut seen: HashSet<StateId> = HashSet::new();
    let start = chart
        .states
        .iter()
        .find(|s| s.name == "start")
        .map(|s| s.id);
    let mut queue: VecDeque<StateId> = start.into_iter().collect();
    while let Some(u) = queue.pop_front() {
        for t in chart.transitions.iter().filter(|t| t.source == u) {
            for &x in &t.targets {
                if is_tool.contains(&x) && seen.insert(x) {
                    order.push(x);
                    queue.push_back(x);
                }
            }
        }
    }
    for id in tools.values() {
        if seen.insert(*id) {
            order.push(*id);
        }
    }
    order
}

fn assign_unlisted(b: &ChartBuilder, bands: &mut [Band], tools: &BTreeMap<String, StateId>) {
    if bands.is_empty() {
        return;
    }
    let order = path_order(b, tools);
    let listed: HashSet<StateId> = bands
        .iter()
        .flat_map(|b| b.states.iter().copied())
        .collect();
    let unlisted: Vec<StateId> = order
        .iter()
        .copied()
        .filter(|id| !listed.contains(id))
        .collect();
    let open: Vec<usize> = (0..bands.len())
        .filter(|&i| bands[i].states.is_empty())
        .collect();
    if !open.is_empty() {
        spread(b, bands, &open, &unlisted);
        return;
    }
    // Every layer lists steps: an unlisted tool joins the layer of the step before it.
    let band_of: HashMap<StateId, usize> = bands
        .iter()
        .enumerate()
        .flat_map(|(i, b)| b.states.iter().map(move |s| (*s, i)))
        .collect();
    let mut current: Option<usize> = None;
    for id in order {
        if let Some(&bi) = band_of.get(&id) {
            current = Some(bi);
        } else if let Some(bi) = current.or(Some(0)) {
            bands[bi].states.push(id);
        }
    }
}

/// The server a tool belongs to (`starlog` of `starlog.check` or `mcp__starlog__check`); a
/// plain tool has none.
fn server(b: &ChartBuilder, id: StateId) -> Option<String> {
    canonical_tool_name(&b.state(id).name)
        .split_once('.')
        .map(|(s, _)| s.to_string())
}

/// Spread `tools` (in path order) over the `open` layers, lowest range first, by the rule of
/// the module's documentation.
fn spread(b: &ChartBuilder, bands: &mut [Band], open: &[usize], tools: &[StateId]) {
    let (endings, steps): (Vec<StateId>, Vec<StateId>) =
        tools.iter().partition(|id| b.state(**id).is_final());
    let mut open = open.to_vec();
    open.sort_by(|x, y| bands[*x].lo.total_cmp(&bands[*y].lo));
    let n = steps.len();
    let servers: Vec<Option<String>> = steps.iter().map(|s| server(b, *s)).collect();
    // The steps' end is a change of server when what follows the last step (the endings it
    // leads to, which join its layer) is another server's: seed 000's context layer ends
    // with the flight, and its execution layer holds the subchains the file leaves out.
    let end_changes_server = steps.last().is_some_and(|&l| {
        let own = server(b, l);
        let endings: Vec<StateId> = b
            .chart()
            .transitions
            .iter()
            .filter(|t| t.source == l)
            .flat_map(|t| t.targets.iter().copied())
            .filter(|x| b.state(*x).is_final())
            .collect();
        !endings.is_empty() && (own.is_none() || endings.iter().all(|x| server(b, *x) != own))
    });
    // A boundary between two steps of one server costs one step more than one at a change
    // of server (or at the start).
    let split_cost = |i: usize| {
        let same = if i == n {
            !end_changes_server
        } else {
            i > 0 && servers[i - 1].is_some() && servers[i - 1] == servers[i]
        };
        if same { 1.0 } else { 0.0 }
    };
    let widths: Vec<f64> = open
        .iter()
        .map(|&i| (bands[i].hi - bands[i].lo).max(0.0))
        .collect();
    let total: f64 = widths.iter().sum::<f64>().max(1e-9);
    let mut band_of: HashMap<StateId, usize> = HashMap::new();
    let (mut from, mut acc) = (0usize, 0.0);
    for (k, &bi) in open.iter().enumerate() {
        acc += widths[k] / total;
        let end = if k + 1 == open.len() {
            n
        } else {
            let target = acc * n as f64;
            let cost = |c: usize| (c as f64 - target).abs() + split_cost(c);
            // While steps remain, this layer takes one and leaves one for each later layer
            // (lower layers first when there are too few): a bar that stays empty and then
            // fills at once is a jump. Only the steps' end, at a change of server one step
            // from the boundary's place, may leave the later layers to what the file omits.
            let later = open.len() - k - 1;
            let lo = if from < n { from + 1 } else { from };
            let hi = n.saturating_sub(later).max(lo);
            let end_ok = split_cost(n) == 0.0 && (n as f64 - target).abs() <= 1.0;
            // The cheapest boundary; on a tie, the later.
            (lo..=hi)
                .chain(end_ok.then_some(n))
                .min_by(|x, y| cost(*x).total_cmp(&cost(*y)).then(y.cmp(x)))
                .unwrap_or(n)
        };
        bands[bi].states.extend_from_slice(&steps[from..end]);
        band_of.extend(steps[from..end].iter().map(|s| (*s, bi)));
        from = end;
    }
    // An ending joins the layer of a step that leads to it, when that layer is being filled.
    let mut before: HashMap<StateId, usize> = HashMap::new();
    for t in &b.chart().transitions {
        if let Some(&bi) = band_of.get(&t.source) {
            for x in &t.targets {
                before.entry(*x).or_insert(bi);
            }
        }
    }
    for id in endings {
        let bi = before.get(&id).copied().unwrap_or(open[open.len() - 1]);
        bands[bi].states.push(id);
    }
}
