//! `seed install`, `uninstall` and `doctor`: settings files, MCP entries and leftovers.

#[path = "../support/mod.rs"]
mod support;

mod basics;
mod doctor;
mod failsafe;
mod files;
mod hook_bin;
mod init;
mod leftovers;
mod mcp;
mod servers;
