//! seed's own failures, told apart by what they did to the call. A *lapse* is a hook that did
//! not do its job: the event went through unjudged (a failure answered fail-open, or any
//! failure of an event there is nothing to refuse on) or the hook ran past `hook_budget_ms`.
//! A *fail-closed refusal* did its job: the call was refused because seed could not judge it
//! (`fail = "closed"` on PreToolUse or PermissionRequest). Every face counts them apart.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::record::Record;

/// The events a fail-closed answer refuses (the others get no decision either way).
pub const REFUSING_EVENTS: [&str; 2] = ["PreToolUse", "PermissionRequest"];

/// The key of a failure record's `extra` that says the hook ran out of its budget (in ms).
pub const BUDGET_KEY: &str = "budget_ms";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Not judged: failed open, or nothing to refuse.
    FailedOpen,
    /// Past `hook_budget_ms` (whatever the answer was).
    OverBudget,
    /// Refused because seed could not judge it.
    FailedClosed,
}

impl Kind {
    pub fn is_lapse(self) -> bool {
        self != Kind::FailedClosed
    }

    /// How a face says it, after the event's name.
    pub fn words(self) -> &'static str {
        match self {
            Kind::FailedOpen => "lapse (let through unjudged)",
            Kind::OverBudget => "lapse (over its time budget)",
            Kind::FailedClosed => "refused (fail = \"closed\")",
        }
    }
}

/// What kind of failure a record is (`None`: not one). `fail` and `budget_ms` come from the
/// record's `extra`; a record without `fail` (an older seed's) failed open, the default.
pub fn kind(
    hook: &str,
    error: Option<&str>,
    fail: Option<&str>,
    over_budget: bool,
) -> Option<Kind> {
    error?;
    Some(if over_budget {
        Kind::OverBudget
    } else if fail == Some("closed") && REFUSING_EVENTS.contains(&hook) {
        Kind::FailedClosed
    } else {
        Kind::FailedOpen
    })
}

/// [`kind`] of a whole record.
pub fn of(r: &Record) -> Option<Kind> {
    kind(
        &r.hook,
        r.error.as_deref(),
        r.extra.get("fail").and_then(Value::as_str),
        r.extra.get(BUDGET_KEY).is_some(),
    )
}

/// Lapses and fail-closed refusals, counted apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub lapses: u64,
    pub failed_closed: u64,
}

impl Tally {
    pub fn add(&mut self, k: Kind) {
        match k.is_lapse() {
            true => self.lapses += 1,
            false => self.failed_closed += 1,
        }
    }

    pub fn add_record(&mut self, r: &Record) {
        if let Some(k) = of(r) {
            self.add(k);
        }
    }

    pub fn merged(self, other: Tally) -> Tally {
        Tally {
            lapses: self.lapses + other.lapses,
            failed_closed: self.failed_closed + other.failed_closed,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.lapses == 0 && self.failed_closed == 0
    }

    /// `2 lapses, 1 refused (fail = "closed")`; `None` when there is nothing to say.
    pub fn text(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.lapses > 0 {
            let s = if self.lapses == 1 { "" } else { "s" };
            parts.push(format!("{} lapse{s}", self.lapses));
        }
        if self.failed_closed > 0 {
            parts.push(format!(
                "{} refused (fail = \"closed\")",
                self.failed_closed
            ));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// The most of `errors.jsonl` a face reads: its newest records.
pub const ERRORS_TAIL: u64 = 256 * 1024;

/// The failure records of `errors.jsonl` (failures no session log could take), oldest first,
/// from its last [`ERRORS_TAIL`] bytes.
pub fn errors_log_records(state: &std::path::Path) -> Vec<Record> {
    let path = super::paths::errors_log(state);
    let Ok(mut f) = std::fs::File::open(&path) else {
        return Vec::new();
    };
    // A regular file only: `/dev/zero` or a FIFO put there never ends or blocks.
    if !f.metadata().is_ok_and(|m| m.is_file()) {
        return Vec::new();
    }
    let bytes = tail_bytes(&mut f, ERRORS_TAIL).unwrap_or_default();
    let cut = bytes.len() as u64 == ERRORS_TAIL;
    let mut lines = bytes.split(|b| *b == b'\n');
    if cut {
        // The first line may be a record's end.
        lines.next();
    }
    lines
        .filter_map(|l| serde_json::from_slice::<Record>(l).ok())
        .filter(|r| r.error.is_some())
        .collect()
}

fn tail_bytes(f: &mut std::fs::File, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let len = f.metadata()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(max)))?;
    let mut out = Vec::new();
    f.take(max).read_to_end(&mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn failure(hook: &str, extra: Value) -> Record {
        let mut r = Record::new("2026-01-01T00:00:00Z", "s", hook);
        r.error = Some("seed: boom".into());
        r.extra = extra;
        r
    }

    #[test]
    fn a_fail_closed_refusal_is_not_a_lapse() {
        let closed = failure("PreToolUse", json!({"fail": "closed"}));
        assert_eq!(of(&closed), Some(Kind::FailedClosed));
        let permission = failure("PermissionRequest", json!({"fail": "closed"}));
        assert_eq!(of(&permission), Some(Kind::FailedClosed));
    }

    #[test]
    fn failing_open_or_with_nothing_to_refuse_is_a_lapse() {
        for r in [
            failure("PreToolUse", json!({"fail": "open"})),
            failure("PreToolUse", Value::Null),
            failure("PostToolUse", json!({"fail": "closed"})),
            failure("", json!({"fail": "closed"})),
        ] {
            assert_eq!(of(&r), Some(Kind::FailedOpen), "{r:?}");
        }
    }

    #[test]
    fn running_past_the_budget_is_a_lapse_whatever_was_answered() {
        let r = failure("PreToolUse", json!({"fail": "closed", "budget_ms": 500}));
        assert_eq!(of(&r), Some(Kind::OverBudget));
        let mut t = Tally::default();
        t.add_record(&r);
        t.add_record(&failure("PreToolUse", json!({"fail": "closed"})));
        t.add_record(&Record::new("", "s", "PreToolUse"));
        assert_eq!(
            t,
            Tally {
                lapses: 1,
                failed_closed: 1
            }
        );
        assert_eq!(
            t.text().as_deref(),
            Some("1 lapse, 1 refused (fail = \"closed\")")
        );
        assert_eq!(Tally::default().text(), None);
    }

    #[test]
    fn the_errors_log_is_read_from_its_tail_and_only_its_failures() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::new();
        for i in 0..4000 {
            let mut r = failure("PreToolUse", json!({"fail": "open", "i": i}));
            r.ts = format!("t{i}");
            text.push_str(&serde_json::to_string(&r).unwrap());
            text.push('\n');
        }
        text.push_str("not json\n{\"hook\":\"PreToolUse\"}\n");
        std::fs::write(super::super::paths::errors_log(dir.path()), text).unwrap();
        let got = errors_log_records(dir.path());
        assert!(got.len() > 100 && got.len() < 4000, "{}", got.len());
        assert_eq!(got.last().map(|r| r.ts.as_str()), Some("t3999"));
        assert!(errors_log_records(&dir.path().join("none")).is_empty());
    }
}
