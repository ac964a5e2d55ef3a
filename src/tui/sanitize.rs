//! The dashboard cleans untrusted text with the same rules as every other face.

pub use crate::report::sanitize::*;
