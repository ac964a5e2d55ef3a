//! The dashboard (`seed tui`): model, views and the pieces they share.

pub mod theme;
