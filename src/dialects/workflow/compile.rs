//! Workflow → statechart IR: settings, variables, one root-level state per node and ending (in
//! file order), the entry gate, then each node's transitions (`nodes.rs`) and the dialect's
//! lints (`lints.rs`).

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use super::precond::Env;
use super::schema::{Consequence, Node, Sp, Workflow, span_of};
use super::{declare, lints, nodes, skill};
use crate::dialects::{LoadError, Loaded};
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{
    Dialect, Enforcement, Guard, InputMatcher, OffPathPolicy, PROJECT_DIR_READER, ReaderDecl,
    ReaderKind, Span, StateId,
};
use crate::engine::lint::Lint;
use crate::engine::pattern::Pattern;

/// Most nodes plus endings a workflow may have. Real workflows have tens; the cap keeps load and
/// `seed validate` fast on hostile input.
pub const MAX_NODES: usize = 2_000;

pub const NODE_TYPES: &[&str] = &[
    "action",
    "conditional",
    "user_prompt",
    "validation_gate",
    "reference",
];

/// Tools allowed at every step unless the file says otherwise: looking around never moves or
/// breaks a workflow.
pub const DEFAULT_NEUTRAL: &[&str] = &["Read", "Glob", "Grep", "TodoWrite"];

/// Name of the synthesized entry gate and of its default failure ending.
pub const ENTRY_GATE: &str = "entry_preconditions";
pub const ENTRY_FAILED: &str = "entry_preconditions_failed";

pub struct Cx<'a> {
    pub file: &'a str,
    pub text: &'a str,
    pub flags: BTreeSet<String>,
    pub warnings: Vec<Lint>,
    /// Node and ending names → states.
    pub ids: HashMap<String, StateId>,
    /// Choice states that evaluate `evaluate` consequences, per scope (`node` or `node/handler`).
    pub chains: HashMap<String, Vec<StateId>>,
    /// Sub-steps of action nodes with several activities, one per tool call, in order.
    pub steps: HashMap<String, Vec<StateId>>,
}

impl Cx<'_> {
    pub fn env(&self) -> Env<'_> {
        Env {
            file: self.file,
            text: self.text,
            flags: &self.flags,
        }
    }
    pub fn err(&self, at: Span, msg: impl Into<String>) -> LoadError {
        LoadError::at(self.file, at.line, at.col, msg)
    }
    pub fn warn(&mut self, code: &str, msg: impl Into<String>, at: Span) {
        self.warnings.push(Lint::warning(code, msg, Some(at)));
    }
    /// Resolve a `next_node` / `on_success` / branch target.
    pub fn target(&self, t: &Sp<String>) -> Result<StateId, LoadError> {
        if let Some(id) = self.ids.get(&t.value) {
            return Ok(*id);
        }
        let mut known: Vec<&str> = self
            .ids
            .keys()
            .map(String::as_str)
            .filter(|k| *k != ENTRY_GATE)
            .collect();
        known.sort();
        let more = if known.len() > 12 { ", …" } else { "" };
        known.truncate(12);
        Err(self.err(
            span_of(t),
            format!(
                "`{}` is not a node or an ending: expected one of {}{more}",
                t.value,
                known.join(", ")
            ),
        ))
    }
}

pub fn compile(file: &str, text: &str, wf: Workflow) -> Result<Loaded, LoadError> {
    let mut cx = Cx {
        file,
        text,
        flags: BTreeSet::new(),
        warnings: Vec::new(),
        ids: HashMap::new(),
        chains: HashMap::new(),
        steps: HashMap::new(),
    };
    let name = name_and_size(&cx, &wf)?;
    let mut b = ChartBuilder::new(&name, Dialect::WorkflowYaml, false);
    b.chart_mut().description = wf.description.clone().unwrap_or_default();
    settings(&cx, &wf, &mut b)?;
    initial_state(&mut cx, &wf, &mut b)?;
    collect_flags(&wf, &mut cx.flags);
    declare::declare(&mut cx, &wf, &mut b)?;
    let start_id = start_node(&cx, &wf)?;
    let own_skill = skill::own(&cx, &wf, &name)?;
    let first = declare::entry_gate(&mut cx, &wf, &mut b, start_id, &own_skill)?;
    b.set_initial(StateId::ROOT, first);
    for (key, node) in &wf.nodes.0 {
        nodes::compile(&mut cx, &mut b, key, node)?;
    }
    skill::wire(&cx, &wf, &mut b, &own_skill, first)?;
    project_dir_reader(&mut b);
    let chart = b
        .finish()
        .map_err(|e| LoadError::at(file, 1, 1, e.to_string()))?;
    let mut warnings = cx.warnings;
    warnings.extend(lints::check(&chart, text));
    Ok(Loaded {
        chart,
        source: file.to_string(),
        warnings,
    })
}

/// Steps naming a relative path match it inside the project: the host samples the project's
/// directory for them (`PROJECT_DIR_READER`).
fn project_dir_reader(b: &mut ChartBuilder) {
    fn names_it(g: &Guard) -> bool {
        match g {
            Guard::Input {
                matcher: InputMatcher::Glob(glob),
                ..
            } => glob.contains(&format!("${{{PROJECT_DIR_READER}}}")),
            Guard::All { of } | Guard::Any { of } => of.iter().any(names_it),
            Guard::Not { guard } => names_it(guard),
            _ => false,
        }
    }
    let chart = b.chart();
    let used = chart
        .transitions
        .iter()
        .filter_map(|t| t.guard.as_ref())
        .any(names_it);
    if used && chart.reader(PROJECT_DIR_READER).is_none() {
        b.chart_mut().readers.push(ReaderDecl {
            name: PROJECT_DIR_READER.into(),
            kind: ReaderKind::Dir {
                path: format!("${{{PROJECT_DIR_READER}}}"),
            },
            description: Some("the project's directory: relative paths are taken from it".into()),
        });
    }
}

/// The workflow's name, once its size and its nodes are known to be fit to compile.
fn name_and_size(cx: &Cx, wf: &Workflow) -> Result<String, LoadError> {
    let name = match &wf.name {
        Some(n) if !n.value.trim().is_empty() => n.value.trim().to_string(),
        Some(n) => return Err(cx.err(span_of(n), "`name` must be a non-empty string")),
        None => {
            return Err(LoadError::at(
                cx.file,
                1,
                1,
                "missing `name`: expected the workflow's name",
            ));
        }
    };
    let count = wf.nodes.0.len() + wf.endings.0.len();
    if count > MAX_NODES {
        let at = wf
            .nodes
            .keys()
            .next()
            .map(span_of)
            .unwrap_or(Span::at(1, 1));
        return Err(cx.err(
            at,
            format!("{count} nodes and endings: a workflow may have at most {MAX_NODES}"),
        ));
    }
    if wf.nodes.0.is_empty() {
        return Err(LoadError::at(
            cx.file,
            1,
            1,
            "no `nodes`: expected at least one node (action, conditional, user_prompt, validation_gate or reference)",
        ));
    }
    Ok(name)
}

/// `start_node`: a node (not an ending) of the workflow.
fn start_node(cx: &Cx, wf: &Workflow) -> Result<StateId, LoadError> {
    let Some(start) = &wf.start_node else {
        return Err(LoadError::at(
            cx.file,
            1,
            1,
            "missing `start_node`: expected the name of the first node",
        ));
    };
    let start_id = cx.target(start)?;
    if wf.endings.get(&start.value).is_some() {
        return Err(cx.err(
            span_of(start),
            "`start_node` names an ending: expected a node",
        ));
    }
    Ok(start_id)
}

fn settings(cx: &Cx, wf: &Workflow, b: &mut ChartBuilder) -> Result<(), LoadError> {
    let s = &mut b.chart_mut().settings;
    if let Some(e) = &wf.enforcement {
        s.enforcement = match e.value.as_str() {
            "enforce" => Enforcement::Enforce,
            "advise" => Enforcement::Advise,
            "observe" => Enforcement::Observe,
            _ => {
                return Err(cx.err(
                    span_of(e),
                    "`enforcement` must be enforce, advise or observe",
                ));
            }
        };
    }
    if let Some(o) = &wf.off_path {
        s.off_path = match o.value.as_str() {
            "observe" => OffPathPolicy::Observe,
            "warn" => OffPathPolicy::Warn,
            "deny" => OffPathPolicy::Deny,
            _ => return Err(cx.err(span_of(o), "`off_path` must be observe, warn or deny")),
        };
    }
    let neutral: Vec<(String, Span)> = match &wf.neutral_tools {
        Some(list) => list.iter().map(|t| (t.value.clone(), span_of(t))).collect(),
        None => DEFAULT_NEUTRAL
            .iter()
            .map(|t| (t.to_string(), Span::at(1, 1)))
            .collect(),
    };
    for (t, at) in neutral {
        let p = Pattern::parse(&t).map_err(|e| cx.err(at, e.to_string()))?;
        b.chart_mut().neutral.push(p);
    }
    Ok(())
}

/// `initial_state`: fields become variables, `flags.x` booleans become flags.
fn initial_state(cx: &mut Cx, wf: &Workflow, b: &mut ChartBuilder) -> Result<(), LoadError> {
    let Some(init) = &wf.initial_state else {
        return Ok(());
    };
    let pos = |path: &[&str]| {
        let (line, col) = crate::dialects::locate::find_path(cx.text, path);
        Span::at(line, col)
    };
    for (k, v) in init {
        if k != "flags" {
            b.chart_mut().vars.insert(k.clone(), v.clone());
            continue;
        }
        let Value::Object(flags) = v else {
            return Err(cx.err(
                pos(&["initial_state", "flags"]),
                "`initial_state.flags` must map flag names to true or false",
            ));
        };
        for (f, val) in flags {
            let Value::Bool(on) = val else {
                return Err(cx.err(
                    pos(&["initial_state", "flags", f.as_str()]),
                    format!("flag `{f}` must be true or false"),
                ));
            };
            b.chart_mut()
                .vars
                .insert(format!("flags.{f}"), Value::Bool(*on));
            cx.flags.insert(f.clone());
        }
    }
    Ok(())
}

pub(super) fn consequences(node: &Node) -> Vec<(String, &Vec<Sp<Consequence>>)> {
    let mut out = Vec::new();
    if let Some(a) = &node.actions {
        out.push((String::new(), a));
    }
    for (k, h) in node.on_response.iter().flat_map(|m| m.0.iter()) {
        if let Some(c) = &h.value.consequence {
            out.push((k.value.clone(), c));
        }
    }
    out
}

fn collect_flags(wf: &Workflow, flags: &mut BTreeSet<String>) {
    for (_, node) in &wf.nodes.0 {
        for (_, list) in consequences(&node.value) {
            for c in list {
                let c = &c.value;
                let kind = c.kind.as_ref().map(|k| k.value.as_str());
                match kind {
                    Some("set_flag") => flags.extend(c.flag.clone()),
                    Some("evaluate") => flags.extend(c.set_flag.clone()),
                    Some("set_state") => flags.extend(
                        c.field
                            .as_deref()
                            .and_then(|f| f.strip_prefix("flags."))
                            .map(String::from),
                    ),
                    _ => {}
                }
            }
        }
    }
}

/// Scope name of an `evaluate` chain: the node, or `node/handler`.
pub fn scope(node: &str, handler: &str) -> String {
    if handler.is_empty() {
        node.to_string()
    } else {
        format!("{node}/{handler}")
    }
}
