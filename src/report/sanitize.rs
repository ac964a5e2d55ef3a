//! Every face cleans untrusted text with the engine's rules (the engine itself needs them for
//! the fact values it quotes in recovery texts).

pub use crate::engine::sanitize::*;
