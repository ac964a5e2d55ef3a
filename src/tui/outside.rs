//! seed's failures that no session log holds: `errors.jsonl` takes a failure record when the
//! session's log could not (locked past the hook's wait or budget, no session id in the
//! payload). The header counts them with the session's own, so a lapse is never hidden.

use std::path::Path;
use std::time::SystemTime;

use crate::store::failures::{self, Tally};

use super::model::parse_ts;

/// What `errors.jsonl` holds for the followed session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outside {
    /// Failures of this session (by its id) that its log does not hold.
    pub session: Tally,
    /// Failures with no session id, recorded since the session started.
    pub unattributed: Tally,
}

/// Count what `errors.jsonl` holds for `session` (started at unix ms `since`, when known).
pub fn read(state: &Path, session: &str, since: Option<i64>) -> Outside {
    let mut out = Outside::default();
    for r in failures::errors_log_records(state) {
        let Some(kind) = failures::of(&r) else {
            continue;
        };
        if r.session == session {
            out.session.add(kind);
        } else if r.session.is_empty() && since.is_none_or(|s| parse_ts(&r.ts) >= Some(s)) {
            out.unattributed.add(kind);
        }
    }
    out
}

/// `errors.jsonl`'s length and change time: read again only when they change.
pub fn stamp(state: &Path) -> Option<(u64, SystemTime)> {
    let m = std::fs::metadata(crate::store::paths::errors_log(state)).ok()?;
    Some((m.len(), m.modified().ok()?))
}
