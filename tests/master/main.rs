//! The master-sequence dialect (seed 000): loading, guards, layers, constraints and walks.

#[path = "../support/mod.rs"]
mod support;

mod constraints;
mod dialect;
mod dialect_inputs;
mod guards;
mod layers;
mod strict;
mod walks;
mod walks_execution;
mod walks_subchains;
