//! One dispatch for the nine tools. `status`, `recovery`, `explain`, `sequences` and
//! `validate` call the same functions as the CLI, so both faces say the same thing (and
//! `validate` fails exactly when `seed validate` exits 1).

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::{add, guide, params, specs};
use crate::report;
use crate::report::{sequences, validation as validate};
use crate::session::choice::{self as session_choice, Pick};
use crate::session::now;
use crate::session::view::{self as status, View};

/// What a tool returns: the text the CLI prints, and the object its `--json` prints, which
/// goes out only when the call asks for it (`json: true`, see `call`). `is_error` marks a
/// result the CLI would report with exit code 1.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub text: String,
    pub structured: Option<Value>,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn ok(text: String, structured: Value) -> ToolOutput {
        ToolOutput {
            text,
            structured: Some(structured),
            is_error: false,
        }
    }

    /// The answer in the form the call asked for. Claude Code hands the model a result's
    /// `structuredContent` instead of its text, so the text alone goes out by default; with
    /// `json` the object goes out as structured content, and as its text (MCP asks for both).
    fn in_form(mut self, json: bool) -> ToolOutput {
        match self.structured.take().filter(|_| json) {
            Some(v) => {
                self.text = serde_json::to_string_pretty(&v).unwrap_or_else(|_| v.to_string());
                self.structured = Some(v);
            }
            None => self.structured = None,
        }
        self
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolError {
    #[error("{0}")]
    InvalidParams(String),
    #[error("unknown tool `{0}`: expected one of {names}", names = specs::NAMES.join(", "))]
    UnknownTool(String),
    #[error("{0}")]
    Failed(String),
}

/// Where the server finds its state.
#[derive(Debug, Clone, Default)]
pub struct McpContext {
    pub state_dir: Option<PathBuf>,
    /// The session `--session` names.
    pub session: Option<String>,
    /// The Claude Code session that started the server (`CLAUDE_CODE_SESSION_ID`); each call
    /// follows it to its successor after `/clear` or `/resume` (see `session::choice`).
    pub caller: Option<String>,
    pub sequence: Option<String>,
    /// Where the project's `.seed.toml` is looked for (`CLAUDE_PROJECT_DIR`, the working
    /// directory), to know the active sequence when no session names one.
    pub project_dirs: Vec<PathBuf>,
}

pub(super) fn str_arg(args: &Map<String, Value>, key: &str) -> Result<Option<String>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ToolError::InvalidParams(format!(
            "`{key}` must be a string, got {}",
            params::kind(other)
        ))),
    }
}

fn bool_arg(args: &Map<String, Value>, key: &str) -> Result<bool, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(ToolError::InvalidParams(format!(
            "`{key}` must be a boolean, got {}",
            params::kind(other)
        ))),
    }
}

fn check_keys(args: &Map<String, Value>, allowed: &[&str]) -> Result<(), ToolError> {
    match args.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(ToolError::InvalidParams(format!(
            "unknown argument `{k}`: expected {}",
            allowed.join(", ")
        ))),
        None => Ok(()),
    }
}

/// The session a tool speaks for: its `session` argument, else `--session`, else the calling
/// session as every face follows it, else the most recent.
pub(super) fn pick(ctx: &McpContext, args: &Map<String, Value>) -> Result<Pick, ToolError> {
    Ok(
        match str_arg(args, "session")?.or_else(|| ctx.session.clone()) {
            Some(named) => Pick::Named(named),
            None => match &ctx.caller {
                Some(id) => Pick::Calling {
                    id: id.clone(),
                    project: ctx.project_dirs.first().cloned(),
                },
                None => Pick::Latest,
            },
        },
    )
}

/// The machine and snapshot of the session the tool speaks for, as the files say now.
fn view(ctx: &McpContext, args: &Map<String, Value>) -> Result<View, ToolError> {
    let pick = pick(ctx, args)?;
    let sequence = str_arg(args, "sequence")?.or_else(|| ctx.sequence.clone());
    status::load_view(
        &status::Source::Session(&pick),
        sequence.as_deref(),
        ctx.state_dir.as_deref(),
    )
    .map_err(|e| ToolError::Failed(e.to_string()))
}

fn paths_arg(args: &Map<String, Value>) -> Result<Vec<PathBuf>, ToolError> {
    let bad = || ToolError::InvalidParams("`paths` must be an array of strings".into());
    match args.get("paths") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|p| p.as_str().map(PathBuf::from).ok_or_else(bad))
            .collect(),
        Some(_) => Err(bad()),
    }
}

/// Every tool's answer: the text the CLI prints, or with `json: true` the object its `--json`
/// prints (as structured content and as text).
pub fn call(
    ctx: &McpContext,
    name: &str,
    args: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    match name {
        "status" | "recovery" | "who_am_i" | "what_do_i_do" => {
            check_keys(args, &["session", "sequence", "json"])?
        }
        "how_do_i" => check_keys(args, &["component", "session", "sequence", "json"])?,
        "explain" => check_keys(args, &["call", "session", "sequence", "json"])?,
        "validate" => check_keys(args, &["paths", "json"])?,
        "sequences" => check_keys(args, &["json"])?,
        "add_to_seed" => check_keys(args, &["file_name", "text", "manifest", "write", "json"])?,
        other => return Err(ToolError::UnknownTool(other.to_string())),
    }
    let json = bool_arg(args, "json")?;
    answer(ctx, name, args).map(|out| out.in_form(json))
}

/// The line `seed status` adds when seed 000's deep state cannot apply (`HEAVEN_DATA_DIR` unset
/// where the server runs, as for the hooks beside it), after the status as the CLI says it.
fn noticed(m: &crate::engine::Machine, text: String, json: &mut Value) -> String {
    let env = |k: &str| std::env::var(k).ok();
    match report::deep_state::unset_notice(&m.chart, &env) {
        Some(n) => {
            json["deep_state_notice"] = n.clone().into();
            format!("{}\n{n}", text.trim_end())
        }
        None => text,
    }
}

fn answer(
    ctx: &McpContext,
    name: &str,
    args: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    match name {
        "status" | "recovery" => {
            let v = view(ctx, args)?;
            let st = v.machine.status(&v.snap);
            let (text, mut json) = if name == "status" {
                (report::status_text(&st), report::status_json(&st))
            } else {
                (report::recovery_text(&st), report::recovery_json(&st))
            };
            let text = now::mark(v.moved.as_ref(), v.items.as_ref(), text, &mut json);
            let mut text = noticed(&v.machine, text, &mut json);
            if name == "status" {
                // seed's own failures, as the CLI says them after the status.
                text = report::with_failures(&text, &v.failures);
                json["hook_failures"] = report::failures_json(&v.failures);
            }
            Ok(ToolOutput::ok(text, json))
        }
        "explain" => explain(ctx, args),
        "sequences" => {
            let list = sequences::list();
            Ok(ToolOutput::ok(
                sequences::render_text(&list),
                json!({ "sequences": sequences::to_json(&list) }),
            ))
        }
        "validate" => {
            let paths = paths_arg(args)?;
            let mut reports = validate::validate_paths(&paths);
            let env = |k: &str| std::env::var(k).ok();
            report::deep_state::add_warnings(&mut reports, &paths, &env);
            let structured =
                serde_json::to_value(&reports).map_err(|e| ToolError::Failed(e.to_string()))?;
            Ok(ToolOutput {
                text: validate::render_text(&reports),
                structured: Some(json!({ "files": structured })),
                is_error: validate::failed(&reports),
            })
        }
        "who_am_i" => guide::who_am_i(ctx, args),
        "what_do_i_do" => guide::what_do_i_do(ctx, args),
        "how_do_i" => guide::how_do_i(ctx, args),
        "add_to_seed" => add::add_to_seed(ctx, args),
        other => Err(ToolError::UnknownTool(other.to_string())),
    }
}

/// `explain`: the call in every sequence of the session (or the `sequence` named).
fn explain(ctx: &McpContext, args: &Map<String, Value>) -> Result<ToolOutput, ToolError> {
    let call = str_arg(args, "call")?.ok_or_else(|| {
        ToolError::InvalidParams("`call` is required: the call as you make it".into())
    })?;
    let ev = crate::protocol::call::parse_call(&call)
        .map_err(|e| ToolError::InvalidParams(format!("cannot read the call: {e}")))?;
    let pick = pick(ctx, args)?;
    let sequence = str_arg(args, "sequence")?.or_else(|| ctx.sequence.clone());
    let state = ctx
        .state_dir
        .as_deref()
        .ok_or_else(|| ToolError::Failed("no state directory: set SEED_HOME".into()))?;
    let views = crate::session::view::session_views(state, &pick, sequence.as_deref())
        .map_err(|e| ToolError::Failed(e.to_string()))?;
    let (text, json) = crate::session::explain::explained(&views, &ev, sequence.as_deref());
    Ok(ToolOutput::ok(text, json))
}

/// The state directory the server reads, as the hook would choose it.
pub fn default_context(session: Option<String>, sequence: Option<String>) -> McpContext {
    let project_dirs = std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .chain(std::env::current_dir().ok())
        .collect();
    McpContext {
        state_dir: crate::session::state_dir(),
        session,
        caller: session_choice::calling_session(),
        sequence,
        project_dirs,
    }
}
