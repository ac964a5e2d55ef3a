//! The typed layer over the tailer: each line parsed as a session-log [`Record`]. A line that
//! does not parse is reported and skipped; it never stops the tail.

use super::{ResetReason, TailEvent, Tailer};
use crate::store::record::Record;

#[derive(Debug, Clone, PartialEq)]
pub enum RecordEvent {
    Record {
        offset: u64,
        line_no: u64,
        record: Box<Record>,
    },
    /// Not a record: invalid JSON or UTF-8, a wrong shape, a line glued onto the fragment a
    /// crashed writer left, or a line over the length limit.
    Malformed {
        offset: u64,
        line_no: u64,
        error: String,
    },
    Reset {
        reason: ResetReason,
    },
    Missing,
}

/// One log line (without its newline) as a record: the log's one reader.
pub use crate::store::record::parse_line as parse_record_line;

impl Tailer {
    /// [`Tailer::poll`], with each line parsed as a [`Record`]. Blank lines are ignored.
    pub fn poll_records(&mut self) -> Vec<RecordEvent> {
        self.poll()
            .into_iter()
            .filter_map(to_record_event)
            .collect()
    }
}

fn to_record_event(event: TailEvent) -> Option<RecordEvent> {
    Some(match event {
        TailEvent::Line { bytes, .. } if bytes.iter().all(u8::is_ascii_whitespace) => return None,
        TailEvent::Line {
            offset,
            line_no,
            bytes,
        } => match parse_record_line(&bytes) {
            Ok(record) => RecordEvent::Record {
                offset,
                line_no,
                record: Box::new(record),
            },
            Err(error) => RecordEvent::Malformed {
                offset,
                line_no,
                error,
            },
        },
        TailEvent::TooLong {
            offset,
            line_no,
            len,
        } => RecordEvent::Malformed {
            offset,
            line_no,
            error: format!("line longer than the limit ({len} bytes seen), skipped"),
        },
        TailEvent::Reset { reason } => RecordEvent::Reset { reason },
        TailEvent::Missing => RecordEvent::Missing,
    })
}
