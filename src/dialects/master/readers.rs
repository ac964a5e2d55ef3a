//! Deep-state readers: seed 000's named checks (presets), `kind:path` strings and objects.

use serde_json::{Map, Value};

use super::{Ctx, as_object};
use crate::dialects::locate::{LoadError, find_path};
use crate::dialects::workflow::precond::HOST_VARS;
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{Chart, ReaderDecl, ReaderKind, Span};
use crate::engine::lint::Lint;

/// Reader presets named by seed 000's `state_readers` (`"check_waypoint_temp_files"`…): where
/// the HEAVEN systems keep their state, under `${HEAVEN_DATA_DIR}`.
pub fn preset_reader(name: &str) -> Option<ReaderKind> {
    Some(match name {
        "check_waypoint_temp_files" => ReaderKind::Json {
            path: "${HEAVEN_DATA_DIR}/waypoints/*.json".into(),
            pointer: "/status".into(),
        },
        "check_starlog_registries" => ReaderKind::Count {
            path: "${HEAVEN_DATA_DIR}/registry/*.json".into(),
        },
        "check_active_flight_configs" => ReaderKind::Json {
            path: "${HEAVEN_DATA_DIR}/flights/*.json".into(),
            pointer: "/status".into(),
        },
        _ => return None,
    })
}

pub(super) fn readers(
    cx: &Ctx,
    obj: &Map<String, Value>,
    b: &mut ChartBuilder,
) -> Result<(), LoadError> {
    let Some(v) = obj.get("state_readers") else {
        return Ok(());
    };
    for (name, spec) in as_object(cx, v, "state_readers")? {
        let kind = match spec {
            Value::String(s) => parse_reader_string(s).ok_or_else(|| {
                cx.err(&["state_readers", name], format!(
                    "reader `{name}`: unknown check `{s}`: expected a preset (check_waypoint_temp_files, check_starlog_registries, check_active_flight_configs) or json:GLOB#POINTER, exists:PATH, count:GLOB, age:GLOB"
                ))
            })?,
            Value::Object(o) => parse_reader_object(o).map_err(|(key, m)| {
                let mut at = vec!["state_readers", name.as_str()];
                at.extend(key);
                cx.err(&at, format!("reader `{name}`: {m}"))
            })?,
            _ => return Err(cx.err(&["state_readers", name], format!("reader `{name}` must be a string or an object"))),
        };
        let description = spec
            .get("description")
            .and_then(Value::as_str)
            .map(String::from);
        b.chart_mut().readers.push(ReaderDecl {
            name: name.clone(),
            kind,
            description,
        });
    }
    Ok(())
}

fn parse_reader_string(s: &str) -> Option<ReaderKind> {
    if let Some(p) = preset_reader(s) {
        return Some(p);
    }
    let (kind, rest) = s.split_once(':')?;
    Some(match kind {
        "json" => {
            let (path, ptr) = rest.split_once('#').unwrap_or((rest, ""));
            ReaderKind::Json {
                path: path.into(),
                pointer: ptr.into(),
            }
        }
        "exists" => ReaderKind::FileExists { path: rest.into() },
        "count" => ReaderKind::Count { path: rest.into() },
        "age" => ReaderKind::Age { path: rest.into() },
        _ => return None,
    })
}

/// A reader written as an object; an error names the key it is about (if one) and what is
/// wrong.
fn parse_reader_object(o: &Map<String, Value>) -> Result<ReaderKind, (Option<&str>, String)> {
    const KEYS: &[&str] = &["kind", "path", "pointer", "description"];
    if let Some(k) = o.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err((
            Some(k),
            format!("unknown key `{k}`: a reader takes {}", KEYS.join(", ")),
        ));
    }
    let kind = o.get("kind").and_then(Value::as_str);
    if o.contains_key("pointer") && kind != Some("json") {
        return Err((
            Some("pointer"),
            "`pointer` is for a json reader only".into(),
        ));
    }
    for k in ["pointer", "description"] {
        if o.get(k).is_some_and(|v| !v.is_string()) {
            return Err((Some(k), format!("`{k}` must be a string")));
        }
    }
    let path = o
        .get("path")
        .and_then(Value::as_str)
        .ok_or((None, "needs a `path` string".to_string()))?
        .to_string();
    match kind {
        Some("json") => Ok(ReaderKind::Json {
            path,
            pointer: o
                .get("pointer")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        }),
        Some("file_exists") | Some("exists") => Ok(ReaderKind::FileExists { path }),
        Some("count") => Ok(ReaderKind::Count { path }),
        Some("age") => Ok(ReaderKind::Age { path }),
        _ => Err((
            o.contains_key("kind").then_some("kind"),
            "`kind` must be json, file_exists, count or age".into(),
        )),
    }
}

/// Reader paths naming a variable the host never expands (`${TMPDIR}`): the reader would look
/// for the text as written and never find a file. One error per reader, at its declaration
/// (or at the `file_exists` guard that made it).
pub(super) fn path_lints(cx: &Ctx, chart: &Chart) -> Vec<Lint> {
    let mut out = Vec::new();
    for r in &chart.readers {
        if matches!(r.kind, ReaderKind::OnPath { .. }) {
            continue;
        }
        let path = r.kind.path();
        let Some(var) = unknown_var(path) else {
            continue;
        };
        let (line, col) = match r.name.strip_prefix("file_exists:") {
            Some(p) => find_path(cx.text, &["\"file_exists\"", &format!("\"{p}\"")]),
            None => find_path(cx.text, &["\"state_readers\"", &format!("\"{}\"", r.name)]),
        };
        let allowed: Vec<String> = HOST_VARS.iter().map(|v| format!("${{{v}}}")).collect();
        // `$HOME` is read as text: say how it is written to expand.
        let braced = var
            .strip_prefix('$')
            .filter(|n| !n.starts_with('{'))
            .map(|n| format!("${{{n}}}"));
        let how = match braced {
            Some(b) if allowed.contains(&b) => format!("write `{b}`"),
            _ => format!("paths expand only {}", allowed.join(", ")),
        };
        out.push(Lint::error(
            "unknown-path-variable",
            format!(
                "reader `{}` reads `{path}`, but `{var}` never expands: {how}",
                r.name
            ),
            Some(Span::at(line, col)),
        ));
    }
    out
}

/// The first variable in `path` that never expands: a `${NAME}` that is not a host variable,
/// an unclosed `${`, or a `$NAME` without braces (only `${NAME}` expands; the message says
/// how to write it).
fn unknown_var(path: &str) -> Option<String> {
    let mut rest = path;
    while let Some(i) = rest.find('$') {
        let after = &rest[i + 1..];
        if !after.starts_with('{') {
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                return Some(format!("${name}"));
            }
            rest = after;
            continue;
        }
        let Some(len) = after.find('}') else {
            return Some(rest[i..].to_string());
        };
        let name = &after[1..len];
        if !HOST_VARS.contains(&name) {
            return Some(format!("${{{name}}}"));
        }
        rest = &after[len..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::unknown_var;

    #[test]
    fn only_host_variables_expand() {
        assert_eq!(unknown_var("${HOME}/a/${SEED_HOME}/b"), None);
        assert_eq!(unknown_var("/plain/*.json"), None);
        assert_eq!(unknown_var("${HOME}/${TMPDIR}/x"), Some("${TMPDIR}".into()));
        assert_eq!(unknown_var("${HOME"), Some("${HOME".into()));
        assert_eq!(
            unknown_var("$HOME/x"),
            Some("$HOME".into()),
            "only braces expand"
        );
        assert_eq!(
            unknown_var("/price/$5/x"),
            None,
            "a `$` before no name is text"
        );
        assert_eq!(unknown_var("${HOME}/a$"), None);
    }
}
