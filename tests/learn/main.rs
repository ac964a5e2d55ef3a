//! `seed learn`: a draft sequence mined from sessions whose workflow the test knows, the
//! what-if counts it reports, and every kind of input it may be given.

#[path = "../support/mod.rs"]
mod support;

mod drafts;
mod inputs;
mod props;
mod transcripts;
