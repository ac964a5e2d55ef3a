//! The command line: help, output, status, validate and lint of files, as a user runs them.

#[path = "../support/mod.rs"]
mod support;

mod deep_state_unset;
mod explain;
mod help;
mod hostile_faces;
mod hostile_text;
mod lint_files;
mod new;
mod output;
mod readme_first_sequence;
mod sequence_descriptions;
mod sequence_names;
mod session_shown;
mod status;
mod status_layers;
mod validate_paths;
