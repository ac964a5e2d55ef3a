//! seed: mission control for agent workflows.
//!
//! Data flows one way: Claude Code's hook payloads (`protocol`) become normalized events that
//! the pure [`engine`] steps through a sequence loaded by a [`dialects`] loader; the [`store`]
//! appends every step to a per-session log that the dashboard tails; [`report`] renders the one
//! status every face shows.
#![forbid(unsafe_code)]

pub mod cli;
pub mod commands;
pub mod config;
pub mod dialects;
pub mod engine;
pub mod export;
pub mod hook;
pub mod protocol;
pub mod report;
pub mod store;
pub mod tui;
