//! Replay without a terminal: the records of a source (resolved by `session::source`)
//! summarized by what a sequence says about them (what-if included), and dashboard frames.

pub mod frame;
pub mod summary;
