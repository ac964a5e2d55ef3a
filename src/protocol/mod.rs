//! Claude Code's side of the wire: hook payloads in, answers out, and session transcripts.

pub mod bounded;
pub mod call;
pub mod depth;
pub mod events;
pub mod input;
pub mod output;
pub mod repair;
pub mod tool_result;
pub mod top;
pub mod transcript;

pub use input::{HookInput, InputError, Normalized};
pub use output::Answer;
