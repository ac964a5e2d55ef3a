//! Claude Code's side of the wire: hook payloads and answers, and session transcripts.

pub mod transcript;
