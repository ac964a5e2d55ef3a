//! seed's own failures as the hooks recorded them: in the newest sessions' logs and in
//! `errors.jsonl` (failures no session log could take). `doctor` lists the newest with when,
//! where and why, lapses (a call let through unjudged, a hook over its budget) apart from
//! fail-closed refusals. Past failures are news, not a broken installation: they never fail
//! the check.

use std::path::Path;

use serde_json::{Value, json};

use crate::store::failures::{self, Kind, Tally};
use crate::store::record::Record;
use crate::store::sessions;

/// Sessions whose logs are read (the newest), and failures listed (the newest).
const SESSIONS_READ: usize = 5;
const LISTED: usize = 10;

/// The throwaway sessions `doctor` itself runs hooks in.
const DOCTOR_SESSION: &str = "seed-doctor-";

/// The failures recorded in `state`, as `doctor --json` gives them.
pub fn check(state: &Path) -> Value {
    let mut found: Vec<(Record, Kind, &'static str)> = Vec::new();
    let mut add = |r: Record, place: &'static str| {
        if let Some(k) = failures::of(&r).filter(|_| !r.session.starts_with(DOCTOR_SESSION)) {
            found.push((r, k, place));
        }
    };
    for r in failures::errors_log_records(state) {
        add(r, "errors.jsonl");
    }
    let mut list = sessions::list(state).unwrap_or_default();
    list.retain(|s| !s.id.starts_with(DOCTOR_SESSION));
    list.sort_by_key(|s| std::cmp::Reverse(s.modified));
    for s in list.iter().take(SESSIONS_READ) {
        let tail =
            crate::session::records::tail_records(&s.log, crate::session::records::TAIL_BYTES);
        for r in tail {
            add(r, "session log");
        }
    }
    let mut tally = Tally::default();
    found.iter().for_each(|(_, k, _)| tally.add(*k));
    // RFC 3339 UTC times sort as text.
    found.sort_by(|a, b| b.0.ts.cmp(&a.0.ts));
    let recent: Vec<Value> = found
        .iter()
        .take(LISTED)
        .map(|(r, k, place)| {
            json!({ "ts": r.ts, "session": r.session, "event": r.hook, "kind": k,
                "lapse": k.is_lapse(), "why": r.error, "recorded_in": place })
        })
        .collect();
    json!({ "lapses": tally.lapses, "failed_closed": tally.failed_closed,
        "sessions_read": list.len().min(SESSIONS_READ), "recent": recent })
}

/// The lines `doctor` prints for them (none when there are none); the caller sanitizes.
pub fn lines(v: &Value) -> Vec<String> {
    let t = Tally {
        lapses: v["lapses"].as_u64().unwrap_or(0),
        failed_closed: v["failed_closed"].as_u64().unwrap_or(0),
    };
    let Some(counts) = t.text() else {
        return Vec::new();
    };
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    let mut out = vec![format!(
        "! seed's own failures recorded: {counts} (a lapse let a call through unjudged or ran past hook_budget_ms; a fail-closed refusal did its job); newest first:"
    )];
    for f in v["recent"].as_array().into_iter().flatten() {
        let kind: Option<Kind> = serde_json::from_value(f["kind"].clone()).ok();
        let session = match s(&f["session"]) {
            id if id.is_empty() => "no session".to_string(),
            id => format!("session {}", crate::report::sanitize::clean(&id, 12)),
        };
        out.push(format!(
            "    {}  {} ({session}, {})  {}: {}",
            s(&f["ts"]),
            s(&f["event"]),
            s(&f["recorded_in"]),
            kind.map_or("failure", Kind::words),
            crate::report::sanitize::clean(&s(&f["why"]), 300)
        ));
    }
    out
}
