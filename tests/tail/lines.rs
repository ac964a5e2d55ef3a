//! Lines: pieces, endings, bad content, limits, and any way of cutting bytes into writes.

use std::fs::File;

use proptest::prelude::*;
use seed::store::record::Record;
use seed::store::tail::{RecordEvent, ResetReason, TailEvent, Tailer};

use crate::{append, setup, show, small};

#[test]
fn a_line_split_over_three_writes_is_emitted_once_its_newline_arrives() {
    let (_dir, path) = setup();
    let mut tail = Tailer::new(&path);
    append(&path, "{\"a\":");
    assert!(tail.poll().is_empty());
    append(&path, "1");
    assert!(tail.poll().is_empty());
    assert_eq!(tail.offset(), 0, "a partial line is not consumed");
    append(&path, "}\n");
    let events = tail.poll();
    assert_eq!(
        events,
        vec![TailEvent::Line {
            offset: 0,
            line_no: 1,
            bytes: b"{\"a\":1}".to_vec()
        }]
    );
    assert_eq!(tail.offset(), 8);
}

#[test]
fn two_lines_in_one_write_are_two_lines_with_their_offsets() {
    let (_dir, path) = setup();
    let mut tail = Tailer::new(&path);
    append(&path, "one\ntwo\n");
    let events = tail.poll();
    assert_eq!(
        events,
        vec![
            TailEvent::Line {
                offset: 0,
                line_no: 1,
                bytes: b"one".to_vec()
            },
            TailEvent::Line {
                offset: 4,
                line_no: 2,
                bytes: b"two".to_vec()
            },
        ]
    );
    assert!(tail.poll().is_empty(), "nothing is read twice");
}

#[test]
fn crlf_line_endings_lose_their_carriage_return() {
    let (_dir, path) = setup();
    let mut tail = Tailer::new(&path);
    append(&path, "one\r\ntwo\r");
    assert_eq!(show(&tail.poll()), ["one"]);
    append(&path, "\n");
    assert_eq!(show(&tail.poll()), ["two"]);
}

#[test]
fn bad_lines_are_reported_as_malformed_and_the_tail_goes_on() {
    let (_dir, path) = setup();
    let good = serde_json::to_string(&Record::new("2026-01-01T00:00:00Z", "s1", "Stop")).unwrap();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"{\"v\":1,\"ts\":\"x\",\"session\":\"\xff\xfe\",\"hook\":\"Stop\"}\n");
    bytes.extend_from_slice(b"not json\n\n");
    bytes.extend_from_slice(b"{\"v\":\"one\",\"hook\":7}\n");
    bytes.extend_from_slice(format!("{good}\n").as_bytes());
    append(&path, &bytes);

    let events = Tailer::new(&path).poll_records();
    let kinds: Vec<String> = events
        .iter()
        .map(|e| match e {
            RecordEvent::Record {
                line_no, record, ..
            } => format!("{line_no}: record {}", record.hook),
            RecordEvent::Malformed { line_no, .. } => format!("{line_no}: malformed"),
            other => format!("{other:?}"),
        })
        .collect();
    // Line 3 is blank and ignored; line 4 has fields of the wrong type.
    assert_eq!(
        kinds,
        [
            "1: malformed",
            "2: malformed",
            "4: malformed",
            "5: record Stop"
        ]
    );
}

#[test]
fn the_typed_layer_passes_resets_missing_and_overlong_lines_through() {
    let (_dir, path) = setup();
    let mut tail = Tailer::new(&path).with_limits(small(64, 1 << 20, 200));
    assert_eq!(tail.poll_records(), vec![RecordEvent::Missing]);
    append(&path, format!("{}\n", "z".repeat(300)));
    let events = tail.poll_records();
    assert!(
        matches!(&events[..], [RecordEvent::Malformed { error, .. }] if error.contains("limit"))
    );

    File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    let record = Record::new("2026-01-01T00:00:00Z", "s1", "SessionStart");
    append(
        &path,
        format!("{}\n", serde_json::to_string(&record).unwrap()),
    );
    let events = tail.poll_records();
    assert_eq!(
        events[0],
        RecordEvent::Reset {
            reason: ResetReason::Truncated
        }
    );
    assert!(
        matches!(&events[1], RecordEvent::Record { offset: 0, line_no: 1, record: r } if **r == record)
    );
}

#[test]
fn a_line_larger_than_the_read_chunk_is_assembled_whole() {
    let (_dir, path) = setup();
    let mut tail = Tailer::new(&path).with_limits(small(7, 1 << 20, 1 << 20));
    let long = "x".repeat(100);
    append(&path, format!("{long}\nshort\n"));
    assert_eq!(show(&tail.poll()), [long.as_str(), "short"]);
}

#[test]
fn a_line_over_the_length_limit_is_reported_and_skipped() {
    let (_dir, path) = setup();
    let mut tail = Tailer::new(&path).with_limits(small(4, 1 << 20, 10));
    append(&path, format!("ok\n{}", "y".repeat(30)));
    let events = tail.poll();
    assert_eq!(show(&events), ["ok", "<too long>"]);
    assert!(matches!(events[1], TailEvent::TooLong { offset: 3, line_no: 2, len } if len > 10));
    append(&path, "yyyy\nafter\n");
    let events = tail.poll();
    assert_eq!(
        events,
        vec![TailEvent::Line {
            offset: 38,
            line_no: 3,
            bytes: b"after".to_vec()
        }]
    );
}

/// The complete lines of `bytes`: everything before the last `\n`, split, without `\r`.
fn complete_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    let Some(last) = bytes.iter().rposition(|&b| b == b'\n') else {
        return Vec::new();
    };
    bytes[..last]
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// However the bytes are cut into writes, the lines emitted are the complete lines.
    #[test]
    fn any_cutting_into_writes_yields_the_complete_lines(
        bytes in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), any::<u8>()], 0..400),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..8),
        chunk in 1usize..16,
    ) {
        let (_dir, path) = setup();
        File::create(&path).unwrap();
        let mut tail = Tailer::new(&path).with_limits(small(chunk, 64, 1 << 20));
        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        points.push(bytes.len());
        points.sort_unstable();
        let mut lines = Vec::new();
        let mut from = 0;
        for to in points {
            append(&path, &bytes[from..to]);
            from = to;
            loop {
                for event in tail.poll() {
                    match event {
                        TailEvent::Line { bytes, .. } => lines.push(bytes),
                        other => prop_assert!(false, "unexpected {:?}", other),
                    }
                }
                if !tail.is_behind() { break; }
            }
        }
        prop_assert_eq!(lines, complete_lines(&bytes));
        let consumed = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        prop_assert_eq!(tail.offset(), consumed as u64);
    }
}
