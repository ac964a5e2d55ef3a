//! `seed mcp`: the protocol and the tools the agent calls.

#[path = "../support/mod.rs"]
mod support;

mod add;
mod add_names;
mod basics;
mod content;
mod explain;
mod handshake;
mod howto;
mod in_flight;
mod plugin;
mod protocol;
mod record_names;
mod sessions;
mod text_for_the_model;
