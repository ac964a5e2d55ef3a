//! Guards written as JSON objects (a constraint's `when`).

use serde_json::Value;

use crate::engine::build::ChartBuilder;
use crate::engine::ir::{CmpOp, Guard, ReaderDecl, ReaderKind};

/// Guards in JSON: `{ "reader": "x", "op": "==", "value": v }`, `{ "all": [...] }`,
/// `{ "any": [...] }`, `{ "not": g }`, `{ "flag": "f" }`, `{ "file_exists": "PATH" }`,
/// `{ "var": "x", "op": ">=", "value": v }`.
pub fn parse_guard(v: &Value, b: &mut ChartBuilder) -> Result<Guard, String> {
    let o = v.as_object().ok_or("a guard must be an object")?;
    if let Some(list) = o.get("all").or_else(|| o.get("any")) {
        let items = list
            .as_array()
            .ok_or("`all`/`any` must be an array of guards")?;
        let of = items
            .iter()
            .map(|g| parse_guard(g, b))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(if o.contains_key("all") {
            Guard::All { of }
        } else {
            Guard::Any { of }
        });
    }
    if let Some(g) = o.get("not") {
        return Ok(Guard::Not {
            guard: Box::new(parse_guard(g, b)?),
        });
    }
    if let Some(f) = o.get("flag") {
        return Ok(Guard::Flag {
            name: f.as_str().ok_or("`flag` must be a string")?.into(),
        });
    }
    if let Some(p) = o.get("file_exists") {
        let path = p.as_str().ok_or("`file_exists` must be a path string")?;
        let name = format!("file_exists:{path}");
        if b.chart().reader(&name).is_none() {
            b.chart_mut().readers.push(ReaderDecl {
                name: name.clone(),
                kind: ReaderKind::FileExists { path: path.into() },
                description: None,
            });
        }
        return Ok(Guard::FileExists { reader: name });
    }
    let op = match o.get("op").and_then(Value::as_str).unwrap_or("==") {
        "==" | "eq" => CmpOp::Eq,
        "!=" | "ne" => CmpOp::Ne,
        "<" | "lt" => CmpOp::Lt,
        "<=" | "le" => CmpOp::Le,
        ">" | "gt" => CmpOp::Gt,
        ">=" | "ge" => CmpOp::Ge,
        "contains" => CmpOp::Contains,
        other => {
            return Err(format!(
                "unknown operator `{other}`: expected ==, !=, <, <=, >, >= or contains"
            ));
        }
    };
    let value = o.get("value").cloned().unwrap_or(Value::Bool(true));
    if let Some(r) = o.get("reader") {
        return Ok(Guard::Reader {
            name: r.as_str().ok_or("`reader` must be a string")?.into(),
            op,
            value,
        });
    }
    if let Some(r) = o.get("var") {
        return Ok(Guard::Var {
            name: r.as_str().ok_or("`var` must be a string")?.into(),
            op,
            value,
        });
    }
    Err("expected one of all, any, not, flag, file_exists, reader, var".into())
}
