//! seed under the real Claude Code: each scenario starts the CLI in print mode (or interactive
//! mode under tmux) against a scripted stand-in for the model, with seed installed in a fresh
//! project the way a user installs it, then asserts what the model was sent and what seed
//! recorded.
//!
//! A scenario reads as a specification:
//!
//! ```ignore
//! #[test]
//! fn a_refused_call_names_the_next_call() {
//!     let Some(s) = Scenario::new() else { return }; // not installed: one printed line
//!     let run = s
//!         .file(".seed/sequences/x.json", X)          // the project, as a user has it
//!         .sequence("x")                             // `seed install --local --sequence x`
//!         .prompt("go")                              // one or more prompts, one session
//!         .model([                                   // the model's turns, in order
//!             Turn::tool("Bash", json!({"command": "true"})),
//!             Turn::text("done"),
//!         ])
//!         .run();
//!     let refused = run.result(0);                   // what the model read for turn 0's call
//!     assert!(refused.is_error);
//!     assert_eq!(run.records_of("PreToolUse").len(), 1); // what seed recorded
//!     replay::agrees_with_live(&run);                // the transcript replays to the same verdicts
//! }
//! ```
//!
//! The pinned Claude Code (`.ci/claude-code-version`) is installed by `.ci/install-claude-code`
//! into `target/claude-code/`; `SEED_CLAUDE=PATH` drives another build. Without either every
//! scenario skips after one printed line.

mod harness;

mod advise;
mod budget;
mod context;
mod doctor;
mod everyday;
mod failures;
mod hope;
mod mcp_tools;
mod odyssean;
mod refusal;
mod stop;
mod subagents;
