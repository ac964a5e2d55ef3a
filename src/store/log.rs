//! The per-session append-only JSONL log. Each record is one line written with one `write`
//! while an exclusive lock is held; the hook keeps that lock from reading the snapshot to
//! saving it, so the order of lines is the order of steps (`fold(log) == snapshot`) even with
//! many hooks at once. A crash can leave at most one incomplete last line: readers skip it and
//! the next writer cuts it off before appending.

use std::fs::{File, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

/// How long a hook waits for another to release a log's lock by default: far longer than a
/// hook holds it (a millisecond, a few seconds to fold a million records again), far shorter
/// than Claude Code's 30 s timeout, after which the call would go through whatever the fail
/// mode says.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Take `file`'s exclusive lock, waiting at most `wait` for whoever holds it. Past that, an
/// error of one line naming `path`.
pub fn lock_within(file: &File, path: &Path, wait: Duration) -> io::Result<()> {
    let start = Instant::now();
    let mut pause = Duration::from_micros(50);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot lock {}: {e}", path.display()),
                ));
            }
        }
        let waited = start.elapsed();
        if waited >= wait {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "cannot lock {}: another process held it for {:.1} s; gave up",
                    path.display(),
                    wait.as_secs_f64()
                ),
            ));
        }
        std::thread::sleep(pause.min(wait - waited));
        pause = (pause * 2).min(Duration::from_millis(5));
    }
}

impl LockedLog {
    /// Open (creating it 0600), take the exclusive lock (waiting up to [`LOCK_WAIT`] for
    /// other hooks), and repair an incomplete last line left by a crashed writer.
    pub fn open(path: &Path) -> io::Result<LockedLog> {
        LockedLog::open_within(path, LOCK_WAIT)
    }

    /// [`LockedLog::open`], waiting at most `wait` for the lock.
    pub fn open_within(path: &Path, wait: Duration) -> io::Result<LockedLog> {
        let file = paths::open_append(path)?;
        lock_within(&file, path, wait)?;
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

    /// Another handle on the locked file, which shares its lock: for a failure record this
    /// process must append while the lock is held (a hook cut by its deadline).
    pub fn share(&self) -> Option<File> {
        self.file.try_clone().ok()
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
    append_once_within(path, record, LOCK_WAIT)
}

/// [`append_once`], waiting at most `wait` for the lock.
pub fn append_once_within(path: &Path, record: &Record, wait: Duration) -> io::Result<()> {
    let mut log = LockedLog::open_within(path, wait)?;
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

    /// A lock held elsewhere is waited for, but not forever: the error names the log.
    #[test]
    fn a_held_lock_is_waited_for_a_bounded_time() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("log.jsonl");
        let holder = LockedLog::open(&p).unwrap();
        let t0 = Instant::now();
        let e = LockedLog::open_within(&p, Duration::from_millis(200)).unwrap_err();
        let waited = t0.elapsed();
        assert!(waited >= Duration::from_millis(200), "{waited:?}");
        assert!(waited < Duration::from_secs(5), "{waited:?}");
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert!(e.to_string().contains("log.jsonl"), "{e}");
        assert!(!e.to_string().contains('\n'));
        // Released within the wait: taken.
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(holder);
        });
        let mut log = LockedLog::open_within(&p, Duration::from_secs(5)).unwrap();
        log.append(&Record::new("t", "s", "Stop")).unwrap();
        releaser.join().unwrap();
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
