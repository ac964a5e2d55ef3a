//! Deep-state readers: seed 000's named checks (presets), `kind:path` strings and objects.

use serde_json::{Map, Value};

use super::{Ctx, as_object};
use crate::dialects::locate::LoadError;
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{ReaderDecl, ReaderKind};

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
            Value::Object(o) => parse_reader_object(o).map_err(|m| cx.err(&["state_readers", name], format!("reader `{name}`: {m}")))?,
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

fn parse_reader_object(o: &Map<String, Value>) -> Result<ReaderKind, String> {
    let path = o
        .get("path")
        .and_then(Value::as_str)
        .ok_or("needs a `path` string")?
        .to_string();
    match o.get("kind").and_then(Value::as_str) {
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
        _ => Err("`kind` must be json, file_exists, count or age".into()),
    }
}
