//! The eight seed tools: their schemas, and one dispatch that calls the same functions as the
//! CLI (`status`, `recovery`, `sequences`, `validate`), so both faces say the same thing.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::content;
use crate::commands::{self, sequences, validate, view as status};
use crate::dialects;
use crate::engine::{Machine, Snapshot};
use crate::report;

pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Value,
}

/// What a tool returns: text for the model plus the same data as structured content.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub text: String,
    pub structured: Value,
    /// A result the CLI would report with exit code 1.
    pub is_error: bool,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolError {
    #[error("{0}")]
    InvalidParams(String),
    #[error(
        "unknown tool `{0}`: expected one of status, recovery, sequences, validate, who_am_i, what_do_i_do, how_do_i, add_to_seed"
    )]
    UnknownTool(String),
    #[error("{0}")]
    Failed(String),
}

/// Where the server finds its state.
#[derive(Debug, Clone, Default)]
pub struct McpContext {
    pub state_dir: Option<PathBuf>,
    /// The calling session (`--session`, else `CLAUDE_CODE_SESSION_ID`).
    pub session: Option<String>,
    pub sequence: Option<String>,
}

fn session_args() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": { "type": "string", "description": "Session id (default: the calling session, else the most recent one)" },
            "sequence": { "type": "string", "description": "Sequence name or path (default: the session's)" }
        },
        "additionalProperties": false
    })
}

pub fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "status",
            description: "Show the layered progress bars, the current step, the allowed tools and the next step of the sequence.",
            schema: session_args(),
        },
        ToolSpec {
            name: "recovery",
            description: "Suggest the next steps when the sequence is stuck or a call was denied.",
            schema: session_args(),
        },
        ToolSpec {
            name: "sequences",
            description: "List the available workflow sequences with their dialect and description.",
            schema: json!({ "type": "object", "properties": {}, "additionalProperties": false }),
        },
        ToolSpec {
            name: "validate",
            description: "Check sequences: the named files, or all built-ins. An error result exactly when `seed validate` would exit 1.",
            schema: json!({
                "type": "object",
                "properties": { "paths": { "type": "array", "items": { "type": "string" }, "description": "Sequence files or directories" } },
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "who_am_i",
            description: "Identity activation: who you are in this workflow.",
            schema: session_args(),
        },
        ToolSpec {
            name: "what_do_i_do",
            description: "Workflow loading: what to do now and next.",
            schema: session_args(),
        },
        ToolSpec {
            name: "how_do_i",
            description: "Help for one component (a step, a tool, or a section of how_do_i.seed).",
            schema: json!({
                "type": "object",
                "properties": {
                    "component": { "type": "string", "description": "The component to explain" },
                    "session": { "type": "string" },
                    "sequence": { "type": "string" }
                },
                "required": ["component"],
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "add_to_seed",
            description: "Explain how to add a sequence or a content file; validate a proposed sequence given as text, writing it only when asked.",
            schema: json!({
                "type": "object",
                "properties": {
                    "file_name": { "type": "string", "description": "e.g. my_flow.json, my_flow.yaml, my_flow.mmd (the extension picks the dialect)" },
                    "text": { "type": "string", "description": "The proposed sequence" },
                    "write": { "type": "boolean", "description": "Save it under the state directory's sequences/ when it validates (default false)" }
                },
                "additionalProperties": false
            }),
        },
    ]
}

fn str_arg(args: &Map<String, Value>, key: &str) -> Result<Option<String>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ToolError::InvalidParams(format!(
            "`{key}` must be a string, got {}",
            super::params::kind(other)
        ))),
    }
}

fn check_keys(args: &Map<String, Value>, allowed: &[&str]) -> Result<(), ToolError> {
    match args.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) if allowed.is_empty() => Err(ToolError::InvalidParams(format!(
            "unknown argument `{k}`: this tool takes none"
        ))),
        Some(k) => Err(ToolError::InvalidParams(format!(
            "unknown argument `{k}`: expected {}",
            allowed.join(", ")
        ))),
        None => Ok(()),
    }
}

/// The machine and snapshot of the session the tool speaks for.
fn view(ctx: &McpContext, args: &Map<String, Value>) -> Result<(Machine, Snapshot), ToolError> {
    let session = str_arg(args, "session")?.or_else(|| ctx.session.clone());
    let sequence = str_arg(args, "sequence")?.or_else(|| ctx.sequence.clone());
    let v = status::load_view(
        &status::Source::Session(session.as_deref()),
        sequence.as_deref(),
        ctx.state_dir.as_deref(),
    )
    .map_err(|e| ToolError::Failed(e.to_string()))?;
    Ok((v.machine, v.snap))
}

pub fn call(
    ctx: &McpContext,
    name: &str,
    args: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    match name {
        "status" | "recovery" | "who_am_i" | "what_do_i_do" => {
            check_keys(args, &["session", "sequence"])?
        }
        "how_do_i" => check_keys(args, &["component", "session", "sequence"])?,
        "validate" => check_keys(args, &["paths"])?,
        "sequences" => check_keys(args, &[])?,
        "add_to_seed" => check_keys(args, &["file_name", "text", "write"])?,
        other => return Err(ToolError::UnknownTool(other.to_string())),
    }
    match name {
        "status" => {
            let (m, snap) = view(ctx, args)?;
            let st = m.status(&snap);
            Ok(ToolOutput {
                is_error: false,
                text: report::status_text(&st),
                structured: report::status_json(&st),
            })
        }
        "recovery" => {
            let (m, snap) = view(ctx, args)?;
            let st = m.status(&snap);
            Ok(ToolOutput {
                is_error: false,
                text: report::recovery_text(&st),
                structured: report::recovery_json(&st),
            })
        }
        "sequences" => {
            let list = sequences::list();
            Ok(ToolOutput {
                is_error: false,
                text: sequences::render_text(&list),
                structured: json!({ "sequences": sequences::to_json(&list) }),
            })
        }
        "validate" => {
            let paths: Vec<PathBuf> = match args.get("paths") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|p| {
                        p.as_str().map(PathBuf::from).ok_or_else(|| {
                            ToolError::InvalidParams("`paths` must be an array of strings".into())
                        })
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => {
                    return Err(ToolError::InvalidParams(
                        "`paths` must be an array of strings".into(),
                    ));
                }
            };
            let reports = validate::validate_paths(&paths);
            let structured =
                serde_json::to_value(&reports).map_err(|e| ToolError::Failed(e.to_string()))?;
            Ok(ToolOutput {
                is_error: validate::failed(&reports),
                text: validate::render_text(&reports),
                structured: json!({ "files": structured }),
            })
        }
        "who_am_i" => {
            let text = match content::read_content(ctx.state_dir.as_deref(), "who_am_i.seed")
                .map_err(ToolError::Failed)?
            {
                Some(t) => t,
                None => content::default_who_am_i(&view(ctx, args)?.0),
            };
            Ok(ToolOutput {
                is_error: false,
                structured: json!({ "text": text }),
                text,
            })
        }
        "what_do_i_do" => {
            let text = match content::read_content(ctx.state_dir.as_deref(), "what_do_i_do.seed")
                .map_err(ToolError::Failed)?
            {
                Some(t) => t,
                None => {
                    let (m, snap) = view(ctx, args)?;
                    content::default_what_do_i_do(&m, &snap)
                }
            };
            Ok(ToolOutput {
                is_error: false,
                structured: json!({ "text": text }),
                text,
            })
        }
        "how_do_i" => {
            let component = str_arg(args, "component")?
                .filter(|c| !c.trim().is_empty())
                .ok_or_else(|| ToolError::InvalidParams("`component` is required".into()))?;
            let file = content::read_content(ctx.state_dir.as_deref(), "how_do_i.seed")
                .map_err(ToolError::Failed)?;
            let text = match file
                .as_deref()
                .and_then(|t| content::section(t, &component))
            {
                Some(s) => s,
                None => content::default_how_do_i(&view(ctx, args)?.0, &component),
            };
            Ok(ToolOutput {
                is_error: false,
                structured: json!({ "component": component, "text": text }),
                text,
            })
        }
        "add_to_seed" => add_to_seed(ctx, args),
        other => Err(ToolError::UnknownTool(other.to_string())),
    }
}

const ADD_HELP: &str = "How to add to seed:\n\
- A sequence: write a file in one of the dialects — master-sequence JSON (`.json`: tool_transitions, state_constraints, state_readers, progress_layers), workflow YAML (`.yaml`: nodes, preconditions, consequences, endings) or a Mermaid stateDiagram-v2 (`.mmd`, with a `.toml` manifest for bindings) — into the project's `.seed/sequences/` or the state directory's `sequences/`, then run `seed validate FILE`. Pass `text` and `file_name` to this tool to validate a proposal without writing it.\n\
- A content file: `who_am_i.seed`, `what_do_i_do.seed` (plain text) or `how_do_i.seed` (one `## component` section per component) in the state directory; seed serves them from this server's tools.";

fn add_to_seed(ctx: &McpContext, args: &Map<String, Value>) -> Result<ToolOutput, ToolError> {
    let text = str_arg(args, "text")?;
    let file_name = str_arg(args, "file_name")?;
    let write = match args.get("write") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(ToolError::InvalidParams(format!(
                "`write` must be a boolean, got {}",
                super::params::kind(other)
            )));
        }
    };
    let Some(text) = text else {
        return Ok(ToolOutput {
            is_error: false,
            text: ADD_HELP.to_string(),
            structured: json!({ "help": ADD_HELP }),
        });
    };
    let file_name = file_name.unwrap_or_else(|| "proposal.json".into());
    if file_name.contains(['/', '\\']) || file_name.starts_with('.') {
        return Err(ToolError::InvalidParams(
            "`file_name` must be a plain file name such as my_flow.json".into(),
        ));
    }
    let loaded = dialects::load_text(&file_name, &text, &|_| None);
    let report = validate::check(file_name.clone(), loaded);
    let ok = report.errors() == 0;
    let mut out = validate::render_text(std::slice::from_ref(&report));
    let mut written = None;
    if write && ok {
        let dir = ctx
            .state_dir
            .as_ref()
            .ok_or_else(|| {
                ToolError::Failed("no state directory: set SEED_HOME to save sequences".into())
            })?
            .join("sequences");
        // The store's rules: 0700 directories, 0600 files, no foreign symlinks, whole files.
        crate::store::paths::ensure_dir(&dir).map_err(|e| ToolError::Failed(e.to_string()))?;
        let path = dir.join(&file_name);
        crate::store::paths::write_atomic(&path, text.as_bytes())
            .map_err(|e| ToolError::Failed(format!("{}: {e}", path.display())))?;
        out.push_str(&format!("saved to {}\n", path.display()));
        written = Some(path.display().to_string());
    } else if write {
        out.push_str("not saved: fix the errors first\n");
    } else {
        out.push_str("not saved (pass write: true to save it)\n");
    }
    let structured = json!({ "valid": ok, "report": report, "written": written });
    // Like `seed validate FILE`: a proposal with errors is an error result.
    Ok(ToolOutput {
        is_error: !ok,
        text: out,
        structured,
    })
}

/// The state directory the server reads, as the hook would choose it.
pub fn default_context(session: Option<String>, sequence: Option<String>) -> McpContext {
    McpContext {
        state_dir: commands::state_dir(),
        session: session.or_else(|| {
            std::env::var("CLAUDE_CODE_SESSION_ID")
                .ok()
                .filter(|s| !s.is_empty())
        }),
        sequence,
    }
}
