//! `seed hook` as Claude Code runs it: events, records, the store, failures and security.

#[path = "../support/mod.rs"]
mod support;

mod claude_code_live;
mod config_trust;
mod deadline;
mod emit_allow;
mod events;
mod everyday;
mod failed_calls;
mod failures;
mod file_size;
mod files_move;
mod fixtures;
mod foreign_reads;
mod mcp_servers;
mod odd_sessions;
mod payload_size;
mod reader_budget;
mod reader_secrets;
mod records;
mod scrub;
mod security;
mod seed_hook;
mod several_sequences;
mod snapshot_gap;
mod store;
mod subagents;
mod workflow;
mod write_order;
