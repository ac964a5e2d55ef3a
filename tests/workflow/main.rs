//! Workflow YAML (seed 003): schema, expressions, preconditions, consequences and walks.

#[path = "../support/mod.rs"]
mod support;

mod basics;
mod consequences;
mod engine;
mod errors;
mod expr;
mod header;
mod offpath;
mod preconditions;
mod seed_schema;
mod skill;
mod walks;
mod world_calls;
