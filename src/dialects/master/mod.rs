//! The master-sequence dialect of seed 000: `tool_transitions` become the railroad (tier 1),
//! `state_constraints` + `state_readers` a parallel context region whose policies intersect
//! with it (tier 2), `progress_layers` progress bands.
//!
//! The JSON of the seed loads exactly as written. Extensions (all optional): `start`,
//! `neutral_tools`, `enforcement`, `off_path`, `out_of_order` (default deny: the railroad cannot
//! be left), `fail`, `deadlock`, `stop`, `aliases`, `when` on a constraint, reader objects,
//! `steps` on a layer, `{ "tool", "input" }` entries in `next_allowed`, and `description`,
//! `allowed_tools` and `weight` on a tool.
//!
//! One file per part of the format: `settings` (modes and lists), `railroad` (tier 1),
//! `readers` and `context` (tier 2), `guard` (JSON guards), `layers` (bands); `strict` parses
//! the JSON, `spans` finds where keys sit.

mod context;
mod guard;
mod layers;
mod railroad;
mod readers;
mod settings;
mod spans;
mod strict;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::Loaded;
use super::locate::{LoadError, find_path};
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{Dialect, StateId, StateKind};
use crate::engine::pattern::Pattern;

pub use guard::parse_guard;
pub use readers::preset_reader;

/// The file being loaded, for errors that point into it.
struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    fn err(&self, path: &[&str], msg: impl Into<String>) -> LoadError {
        let quoted: Vec<String> = path.iter().map(|p| format!("\"{p}\"")).collect();
        let refs: Vec<&str> = quoted.iter().map(String::as_str).collect();
        let (line, col) = find_path(self.text, &refs);
        LoadError::at(self.file, line, col, msg)
    }
}

/// The JSON of a master sequence: an object, or seed 000's sketches written as bare members
/// (`"tool_transitions": {…}`). A byte-order mark is skipped; duplicate keys are errors.
fn parse(file: &str, text: &str) -> Result<Value, LoadError> {
    let e = match strict::from_str(text) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let at = |e: &serde_json::Error, line_shift: bool| {
        let (line, mut col) = (e.line() as u32, e.column() as u32);
        // The wrapped text has one `{` before the first line.
        if line_shift && line == 1 {
            col = col.saturating_sub(1).max(1);
        }
        let msg = match e.classify() {
            serde_json::error::Category::Data => strip_pos(&e.to_string()),
            _ => format!("invalid JSON: {}", strip_pos(&e.to_string())),
        };
        LoadError::at(file, line, col, msg)
    };
    if !text.trim_start().starts_with('"') {
        return Err(at(&e, false));
    }
    match strict::from_str(&format!("{{{text}\n}}")) {
        Ok(v) => Ok(v),
        // The sketch parses as members, but says something wrong (a duplicate key).
        Err(e2) if e2.classify() == serde_json::error::Category::Data => Err(at(&e2, true)),
        Err(_) => Err(at(&e, false)),
    }
}

/// The top-level keys a master sequence may have.
const KNOWN: &[&str] = &[
    "name",
    "description",
    "tool_transitions",
    "state_constraints",
    "state_readers",
    "progress_layers",
    "start",
    "neutral_tools",
    "enforcement",
    "off_path",
    "out_of_order",
    "fail",
    "deadlock",
    "stop",
    "aliases",
    "version",
    "$schema",
];

pub fn load(file: &str, text: &str) -> Result<Loaded, LoadError> {
    // Editors on Windows may start a UTF-8 file with a byte-order mark; JSON has no use for it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(LoadError::at(
            file,
            1,
            1,
            "empty file: expected a sequence definition",
        ));
    }
    let cx = Ctx { file, text };
    let root = parse(file, text)?;
    let Value::Object(obj) = root else {
        return Err(LoadError::at(
            file,
            1,
            1,
            "expected a JSON object with `name` and `tool_transitions`",
        ));
    };
    if let Some(k) = obj.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(cx.err(
            &[k],
            format!("unknown key `{k}`: expected one of {}", KNOWN.join(", ")),
        ));
    }
    let name = name(&cx, &obj)?;
    let constraints = obj
        .get("state_constraints")
        .map(|v| as_object(&cx, v, "state_constraints"))
        .transpose()?;
    let empty = Map::new();
    let transitions = transitions(&cx, &obj, constraints.is_some())?.unwrap_or(&empty);
    let mut b = ChartBuilder::new(&name, Dialect::MasterJson, constraints.is_some());
    b.chart_mut().description = obj
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    settings::settings(&cx, &obj, &mut b)?;
    let tools = if transitions.is_empty() {
        BTreeMap::new()
    } else {
        let parent = railroad_parent(&cx, &mut b, constraints.is_some())?;
        railroad::railroad(&cx, transitions, &obj, &mut b, parent)?
    };
    readers::readers(&cx, &obj, &mut b)?;
    // Layers first: a constraint's `when` may name one (`{"in": "execution"}`).
    layers::layers(&cx, &obj, &mut b, &tools)?;
    if let Some(cons) = constraints {
        let places = context::Places {
            tools: &tools,
            layers: b
                .chart()
                .bands
                .iter()
                .map(|band| (band.name.clone(), band.states.clone()))
                .collect(),
        };
        context::context(&cx, cons, &mut b, &places)?;
    }
    let chart = b
        .finish()
        .map_err(|e| LoadError::at(file, 1, 1, e.to_string()))?;
    let warnings = readers::path_lints(&cx, &chart);
    Ok(Loaded {
        chart,
        source: file.to_string(),
        warnings,
    })
}

/// `name`, or for a sketch without one, the file's name.
fn name(cx: &Ctx, obj: &Map<String, Value>) -> Result<String, LoadError> {
    match obj.get("name") {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(_) => Err(cx.err(&["name"], "`name` must be a non-empty string")),
        None => Ok(std::path::Path::new(cx.file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("sequence")
            .to_string()),
    }
}

/// `tool_transitions`: required, unless the file only has constraints (seed 000's sketch).
fn transitions<'o>(
    cx: &Ctx,
    obj: &'o Map<String, Value>,
    has_constraints: bool,
) -> Result<Option<&'o Map<String, Value>>, LoadError> {
    match obj.get("tool_transitions") {
        Some(Value::Object(m)) if !m.is_empty() => Ok(Some(m)),
        Some(_) => Err(cx.err(
            &["tool_transitions"],
            "`tool_transitions` must be a non-empty object of tool → { next_allowed: [...] }",
        )),
        None if has_constraints => Ok(None),
        None => Err(LoadError::at(
            cx.file,
            1,
            1,
            "missing `tool_transitions`: expected an object of tool → { next_allowed: [...] }",
        )),
    }
}

/// Where the railroad's states go: a region of its own beside the constraints' context, or
/// the root when there are no constraints.
fn railroad_parent(
    cx: &Ctx,
    b: &mut ChartBuilder,
    has_constraints: bool,
) -> Result<StateId, LoadError> {
    if !has_constraints {
        return Ok(StateId::ROOT);
    }
    let r = b
        .add_state(
            StateId::ROOT,
            "railroad",
            StateKind::Compound {
                initial: StateId::ROOT,
            },
        )
        .map_err(|e| cx.err(&["tool_transitions"], e.to_string()))?;
    b.state_mut(r).label = "railroad".into();
    Ok(r)
}

/// A tool pattern named at `path`: never empty (an empty name would match no call Claude Code
/// makes, so the step could never be taken).
fn tool_pattern(cx: &Ctx, path: &[&str], name: &str) -> Result<Pattern, LoadError> {
    if name.trim().is_empty() {
        let mut at = path.to_vec();
        at.push("");
        return Err(cx.err(
            &at,
            "empty tool name: expected a tool such as `starlog.orient`, `mcp__starlog__orient` or `Read`",
        ));
    }
    let at = || {
        let mut at = path.to_vec();
        at.push(name);
        at
    };
    let pattern = Pattern::parse(name).map_err(|e| cx.err(&at(), e.to_string()))?;
    for alt in &pattern.alts {
        if let Some(problem) = tool_name_problem(alt) {
            return Err(cx.err(&at(), format!("`{name}`: {problem}")));
        }
    }
    Ok(pattern)
}

/// Why a tool name (as parsed: `mcp__s__t` is already `s.t`) names no tool a call can have: an
/// MCP name missing its server or tool (`mcp__`, `mcp__s__`, `.`, `s.`).
fn tool_name_problem(alt: &crate::engine::pattern::Alt) -> Option<&'static str> {
    use crate::engine::event::EventKind;
    if !matches!(
        alt.kind,
        None | Some(EventKind::Tool) | Some(EventKind::ErrorTool)
    ) {
        return None;
    }
    let g = alt.glob.as_str();
    let glob = g.contains(['*', '?', '[']);
    if g.starts_with("mcp__") && !glob {
        return Some("an MCP tool is named `mcp__server__tool`, with both parts");
    }
    match g.split_once('.') {
        Some((server, tool)) if server.is_empty() || tool.is_empty() => {
            Some("a dotted tool name is `server.tool`, with both parts")
        }
        _ => None,
    }
}

fn strip_pos(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

fn as_object<'v>(cx: &Ctx, v: &'v Value, key: &str) -> Result<&'v Map<String, Value>, LoadError> {
    v.as_object()
        .ok_or_else(|| cx.err(&[key], format!("`{key}` must be an object")))
}
