//! The per-session append-only JSONL log. Each record is one line written with one `write`
//! while an exclusive lock is held; the hook keeps that lock from reading the snapshot to
//! saving it, so the order of lines is the order of steps (`fold(log) == snapshot`) even with
//! many hooks at once. A crash can leave at most one incomplete last line: readers skip it and
//! the next writer cuts it off before appending.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::paths;
use super::record::Record;

/// A session log opened for appending and locked exclusively until dropped.
#[derive(Debug)]
pub struct LockedLog {
    file: File,
    path: PathBuf,
    len: u64,
    /// Bytes of an incomplete last line cut off when the lock was taken.
    pub repaired: u64,
}

impl LockedLog {
    /// Open (creating it 0600), take the exclusive lock (waiting for other hooks), and repair
    /// an incomplete last line left by a crashed writer.
    pub fn open(path: &Path) -> io::Result<LockedLog> {
        let file = paths::open_append(path)?;
        file.lock().map_err(|e| {
            io::Error::new(e.kind(), format!("cannot lock {}: {e}", path.display()))
        })?;
        let (len, repaired) = repair_tail(&file)?;
        Ok(LockedLog {
            file,
            path: path.to_path_buf(),
            len,
            repaired,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Length in bytes: always the end of a complete line.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Append one record as one line. On a failed write (disk full…) the file is cut back to
    /// where it was, so no partial line is left behind.
    pub fn append(&mut self, record: &Record) -> io::Result<()> {
        let line = encode(record)?;
        self.append_bytes(&line)
    }

    pub fn append_bytes(&mut self, line: &[u8]) -> io::Result<()> {
        match append_line(&mut self.file, line) {
            Ok(()) => {
                self.len += line.len() as u64;
                Ok(())
            }
            Err(e) => {
                let _ = self.file.set_len(self.len);
                Err(io::Error::new(
                    e.kind(),
                    format!("cannot append to {}: {e}", self.path.display()),
                ))
            }
        }
    }

    /// The whole log as it is now (the lock keeps it still).
    pub fn read_all(&self) -> io::Result<Vec<u8>> {
        self.read_range(0, self.len)
    }

    /// Bytes `from..to` of the log (clamped to its length).
    pub fn read_range(&self, from: u64, to: u64) -> io::Result<Vec<u8>> {
        let to = to.min(self.len);
        let from = from.min(to);
        let mut f = &self.file;
        f.seek(SeekFrom::Start(from))?;
        let mut buf = Vec::with_capacity((to - from) as usize);
        f.take(to - from).read_to_end(&mut buf)?;
        Ok(buf)
    }
}

/// One record as one JSON line (with its `\n`).
pub fn encode(record: &Record) -> io::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
    line.push(b'\n');
    Ok(line)
}

/// Write `line` (which ends in `\n`) with a single `write_all`: the unit the tests exercise
/// with failing writers.
pub fn append_line<W: Write>(w: &mut W, line: &[u8]) -> io::Result<()> {
    w.write_all(line)?;
    w.flush()
}

/// Cut an incomplete last line (no trailing `\n`) off the file. Returns the new length and the
/// number of bytes removed.
pub fn repair_tail(file: &File) -> io::Result<(u64, u64)> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok((0, 0));
    }
    let mut f = file;
    let mut last = [0u8; 1];
    f.seek(SeekFrom::Start(len - 1))?;
    if f.read(&mut last)? == 1 && last[0] == b'\n' {
        return Ok((len, 0));
    }
    // Scan backwards for the last newline.
    const CHUNK: u64 = 64 * 1024;
    let mut end = len;
    let mut buf = vec![0u8; CHUNK as usize];
    let keep = loop {
        if end == 0 {
            break 0;
        }
        let start = end.saturating_sub(CHUNK);
        let n = (end - start) as usize;
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(&mut buf[..n])?;
        if let Some(p) = memchr::memrchr(b'\n', &buf[..n]) {
            break start + p as u64 + 1;
        }
        end = start;
    };
    file.set_len(keep)?;
    Ok((keep, len - keep))
}

/// Append one record to a log that is not held open (the errors log): open, lock, repair,
/// write, unlock.
pub fn append_once(path: &Path, record: &Record) -> io::Result<()> {
    let mut log = LockedLog::open(path)?;
    log.append(record)
}

/// Complete lines in a log's bytes.
pub fn count_lines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A disk that fills up after `room` bytes.
    struct FullAfter {
        room: usize,
        written: Vec<u8>,
    }

    impl Write for FullAfter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::Error::from(io::ErrorKind::StorageFull));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            self.written.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn full_disk_is_an_error_not_a_silent_loss() {
        let mut w = FullAfter {
            room: 5,
            written: Vec::new(),
        };
        let e = append_line(&mut w, b"{\"v\":1}\n").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        assert_eq!(w.written, b"{\"v\":");
    }

    #[test]
    fn torn_tail_is_cut_by_the_next_writer() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("log.jsonl");
        std::fs::write(&p, b"{\"a\":1}\n{\"b\":").unwrap();
        let mut log = LockedLog::open(&p).unwrap();
        assert_eq!(log.repaired, 5);
        assert_eq!(log.len(), 8);
        log.append(&Record::new("t", "s", "Stop")).unwrap();
        drop(log);
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(count_lines(&bytes), 2);
        assert!(bytes.ends_with(b"\n"));
        // A file that is one long partial line is emptied.
        std::fs::write(&p, vec![b'x'; 200_000]).unwrap();
        let log = LockedLog::open(&p).unwrap();
        assert_eq!((log.len(), log.repaired), (0, 200_000));
    }
}
