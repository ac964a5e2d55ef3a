//! Every parser fed mutated copies of real inputs (proptest, stable Rust): hook payloads,
//! session records, the three sequence dialects and manifests, transcripts and configuration.
//! A parser may refuse what it is given, never panic. The seeds are the project's own
//! sequences and fixtures, plus the shared Claude Code fixtures when they are there.
//!
//! cargo test --test fuzz                          # a bounded run (CI): SEED_FUZZ_CASES each
//! SEED_FUZZ_CASES=200000 cargo test --release --test fuzz -- --ignored   # a long run

mod parsers;
