//! The `.toml` manifest: names a sequence, its settings and diagrams, how detail diagrams
//! expand the states of the top-level one, and the bindings from hook events, tools, skills
//! and `/commands` to states (seed 004 §8's command table is such a map).

use std::ops::Range;
use std::path::{Component, Path};

use toml::Spanned;

use super::assembly::Assembly;
use super::bindings;
use super::label;
pub(super) use super::manifest_toml::{BindToml, EdgeToml, PolicyToml, ReturnToml};
use super::manifest_toml::{EachToml, Manifest, ReaderToml};
use super::parse_file;
use super::returns;
use crate::dialects::locate::line_col_of_offset;
use crate::dialects::{LoadError, Loaded};
use crate::engine::ir::{
    Each, EachProgress, ListOp, ReaderDecl, ReaderKind, Span, StateId, StateKind,
};
use crate::engine::lint::Severity;
use crate::engine::pattern::Pattern;
use crate::engine::tool_name::server_name_problem;

/// Variables a reader path may use (ARCHITECTURE §7: paths expand from a fixed set only).
const PATH_VARS: &[&str] = &["HOME", "HEAVEN_DATA_DIR", "CLAUDE_PROJECT_DIR", "SEED_HOME"];

pub(super) struct Cx<'a> {
    pub(super) file: &'a str,
    pub(super) text: &'a str,
}

impl Cx<'_> {
    pub(super) fn at(&self, span: Range<usize>, msg: impl Into<String>) -> LoadError {
        let (line, col) = line_col_of_offset(self.text, span.start);
        LoadError::at(self.file, line, col, msg)
    }
    pub(super) fn pos(&self, span: Range<usize>) -> (u32, u32) {
        line_col_of_offset(self.text, span.start)
    }
}

/// Load a manifest; `resolve` reads the diagrams it names (relative to the manifest).
pub fn load(
    file: &str,
    text: &str,
    resolve: &dyn Fn(&str) -> Option<String>,
) -> Result<Loaded, LoadError> {
    let cx = Cx { file, text };
    let m: Manifest = toml::from_str(text).map_err(|e| {
        let (line, col) = e.span().map(|s| cx.pos(s)).unwrap_or((1, 1));
        LoadError::at(
            file,
            line,
            col,
            format!("invalid manifest: {}", e.message().trim()),
        )
    })?;
    if m.name.get_ref().trim().is_empty() {
        return Err(cx.at(m.name.span(), "`name` must not be empty"));
    }
    let mut a = Assembly::new(m.name.get_ref(), false);
    a.manifest_file = file.to_string();
    let top = read_diagram(&cx, resolve, &m.diagram)?;
    a.insert(&top.1, &top.0, StateId::ROOT)?;
    expand(&cx, resolve, &m, &mut a)?;
    settings(&cx, &m, &mut a)?;
    for b in &m.bind {
        bindings::activity(&cx, b, &mut a)?;
    }
    for p in &m.policy {
        bindings::policy(&cx, p, &mut a)?;
    }
    for e in &m.edge {
        bindings::edge_override(&cx, e, &mut a)?;
    }
    a.compile_edges()?;
    for b in m.bind.iter().filter(|b| !b.get_ref().is_trip()) {
        bindings::binding(&cx, b, &mut a)?;
    }
    // Side trips last: a state's own bindings and drawn edges win over them. Trips from named
    // states first: a state one of them rests in is a state the trips from anywhere leave too.
    let trips = || m.bind.iter().filter(|b| b.get_ref().is_trip());
    for b in trips()
        .filter(|b| b.get_ref().from.is_some())
        .chain(trips().filter(|b| b.get_ref().from.is_none()))
    {
        returns::binding(&cx, b, &mut a)?;
    }
    let mut ranges = Vec::new();
    for (name, band) in &m.bands {
        let bt = band.get_ref();
        // A band with no states still takes its range (and `band-empty` says so).
        if !a.bands.iter().any(|(n, _)| n == name) {
            a.bands.push((name.clone(), Vec::new()));
        }
        for s in &bt.states {
            let id = a
                .resolve(s.get_ref(), Some(0))
                .map_err(|e| cx.at(s.span(), e))?;
            if let Some((_, members)) = a.bands.iter_mut().find(|(n, _)| n == name) {
                members.push(id);
            }
        }
        // File 0 is the manifest itself: its band lints point at the entry.
        let (line, col) = cx.pos(band.span());
        let span = Span { line, col, file: 0 };
        ranges.push((name.clone(), bt.range[0], bt.range[1], Some(span)));
    }
    shares(&cx, &m, &mut a)?;
    let (mut chart, mut warnings) = a.finish(&ranges)?;
    warnings.retain(|w| w.severity == Severity::Error || !m.lint.allow.contains(&w.code));
    chart.name = m.name.get_ref().clone();
    chart.description = m.description.clone();
    Ok(Loaded {
        chart,
        source: file.to_string(),
        warnings,
    })
}

/// `[progress]`: states pinned inside their parent (`"loop.wave_exec" = [30, 70]`).
fn shares(cx: &Cx, m: &Manifest, a: &mut Assembly) -> Result<(), LoadError> {
    for (key, range) in &m.progress {
        let id = a
            .resolve(key, Some(0))
            .map_err(|e| cx.at(range.span(), e))?;
        let r = range.get_ref();
        let ok = r.len() == 2 && (0.0..=100.0).contains(&r[0]) && r[0] < r[1] && r[1] <= 100.0;
        if !ok {
            return Err(cx.at(
                range.span(),
                format!("`{key}`: expected `[lo, hi]`, percent of its parent with 0 ≤ lo < hi ≤ 100, got {r:?}"),
            ));
        }
        if a.b.state(id).parent.is_none() {
            return Err(cx.at(
                range.span(),
                format!("`{key}` is the whole chart: it has no parent to take a share of"),
            ));
        }
        a.b.state_mut(id).share = Some([r[0], r[1]]);
    }
    Ok(())
}

/// The diagram a manifest names, as (its file name for messages, its syntax tree).
fn read_diagram(
    cx: &Cx,
    resolve: &dyn Fn(&str) -> Option<String>,
    rel: &Spanned<String>,
) -> Result<(String, super::ast::Diagram), LoadError> {
    let r = rel.get_ref();
    // Only the manifest's own folder and below: `..` would let a sequence read (and quote in
    // its errors) any file the user can.
    let inside = Path::new(r)
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !inside {
        return Err(cx.at(
            rel.span(),
            format!(
                "`{r}`: diagram paths are relative to the manifest and stay in its folder (no `..`, no absolute paths)"
            ),
        ));
    }
    let text = resolve(r).ok_or_else(|| {
        cx.at(
            rel.span(),
            format!("cannot read diagram `{r}` (paths are relative to the manifest)"),
        )
    })?;
    let shown = match Path::new(cx.file).parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(r).display().to_string(),
        _ => r.clone(),
    };
    Ok((shown.clone(), parse_file(&shown, &text)?))
}

/// `[expand] state = "detail.mmd"`: the detail diagram's states go inside `state` (created at
/// the top level when the overview does not draw it). Shallower states expand first.
fn expand(
    cx: &Cx,
    resolve: &dyn Fn(&str) -> Option<String>,
    m: &Manifest,
    a: &mut Assembly,
) -> Result<(), LoadError> {
    let mut items: Vec<(&String, &Spanned<String>)> = m.expand.iter().collect();
    items.sort_by_key(|(k, _)| k.split('.').count());
    for (key, rel) in items {
        let target = match a.resolve(key, Some(0)) {
            Ok(id) => id,
            Err(_) if !key.contains('.') && label::is_name(key) => {
                a.b.add_state(StateId::ROOT, key, StateKind::Atomic)
                    .map_err(|e| cx.at(rel.span(), e.to_string()))?
            }
            Err(e) => return Err(cx.at(rel.span(), format!("[expand] {key}: {e}"))),
        };
        if !a.b.state(target).children.is_empty() {
            return Err(cx.at(
                rel.span(),
                format!("[expand] `{key}` already has states inside: expand a state drawn as a plain box"),
            ));
        }
        let (shown, d) = read_diagram(cx, resolve, rel)?;
        a.insert(&d, &shown, target)?;
    }
    Ok(())
}

fn settings(cx: &Cx, m: &Manifest, a: &mut Assembly) -> Result<(), LoadError> {
    let chart = a.b.chart_mut();
    let s = &mut chart.settings;
    if let Some(e) = m.enforcement {
        s.enforcement = e;
    }
    if let Some(o) = m.off_path {
        s.off_path = o;
    }
    if let Some(f) = m.fail {
        s.fail = f;
    }
    if let Some(d) = &m.deadlock {
        if let Some(l) = d.limit {
            s.deadlock.limit = l.min(1000);
        }
        if let Some(f) = d.fallback {
            s.deadlock.fallback = f;
        }
    }
    if let Some(st) = &m.stop {
        s.stop.block_until_final = st.block_until_final;
        s.stop.max_blocks = st.max_blocks.unwrap_or(2).min(100);
    }
    for t in &m.neutral_tools {
        let p = Pattern::parse(t.get_ref()).map_err(|e| cx.at(t.span(), e.to_string()))?;
        chart.neutral.push(p);
    }
    for (alias, actual) in &m.aliases {
        for (name, what) in [
            (alias.as_str(), "alias"),
            (actual.get_ref().as_str(), "server"),
        ] {
            if let Some(problem) = server_name_problem(name) {
                return Err(cx.at(
                    actual.span(),
                    format!("`aliases`: {what} `{name}`: {problem}"),
                ));
            }
        }
        chart
            .aliases
            .insert(alias.clone(), actual.get_ref().clone());
    }
    for (k, v) in &m.vars {
        let v = serde_json::to_value(v).unwrap_or(serde_json::Value::Null);
        chart.vars.insert(k.clone(), v);
    }
    for (k, v) in &m.flags {
        chart
            .vars
            .insert(format!("flags.{k}"), serde_json::Value::Bool(*v));
    }
    for (name, r) in &m.readers {
        chart.readers.push(reader(cx, name, r)?);
    }
    if let Some(e) = &m.each {
        chart.each = Some(each(cx, e, &chart.readers)?);
    }
    Ok(())
}

/// The `[each]` table: the items (seed 002's organs) and how their readers read per item.
fn each(cx: &Cx, e: &Spanned<EachToml>, readers: &[ReaderDecl]) -> Result<Each, LoadError> {
    let et = e.get_ref();
    check_path_vars(et.path.get_ref())
        .map_err(|m| cx.at(et.path.span(), format!("`each`: {m}")))?;
    let mut paths = std::collections::BTreeMap::new();
    for (name, p) in &et.paths {
        if !readers.iter().any(|r| &r.name == name) {
            return Err(cx.at(p.span(), format!("`each.paths`: no reader `{name}`")));
        }
        check_path_vars(&p.get_ref().replace("${EACH_PATH}", "")).map_err(|m| {
            cx.at(
                p.span(),
                format!("`each.paths.{name}`: {m} or ${{EACH_PATH}}"),
            )
        })?;
        paths.insert(name.clone(), p.get_ref().clone());
    }
    let progress = et.progress.as_ref().map(|p| EachProgress {
        done: p.done.clone(),
        of: p.of.clone(),
        label: p.label.clone(),
    });
    for r in progress.iter().flat_map(|p| [&p.done, &p.of]) {
        if !readers.iter().any(|d| &d.name == r) {
            return Err(cx.at(e.span(), format!("`each.progress`: no reader `{r}`")));
        }
    }
    Ok(Each {
        name: et.name.clone(),
        path: et.path.get_ref().clone(),
        pointer: et.pointer.clone(),
        narrow: et.narrow.clone(),
        paths,
        progress,
    })
}

/// A `[readers.NAME]` table: what the host reads, where.
fn reader(cx: &Cx, name: &str, r: &Spanned<ReaderToml>) -> Result<ReaderDecl, LoadError> {
    let rt = r.get_ref();
    check_path_vars(rt.path.get_ref())
        .map_err(|e| cx.at(rt.path.span(), format!("reader `{name}`: {e}")))?;
    let path = rt.path.get_ref().clone();
    let kind = match rt.kind.as_str() {
        "json" => match &rt.op {
            None => ReaderKind::Json {
                path,
                pointer: rt.pointer.clone(),
            },
            Some(op) => ReaderKind::JsonList {
                path,
                pointer: rt.pointer.clone(),
                op: list_op(op, rt)
                    .map_err(|e| cx.at(r.span(), format!("reader `{name}`: {e}")))?,
            },
        },
        "file_exists" | "exists" => ReaderKind::FileExists { path },
        "count" => ReaderKind::Count { path },
        "age" => ReaderKind::Age { path },
        k => {
            return Err(cx.at(
                r.span(),
                format!(
                    "reader `{name}`: unknown kind `{k}`: expected json, file_exists, count or age"
                ),
            ));
        }
    };
    Ok(ReaderDecl {
        name: name.to_string(),
        kind,
        description: rt.description.clone(),
    })
}

fn check_path_vars(path: &str) -> Result<(), String> {
    let mut rest = path;
    while let Some(i) = rest.find("${") {
        let Some(end) = rest[i..].find('}') else {
            return Err("unclosed `${` in path".into());
        };
        let var = &rest[i + 2..i + end];
        if !PATH_VARS.contains(&var) {
            return Err(format!(
                "`${{{var}}}` is not allowed in paths: use {}",
                PATH_VARS
                    .iter()
                    .map(|v| format!("${{{v}}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        rest = &rest[i + end..];
    }
    Ok(())
}

/// `op = "…"` with its `field`, `equals` and `other`.
fn list_op(op: &str, rt: &ReaderToml) -> Result<ListOp, String> {
    let equals = rt
        .equals
        .as_ref()
        .map(|v| serde_json::to_value(v).unwrap_or(serde_json::Value::Null));
    let field = rt.field.clone();
    let need = |what: &str| format!("`op = \"{op}\"` needs `{what}`");
    Ok(match op {
        "count" => ListOp::Count { field, equals },
        "all" => ListOp::All {
            field,
            equals: equals.ok_or_else(|| need("equals"))?,
        },
        "any" => ListOp::Any {
            field,
            equals: equals.ok_or_else(|| need("equals"))?,
        },
        "last" => ListOp::Last { field },
        "not_in" => ListOp::NotIn {
            other: rt.other.clone().ok_or_else(|| need("other"))?,
        },
        o => {
            return Err(format!(
                "unknown op `{o}`: expected count, all, any, last or not_in"
            ));
        }
    })
}
