//! The workflow YAML dialect (seed 003): typed preconditions, consequences, flags, five node
//! types and explicit endings, compiled to the statechart IR (statecharts reference §5.2(b)).
//!
//! - `initial_state` fields become variables and `initial_state.flags` become flags;
//! - `entry_preconditions` become a choice before `start_node` (failing: `on_entry_failure`, or
//!   a synthesized `entry_preconditions_failed` ending);
//! - file-system preconditions become deep-state readers under `${CLAUDE_PROJECT_DIR}`;
//! - consequences that change workflow state become data actions; those that act on the outside
//!   world become the node's activity (the mapping is in [`consequence`]);
//! - `endings` become final states with their message and recovery;
//! - a `user_prompt` waits for `AskUserQuestion`; a response handler fires when the `answers`
//!   in the call's input hold the option's label or id ([`prompt::answer_guard`]);
//! - `store_as` keeps the action's result: the tool's response on PostToolUse (a Read of the
//!   config parsed as YAML, a command's stdout), or a prompt's chosen answer.
//!
//! Extensions: `enforcement`, `off_path`, `neutral_tools` (default Read, Glob, Grep, TodoWrite)
//! as in the master dialect, `on_entry_failure`, `store_as` on `user_prompt`, a `default`
//! response handler for typed answers, and the `note`, `invoke_skill` and `run_command`
//! consequences.

pub mod calls;
pub mod compile;
pub mod consequence;
pub mod declare;
pub mod expr;
pub mod expr_guard;
pub mod flow;
pub mod lints;
pub mod nodes;
pub mod precond;
pub mod prompt;
pub mod schema;
pub mod skill;

use super::{LoadError, Loaded};

/// Load workflow YAML text.
pub fn load(file: &str, text: &str) -> Result<Loaded, LoadError> {
    let wf = schema::parse(file, text)?;
    compile::compile(file, text, wf)
}
