//! seed: mission control for agent workflows.
//!
//! Data flows one way: Claude Code's hook payloads ([`protocol`]) become normalized events that
//! the pure [`engine`] steps through a sequence loaded by a [`dialects`] loader; the [`store`]
//! appends every step to a per-session log; every face reads sessions back through the
//! [`session`] layer (the dashboard [`tui`], the [`mcp`] server, [`replay`], [`learn`], the
//! [`commands`]); [`report`] words the one status every face shows and [`export`] turns
//! dashboard frames into images. `ARCHITECTURE.md` draws the layers; a test keeps them.
#![forbid(unsafe_code)]

pub mod cli;
pub mod commands;
pub mod config;
pub mod demo;
pub mod dialects;
pub mod engine;
pub mod export;
pub mod hook;
pub mod hosted;
pub mod learn;
pub mod mcp;
pub mod protocol;
pub mod replay;
pub mod report;
pub mod session;
pub mod store;
pub mod theme;
pub mod tui;
