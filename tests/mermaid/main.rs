//! Mermaid statecharts and manifests (seed 002, seed 004): parsing, lints, walks.

#[path = "../support/mod.rs"]
mod support;

mod basics;
mod everyday;
mod forks;
mod hostile;
mod labels;
mod lints;
mod manifest;
mod manifest_extras;
mod policy_gates;
mod progress;
mod seaam_dna;
mod seeds;
mod text;
mod walk_anchor_seaam;
mod walk_hope;
mod walk_hope_consult;
mod walk_hope_loops;
mod walk_hope_notifications;
mod walk_hope_progress;
mod walk_hope_routes;
mod walk_plan_then_build;
mod walk_research_first;
mod walk_safe_git;
mod walk_tdd;
mod walk_verify_before_done;
