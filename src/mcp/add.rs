//! `add_to_seed`: how to extend seed, and a check of a proposed sequence (saved only when
//! asked, with the store's permissions).

use serde_json::{Map, Value, json};

use super::tools::{McpContext, ToolError, ToolOutput, str_arg};
use crate::commands::validate;
use crate::dialects;

const ADD_HELP: &str = "How to add to seed:\n\
- A sequence: write a file in one of the dialects — master-sequence JSON (`.json`: tool_transitions, state_constraints, state_readers, progress_layers), workflow YAML (`.yaml`: nodes, preconditions, consequences, endings) or a Mermaid stateDiagram-v2 (`.mmd`, with a `.toml` manifest for bindings) — into the project's `.seed/sequences/` or the state directory's `sequences/`, then run `seed validate FILE`. Pass `text` and `file_name` to this tool to validate a proposal without writing it.\n\
- A content file: `who_am_i.seed`, `what_do_i_do.seed` (plain text) or `how_do_i.seed` (one `## component` section per component) in the state directory; seed serves them from this server's tools.";

pub fn add_to_seed(ctx: &McpContext, args: &Map<String, Value>) -> Result<ToolOutput, ToolError> {
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
        return Ok(ToolOutput::ok(
            ADD_HELP.to_string(),
            json!({ "help": ADD_HELP }),
        ));
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
        text: out,
        structured,
        is_error: !ok,
    })
}
