//! The pure engine: semantics, properties, endings, recovery, the purity of its sources and the
//! layers of the crate around it.

#[path = "../support/mod.rs"]
mod support;

mod claude_code_tools_neutral;
mod endings;
mod explain;
mod failed_calls;
mod fold_denials;
mod layers;
mod lint_never_taken;
mod mcp_servers;
mod position_wording;
mod props;
mod props_bands;
mod purity;
mod recovery_guards;
mod recovery_paths;
mod seed_tools_neutral;
mod semantics;
mod stop_blocks;
mod system_notifications;
