//! Preconditions → typed guards. File-system checks become deep-state readers registered on the
//! chart (the host samples them; the engine stays pure), state checks read flags and variables.

use std::collections::BTreeSet;

use serde_json::Value;

use super::expr;
use super::schema::{Precondition, Sp, span_of};
use crate::dialects::LoadError;
use crate::engine::build::ChartBuilder;
use crate::engine::ir::{CmpOp, Guard, ListOp, ReaderDecl, ReaderKind, Span};

/// Every precondition type this dialect compiles.
pub const TYPES: &[&str] = &[
    "config_exists",
    "index_exists",
    "index_is_placeholder",
    "source_exists",
    "source_cloned",
    "file_exists",
    "directory_exists",
    "tool_available",
    "flag_set",
    "state_equals",
    "state_not_null",
    "count_above",
    "fetch_succeeded",
    "all_of",
    "any_of",
    "none_of",
    "evaluate_expression",
];

/// The corpus layout of seed 003, relative to the project directory.
pub const CONFIG_PATH: &str = "data/config.yaml";
pub const INDEX_PATH: &str = "data/index.md";
/// Text the placeholder index carries until the first build.
pub const PLACEHOLDER_TEXT: &str = "Run hiivmind-corpus-build";

/// Variables the host expands in reader paths (ARCHITECTURE §7: a fixed set only).
pub const HOST_VARS: &[&str] = &["CLAUDE_PROJECT_DIR", "HOME", "HEAVEN_DATA_DIR", "SEED_HOME"];

pub struct Env<'a> {
    pub file: &'a str,
    pub text: &'a str,
    /// Flags the workflow declares or sets anywhere.
    pub flags: &'a BTreeSet<String>,
}

impl Env<'_> {
    pub fn err(&self, at: Span, msg: impl Into<String>) -> LoadError {
        LoadError::at(self.file, at.line, at.col, msg)
    }

    /// Position of character `offset` inside the scalar that starts at `at` (one-line scalars;
    /// a quote opening the scalar is skipped).
    pub fn inside(&self, at: Span, offset: usize) -> Span {
        let line = self
            .text
            .lines()
            .nth(at.line.saturating_sub(1) as usize)
            .unwrap_or("");
        let first = line.chars().nth(at.col.saturating_sub(1) as usize);
        let skip = u32::from(matches!(first, Some('"') | Some('\'')));
        if matches!(first, Some('|') | Some('>')) {
            return at;
        }
        Span::at(at.line, at.col + skip + offset as u32)
    }
}

/// A reader path: relative paths live under `${CLAUDE_PROJECT_DIR}`; only host variables expand.
pub fn host_path(path: &str) -> Result<String, String> {
    let mut rest = path;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("unclosed `${{` in path `{path}`"));
        };
        let var = &after[..end];
        if !HOST_VARS.contains(&var) {
            return Err(format!(
                "path `{path}` uses `${{{var}}}`: seed reads this path itself and expands only ${{{}}}; use a literal path",
                HOST_VARS.join("}, ${")
            ));
        }
        rest = &after[end + 1..];
    }
    Ok(if path.starts_with('/') || path.starts_with("${") {
        path.to_string()
    } else if let Some(home) = path.strip_prefix("~/") {
        format!("${{HOME}}/{home}")
    } else {
        format!("${{CLAUDE_PROJECT_DIR}}/{}", path.trim_start_matches("./"))
    })
}

fn reader(b: &mut ChartBuilder, name: String, kind: ReaderKind, description: &str) -> String {
    if b.chart().reader(&name).is_none() {
        b.chart_mut().readers.push(ReaderDecl {
            name: name.clone(),
            kind,
            description: Some(description.to_string()),
        });
    }
    name
}

fn exists(b: &mut ChartBuilder, name: String, path: &str, what: &str) -> Guard {
    let reader = reader(
        b,
        name,
        ReaderKind::FileExists {
            path: path.to_string(),
        },
        what,
    );
    Guard::FileExists { reader }
}

/// `source_exists`: some entry of the config's `sources` list has this `id`. The config is
/// parsed as YAML (so a commented-out line, `react-native`, or an `id:` in another list do not
/// count, and flow style `{id: react}` does).
fn source_exists(b: &mut ChartBuilder, id: &str, config: &str) -> Guard {
    let kind = ReaderKind::JsonList {
        path: config.to_string(),
        pointer: "/sources".into(),
        op: ListOp::Any {
            field: "id".into(),
            equals: Value::String(id.to_string()),
        },
    };
    is_true(reader(
        b,
        format!("source_exists:{id}"),
        kind,
        "data/config.yaml lists the source id",
    ))
}

fn is_true(name: String) -> Guard {
    Guard::Reader {
        name,
        op: CmpOp::Eq,
        value: Value::Bool(true),
    }
}

/// A short description for messages: `tool_available(git)`.
pub fn describe(p: &Precondition) -> String {
    let kind = p.kind.as_ref().map(|k| k.value.as_str()).unwrap_or("?");
    let arg = p
        .flag
        .as_deref()
        .or(p.field.as_deref())
        .or(p.id.as_deref())
        .or(p.path.as_deref())
        .or(p.tool.as_deref())
        .or(p.from.as_deref())
        .or(p.expression.as_ref().map(|e| e.value.as_str()));
    match arg {
        Some(a) => format!("{kind}({a})"),
        None => kind.to_string(),
    }
}

pub fn to_guard(p: &Sp<Precondition>, b: &mut ChartBuilder, env: &Env) -> Result<Guard, LoadError> {
    let Some(kind) = &p.value.kind else {
        return Err(env.err(
            span_of(p),
            format!(
                "precondition without `type`: expected one of {}",
                TYPES.join(", ")
            ),
        ));
    };
    let cx = Typed {
        pre: &p.value,
        kind: kind.value.as_str(),
        at: span_of(kind),
        env,
    };
    match cx.kind {
        "config_exists"
        | "index_exists"
        | "index_is_placeholder"
        | "source_exists"
        | "source_cloned" => cx.corpus_check(b),
        "file_exists" | "directory_exists" | "tool_available" => cx.host_check(b),
        "flag_set" | "state_equals" | "state_not_null" | "count_above" | "fetch_succeeded" => {
            cx.state_check()
        }
        "all_of" | "any_of" | "none_of" => cx.combination(b),
        "evaluate_expression" => match &cx.pre.expression {
            Some(e) => expression(e, env),
            None => Err(cx.fail("`evaluate_expression` needs `expression`")),
        },
        other => Err(cx.fail(format!(
            "unknown precondition type `{other}`: expected one of {}",
            TYPES.join(", ")
        ))),
    }
}

/// One precondition of a known `type`, with errors pointing at the type.
struct Typed<'a> {
    pre: &'a Precondition,
    kind: &'a str,
    at: Span,
    env: &'a Env<'a>,
}

impl Typed<'_> {
    fn fail(&self, msg: impl Into<String>) -> LoadError {
        self.env.err(self.at, msg)
    }

    /// A parameter the type needs, not blank.
    fn need(&self, v: &Option<String>, key: &str) -> Result<String, LoadError> {
        match v {
            Some(s) if !s.trim().is_empty() => Ok(s.clone()),
            _ => Err(self.fail(format!("`{}` needs `{key}`", self.kind))),
        }
    }

    /// A parameter checked on disk: workflow variables cannot expand there.
    fn literal(&self, v: &Option<String>, key: &str) -> Result<String, LoadError> {
        let v = self.need(v, key)?;
        if v.contains("${") {
            return Err(self.fail(format!(
                "`{}` with `{key}: {v}`: seed checks this on disk and cannot expand workflow variables; use a literal {key}",
                self.kind
            )));
        }
        Ok(v)
    }

    fn path_of(&self, p: &str) -> Result<String, LoadError> {
        host_path(p).map_err(|m| self.fail(m))
    }

    /// The corpus layout of seed 003: the config, the index, a source.
    fn corpus_check(&self, b: &mut ChartBuilder) -> Result<Guard, LoadError> {
        Ok(match self.kind {
            "config_exists" => exists(
                b,
                "config_exists".into(),
                &self.path_of(CONFIG_PATH)?,
                "data/config.yaml exists",
            ),
            "index_exists" => exists(
                b,
                "index_exists".into(),
                &self.path_of(INDEX_PATH)?,
                "data/index.md exists",
            ),
            "index_is_placeholder" => {
                let kind = ReaderKind::Contains {
                    path: self.path_of(INDEX_PATH)?,
                    text: PLACEHOLDER_TEXT.into(),
                };
                is_true(reader(
                    b,
                    "index_is_placeholder".into(),
                    kind,
                    "data/index.md is still the placeholder",
                ))
            }
            "source_exists" => {
                let id = self.literal(&self.pre.id, "id")?;
                source_exists(b, &id, &self.path_of(CONFIG_PATH)?)
            }
            _ => {
                let id = self.literal(&self.pre.id, "id")?;
                exists(
                    b,
                    format!("source_cloned:{id}"),
                    &self.path_of(&format!(".source/{id}"))?,
                    ".source/<id> exists",
                )
            }
        })
    }

    /// A path that exists, a program on `PATH`.
    fn host_check(&self, b: &mut ChartBuilder) -> Result<Guard, LoadError> {
        if self.kind != "tool_available" {
            let path = self.need(&self.pre.path, "path")?;
            let full = self.path_of(&path)?;
            return Ok(exists(
                b,
                format!("{}:{path}", self.kind),
                &full,
                "path exists",
            ));
        }
        let tool = self.literal(&self.pre.tool, "tool")?;
        if tool.contains(['/', ' ']) {
            return Err(
                self.fail("`tool_available` names a program (`git`), not a path or a command line")
            );
        }
        let kind = ReaderKind::OnPath {
            program: tool.clone(),
        };
        Ok(is_true(reader(
            b,
            format!("tool_available:{tool}"),
            kind,
            "the program is on PATH",
        )))
    }

    /// Flags and variables of the workflow's state.
    fn state_check(&self) -> Result<Guard, LoadError> {
        let pre = self.pre;
        Ok(match self.kind {
            "flag_set" => Guard::Flag {
                name: self.need(&pre.flag, "flag")?,
            },
            "state_equals" => {
                let field = self.need(&pre.field, "field")?;
                let Some(value) = pre.value.clone() else {
                    return Err(self.fail("`state_equals` needs `value`"));
                };
                state_equals(field, value)
            }
            "state_not_null" => Guard::Var {
                name: self.need(&pre.field, "field")?,
                op: CmpOp::Ne,
                value: Value::Null,
            },
            "count_above" => {
                let field = self.need(&pre.field, "field")?;
                let min = pre
                    .min
                    .as_ref()
                    .and_then(Value::as_f64)
                    .ok_or_else(|| self.fail("`count_above` needs a number `min`"))?;
                Guard::Count {
                    name: field,
                    op: CmpOp::Gt,
                    value: min,
                }
            }
            _ => Guard::Var {
                name: format!("{}.status", self.need(&pre.from, "from")?),
                op: CmpOp::Eq,
                value: Value::from(200),
            },
        })
    }

    /// `all_of`, `any_of`, `none_of` a non-empty list of preconditions.
    fn combination(&self, b: &mut ChartBuilder) -> Result<Guard, LoadError> {
        let list = match &self.pre.conditions {
            Some(l) if !l.is_empty() => l,
            _ => {
                return Err(self.fail(format!(
                    "`{}` needs a non-empty `conditions` list",
                    self.kind
                )));
            }
        };
        let of = list
            .iter()
            .map(|c| to_guard(c, b, self.env))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(match self.kind {
            "all_of" => Guard::All { of },
            "any_of" => Guard::Any { of },
            _ => Guard::Not {
                guard: Box::new(Guard::Any { of }),
            },
        })
    }
}

/// `state_equals`: a flag compared with a boolean reads the flag, anything else a variable.
fn state_equals(field: String, value: Value) -> Guard {
    match (field.strip_prefix("flags."), &value) {
        (Some(f), Value::Bool(v)) => {
            let g = Guard::Flag { name: f.into() };
            if *v {
                g
            } else {
                Guard::Not { guard: Box::new(g) }
            }
        }
        _ => Guard::Var {
            name: field,
            op: CmpOp::Eq,
            value,
        },
    }
}

/// Compile an expression, pointing errors at the character that is wrong.
pub fn expression(e: &Sp<String>, env: &Env) -> Result<Guard, LoadError> {
    let flags = env.flags;
    expr::compile(&e.value, &|name| flags.contains(name)).map_err(|x| {
        env.err(
            env.inside(span_of(e), x.offset),
            format!("expression `{}`: {}", e.value, x.message),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_paths_live_under_the_project_and_expand_host_variables_only() {
        assert_eq!(host_path("data/x").unwrap(), "${CLAUDE_PROJECT_DIR}/data/x");
        assert_eq!(
            host_path("./data/x").unwrap(),
            "${CLAUDE_PROJECT_DIR}/data/x"
        );
        assert_eq!(host_path("/etc/x").unwrap(), "/etc/x");
        assert_eq!(host_path("~/x").unwrap(), "${HOME}/x");
        assert_eq!(host_path("${HOME}/x").unwrap(), "${HOME}/x");
        assert!(
            host_path("${source_id}/x")
                .unwrap_err()
                .contains("${source_id}")
        );
        assert!(host_path("data/${x").is_err());
    }
}
