//! Helpers shared by the test binaries, each as its own module.
#![allow(dead_code, unused_imports)]

pub mod hook;
pub mod mcp;
pub mod mermaid;
pub mod project;
pub mod tui;
pub mod walk;
pub mod workflow;
