//! The one reader of a session log (or any JSONL file of records) from disk: all at once,
//! streamed in chunks, or only its end. Each line is parsed by the store's one parser
//! ([`parse_records`]): malformed lines are skipped and counted the same way everywhere.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::store::record::{Record, parse_records};

/// Records of a JSONL file. Malformed lines are skipped and counted (a crash can leave one
/// incomplete last line; anything else is reported).
pub fn read_records(path: &Path) -> Result<(Vec<Record>, usize), String> {
    let cannot = |e: std::io::Error| format!("{}: cannot read: {e}", path.display());
    // A log or events file: regular files only (a FIFO would hang, a device never end), and
    // never through a symlink another user owns.
    let mut bytes = Vec::new();
    crate::store::paths::open_regular(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(cannot)?;
    Ok(parse_records(&bytes))
}

/// The records of a JSONL file, handed to `each` in order and then dropped: the file is read
/// in chunks of whole lines (each parsed on every core), so a million-record log costs one
/// chunk of memory, not all its records. Returns how many lines were malformed, counted as
/// `read_records` counts them.
pub fn stream_records(path: &Path, each: impl FnMut(Record)) -> Result<usize, String> {
    // Small enough that the records of one chunk stay a few MiB, large enough that reading
    // costs few calls.
    stream_in_chunks(path, 2 << 20, each)
}

fn stream_in_chunks(
    path: &Path,
    chunk: usize,
    mut each: impl FnMut(Record),
) -> Result<usize, String> {
    let cannot = |e: std::io::Error| format!("{}: cannot read: {e}", path.display());
    let mut f = crate::store::paths::open_regular(path).map_err(cannot)?;
    let mut buf: Vec<u8> = Vec::with_capacity(chunk);
    let mut bad = 0;
    loop {
        let start = buf.len();
        buf.resize(start + chunk, 0);
        let n = f.read(&mut buf[start..]).map_err(cannot)?;
        buf.truncate(start + n);
        // At the end of the file the rest is the last line, whole or torn.
        let cut = if n == 0 {
            buf.len()
        } else {
            match memchr::memrchr(b'\n', &buf) {
                Some(i) => i + 1,
                None => continue,
            }
        };
        let (records, b) = parse_records(&buf[..cut]);
        bad += b;
        records.into_iter().for_each(&mut each);
        buf.drain(..cut);
        if n == 0 {
            return Ok(bad);
        }
    }
}

/// How much of a log's end is read to find its newest records.
pub const TAIL_BYTES: u64 = 256 * 1024;

/// The newest whole records within the last `max` bytes of a log (oldest first); malformed
/// lines and a line cut by the window are skipped. Unreadable logs have none.
pub fn tail_records(log: &Path, max: u64) -> Vec<Record> {
    let read = || -> std::io::Result<Vec<u8>> {
        let mut f = std::fs::File::open(log)?;
        let len = f.metadata()?.len();
        let from = len.saturating_sub(max);
        f.seek(SeekFrom::Start(from))?;
        let mut bytes = Vec::new();
        f.take(max).read_to_end(&mut bytes)?;
        if from > 0 {
            // The first line may have started before the window.
            let cut = memchr::memchr(b'\n', &bytes).map_or(bytes.len(), |i| i + 1);
            bytes.drain(..cut);
        }
        Ok(bytes)
    };
    read().map(|b| parse_records(&b).0).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_gives_the_records_reading_all_gives() {
        // Lines cut by every chunk boundary, CRLF, blank and malformed lines, a line longer
        // than a chunk, and a torn last line without a newline.
        let mut text = String::new();
        for i in 0..40 {
            let pad = "x".repeat(i * 7);
            text.push_str(&format!(
                "{{\"v\":1,\"hook\":\"PostToolUse\",\"phase\":\"advance\",\"event\":{{\"kind\":\"tool\",\"name\":\"t{i}\",\"input\":{{\"p\":\"{pad}\"}}}}}}{}",
                if i % 5 == 0 { "\r\n" } else { "\n" }
            ));
            if i % 9 == 0 {
                text.push_str("\n   \nnot json\n");
            }
        }
        text.push_str("{\"v\":1,\"hook\":\"Stop\",\"phase\":\"st");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, &text).unwrap();
        let (all, bad_all) = read_records(&path).unwrap();
        assert_eq!((all.len(), bad_all), (40, 6));
        for chunk in [1, 3, 64, 100, 1 << 20] {
            let mut seen = Vec::new();
            let bad = stream_in_chunks(&path, chunk, |r| seen.push(r)).unwrap();
            assert_eq!(bad, bad_all, "chunk {chunk}");
            assert_eq!(
                serde_json::to_value(&seen).unwrap(),
                serde_json::to_value(&all).unwrap(),
                "chunk {chunk}"
            );
        }
        let empty = dir.path().join("empty.jsonl");
        std::fs::write(&empty, "").unwrap();
        assert_eq!(stream_records(&empty, |_| panic!("no record")), Ok(0));
        assert!(stream_records(&dir.path().join("missing"), |_| {}).is_err());
    }

    #[test]
    fn the_tail_is_whole_records_only() {
        let t = tempfile::tempdir().unwrap();
        let log = t.path().join("log.jsonl");
        let line = |i: usize| format!("{{\"session\":\"s\",\"hook\":\"H{i}\"}}\n");
        let all: String = (0..100).map(line).collect();
        std::fs::write(&log, &all).unwrap();
        let tail = tail_records(&log, (line(99).len() * 3 + 5) as u64);
        let hooks: Vec<&str> = tail.iter().map(|r| r.hook.as_str()).collect();
        assert_eq!(hooks, ["H97", "H98", "H99"]);
        assert_eq!(tail_records(&log, 1 << 20).len(), 100);
        assert!(tail_records(&t.path().join("missing"), 10).is_empty());
        std::fs::write(&log, b"\xff\xfe garbage\n{\"hook\":\"ok\"}\n").unwrap();
        assert_eq!(tail_records(&log, 1 << 20).len(), 1);
        std::fs::write(&log, b"").unwrap();
        assert!(tail_records(&log, 1 << 20).is_empty());
        // One record longer than the window: cut, so not read at all.
        let huge = format!("{{\"hook\":\"{}\"}}\n", "x".repeat(10_000));
        std::fs::write(&log, &huge).unwrap();
        assert!(tail_records(&log, 1_000).is_empty());
    }
}
