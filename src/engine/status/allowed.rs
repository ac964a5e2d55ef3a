//! What is legal now: any call, or these calls (spelled as the agent makes them).

use serde::{Deserialize, Serialize};

/// The calls a status lets through. In JSON a list of calls, `["*"]` for any call (so the
/// `--json` of `seed status` reads as it always has).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "Vec<String>", into = "Vec<String>")]
pub enum Allowed {
    /// Every call no policy refuses (a step that lets anything through, an ended sequence).
    Any,
    /// These calls: the expected ones first, then neutral tools and allow lists.
    Calls(Vec<String>),
}

impl Allowed {
    pub fn is_any(&self) -> bool {
        matches!(self, Allowed::Any)
    }

    /// The listed calls (none for [`Allowed::Any`]).
    pub fn calls(&self) -> &[String] {
        match self {
            Allowed::Any => &[],
            Allowed::Calls(c) => c,
        }
    }
}

impl From<Vec<String>> for Allowed {
    fn from(v: Vec<String>) -> Self {
        if v.len() == 1 && v[0] == "*" {
            Allowed::Any
        } else {
            Allowed::Calls(v)
        }
    }
}

impl From<Allowed> for Vec<String> {
    fn from(a: Allowed) -> Self {
        match a {
            Allowed::Any => vec!["*".to_string()],
            Allowed::Calls(c) => c,
        }
    }
}
