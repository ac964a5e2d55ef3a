//! Files: truncation, rotation, replacement, absence, offsets, and backlogs.

use std::fs::{self, File};

use seed::store::tail::{TailEvent, Tailer};

use crate::{append, setup, show, small};

#[test]
fn truncation_resets_to_the_start_of_the_new_content() {
    let (_dir, path) = setup();
    let mut tail = Tailer::new(&path);
    append(&path, "first line of the old content\nsecond\n");
    assert_eq!(tail.poll().len(), 2);
    File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    append(&path, "new\n");
    assert_eq!(show(&tail.poll()), ["<reset: Truncated>", "new"]);
    assert_eq!(tail.line_no(), 1, "line numbers restart with the content");
}

#[test]
fn rotation_drains_the_old_file_then_resets_to_the_new_one() {
    let (dir, path) = setup();
    let mut tail = Tailer::new(&path);
    append(&path, "old 1\n");
    assert_eq!(show(&tail.poll()), ["old 1"]);
    append(&path, "old 2\n");
    fs::rename(&path, dir.path().join("session.jsonl.1")).unwrap();
    append(&path, "new 1\n");
    assert_eq!(show(&tail.poll()), ["old 2", "<reset: Rotated>", "new 1"]);
    append(&path, "new 2\n");
    assert_eq!(show(&tail.poll()), ["new 2"]);
}

/// The old file is gone once replaced, so this is reported like a delete and recreate.
#[cfg(unix)]
#[test]
fn an_atomic_replace_resets_to_the_new_file() {
    let (dir, path) = setup();
    let mut tail = Tailer::new(&path);
    append(&path, "a\n");
    tail.poll();
    let temp = dir.path().join("session.jsonl.tmp");
    append(&temp, "b\n");
    fs::rename(&temp, &path).unwrap();
    assert_eq!(show(&tail.poll()), ["<reset: Recreated>", "b"]);
}

#[cfg(unix)]
#[test]
fn delete_and_recreate_between_polls_is_reported_as_recreated() {
    let (_dir, path) = setup();
    let mut tail = Tailer::new(&path);
    append(&path, "a\n");
    tail.poll();
    append(&path, "written just before the delete\n");
    fs::remove_file(&path).unwrap();
    append(&path, "b\n");
    assert_eq!(
        show(&tail.poll()),
        ["written just before the delete", "<reset: Recreated>", "b"]
    );
}

#[test]
fn a_vanished_file_is_missing_once_and_resumes_when_it_reappears() {
    let (_dir, path) = setup();
    let mut tail = Tailer::new(&path);
    append(&path, "a\n");
    tail.poll();
    fs::remove_file(&path).unwrap();
    assert_eq!(show(&tail.poll()), ["<missing>"]);
    assert!(tail.poll().is_empty(), "Missing is reported once");
    append(&path, "b\n");
    assert_eq!(show(&tail.poll()), ["<reset: Recreated>", "b"]);
}

#[test]
fn a_file_that_does_not_exist_yet_is_read_from_its_start_when_it_appears() {
    let (_dir, path) = setup();
    let mut tail = Tailer::new(&path);
    assert_eq!(show(&tail.poll()), ["<missing>"]);
    assert!(tail.poll().is_empty());
    append(&path, "first\n");
    assert_eq!(
        show(&tail.poll()),
        ["first"],
        "no Reset: nothing was read before"
    );
}

#[test]
fn a_tailer_started_at_a_1_gib_sparse_offset_reads_only_what_follows() {
    let (_dir, path) = setup();
    let gib = 1u64 << 30;
    File::create(&path).unwrap().set_len(gib).unwrap();
    append(&path, "the new line\n");
    // A budget far below 1 GiB: one poll must be enough, so the gap is never read.
    let mut tail = Tailer::from_offset(&path, gib).with_limits(small(4096, 64 << 10, 1 << 20));
    let events = tail.poll();
    assert_eq!(
        events,
        vec![TailEvent::Line {
            offset: gib,
            line_no: 1,
            bytes: b"the new line".to_vec()
        }]
    );
    assert!(!tail.is_behind());
}

#[test]
fn resuming_at_a_remembered_offset_reads_only_new_lines() {
    let (_dir, path) = setup();
    append(&path, "seen\nhalf");
    let mut first = Tailer::new(&path);
    assert_eq!(show(&first.poll()), ["seen"]);
    let mut resumed = Tailer::from_offset(&path, first.offset());
    append(&path, " done\n");
    assert_eq!(show(&resumed.poll()), ["half done"]);
}

#[test]
fn an_offset_past_the_end_counts_as_truncation() {
    let (_dir, path) = setup();
    append(&path, "short\n");
    let mut tail = Tailer::from_offset(&path, 1000);
    assert_eq!(show(&tail.poll()), ["<reset: Truncated>", "short"]);
}

#[test]
fn a_huge_backlog_is_consumed_in_bounded_steps() {
    let (_dir, path) = setup();
    let backlog: String = (0..1000).map(|i| format!("line {i:04}\n")).collect();
    append(&path, &backlog);
    let budget = 1000;
    let mut tail = Tailer::new(&path).with_limits(small(256, budget, 1 << 20));
    let mut seen = Vec::new();
    let mut polls = 0;
    loop {
        polls += 1;
        let events = tail.poll();
        let bytes: usize = show(&events).iter().map(|l| l.len() + 1).sum();
        assert!(bytes as u64 <= budget, "one poll read at most its budget");
        seen.extend(show(&events));
        if !tail.is_behind() {
            break;
        }
    }
    assert_eq!(polls, backlog.len().div_ceil(budget as usize));
    assert_eq!(seen.len(), 1000);
    assert_eq!(seen[999], "line 0999");
}
