//! The dashboard (`seed tui`): one plain [`Model`], a reducer [`update`], views that are
//! functions of `&Model` and `&Theme` (one file per screen region), and the loop in [`app`].

pub mod fold;
pub mod keys;
pub mod model;
pub mod rows;
pub mod sanitize;
pub mod theme;
pub mod update;

pub use fold::{Fold, Seq};
pub use model::{Entry, Focus, Mode, Model, Overlay, SessionEntry, SessionInfo};
pub use update::{Effect, Msg, update};
