//! Follows an append-only JSONL file as a synchronous state machine that tests drive directly.
//!
//! Per path it keeps the file identity `(dev, inode)`, the byte offset of the first line not yet
//! emitted, and the bytes of a partial last line. Each [`Tailer::poll`] reads what was appended
//! (bounded per call, so a huge backlog is consumed in steps and the UI stays live) and reports
//! complete lines only: a line is emitted when its `\n` arrives, never before. Truncation,
//! rotation (rename + new file, delete + recreate, atomic replace) and a vanished file are
//! detected and reported. notify wake-ups ([`super::watch`]) only say "poll now".

use std::fs::{self, File, Metadata};
use std::io::{self, Read, Seek, SeekFrom};
use std::mem;
use std::path::{Path, PathBuf};

mod records;

pub use records::{RecordEvent, parse_record_line};

/// Read sizes and caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailLimits {
    /// Bytes per read call.
    pub chunk: usize,
    /// Bytes read per [`Tailer::poll`] at most; the rest waits for the next poll.
    pub poll_budget: u64,
    /// Longest line kept; a longer one is reported as [`TailEvent::TooLong`] and skipped.
    pub max_line: usize,
}

impl Default for TailLimits {
    fn default() -> Self {
        TailLimits {
            chunk: 1 << 20,
            poll_budget: 16 << 20,
            max_line: 64 << 20,
        }
    }
}

/// What a poll found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TailEvent {
    /// One complete line, without its `\n` (and without a trailing `\r`).
    Line {
        /// Byte offset of the line's first byte in the file.
        offset: u64,
        /// 1-based line number counted from where the tailer started (or last reset).
        line_no: u64,
        bytes: Vec<u8>,
    },
    /// A line longer than [`TailLimits::max_line`]; its bytes are dropped up to the next `\n`.
    TooLong {
        offset: u64,
        line_no: u64,
        /// Bytes seen when the limit was passed.
        len: u64,
    },
    /// Reading restarts at offset 0 of the file now at the path; earlier lines may be stale.
    Reset { reason: ResetReason },
    /// The path does not exist (reported once until it reappears).
    Missing,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResetReason {
    /// The file shrank below what was already read (`: > log`, copytruncate).
    Truncated,
    /// The path now names another file and the old one still exists (rename, atomic replace).
    Rotated,
    /// The old file was deleted and a new one created at the path.
    Recreated,
}

/// Identity of a file: `(device, inode)` on Unix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
}

#[cfg(unix)]
fn file_id(meta: &Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    FileId {
        dev: meta.dev(),
        ino: meta.ino(),
    }
}

/// Without inodes, the creation time is the best cheap identity: a replacement file gets a new
/// one where the platform records it; truncation is still caught by the length check.
#[cfg(not(unix))]
fn file_id(meta: &Metadata) -> FileId {
    let created = meta
        .created()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    FileId {
        dev: 0,
        ino: created,
    }
}

/// A deleted file that we still hold open has no links left; a renamed one does.
#[cfg(unix)]
fn is_unlinked(file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    file.metadata().is_ok_and(|m| m.nlink() == 0)
}

#[cfg(not(unix))]
fn is_unlinked(_file: &File) -> bool {
    false
}

#[derive(Debug)]
pub struct Tailer {
    path: PathBuf,
    limits: TailLimits,
    /// Kept open after the path vanishes or is replaced, so lines written just before are read.
    file: Option<File>,
    id: Option<FileId>,
    /// Where the first file opened is read from; later files start at 0.
    start: u64,
    /// Next byte to read.
    read_pos: u64,
    /// Offset of the first line not yet emitted (the resume point).
    line_start: u64,
    pending: Vec<u8>,
    /// The current line passed `max_line`: drop its bytes until the next `\n`.
    skipping: bool,
    line_no: u64,
    missing: bool,
    behind: bool,
    buf: Vec<u8>,
    last_error: Option<io::Error>,
}

impl Tailer {
    /// Follows `path` from its first byte (replay, or a session seen for the first time).
    pub fn new(path: impl Into<PathBuf>) -> Tailer {
        Tailer::from_offset(path, 0)
    }

    /// Follows `path` from `offset`, which must be the start of a line (a remembered resume
    /// point). An offset past the end of the file is treated as a truncation.
    pub fn from_offset(path: impl Into<PathBuf>, offset: u64) -> Tailer {
        Tailer {
            path: path.into(),
            limits: TailLimits::default(),
            file: None,
            id: None,
            start: offset,
            read_pos: offset,
            line_start: offset,
            pending: Vec::new(),
            skipping: false,
            line_no: 0,
            missing: false,
            behind: false,
            buf: Vec::new(),
            last_error: None,
        }
    }

    pub fn with_limits(mut self, limits: TailLimits) -> Tailer {
        self.limits = TailLimits {
            chunk: limits.chunk.max(1),
            poll_budget: limits.poll_budget.max(1),
            max_line: limits.max_line,
        };
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Start of the first line not yet emitted: persist it with [`Tailer::identity`] to resume.
    pub fn offset(&self) -> u64 {
        self.line_start
    }

    /// Identity of the file being read, once one was opened.
    pub fn identity(&self) -> Option<FileId> {
        self.id
    }

    /// Lines emitted (or skipped as too long) since the start or the last reset.
    pub fn line_no(&self) -> u64 {
        self.line_no
    }

    /// The last poll stopped at its byte budget with more to read: poll again soon.
    pub fn is_behind(&self) -> bool {
        self.behind
    }

    /// The I/O error that cut the last poll short, if any (the next poll retries).
    pub fn take_error(&mut self) -> Option<io::Error> {
        self.last_error.take()
    }

    /// Reads what is new and reports it, in file order.
    pub fn poll(&mut self) -> Vec<TailEvent> {
        let mut out = Vec::new();
        let mut budget = self.limits.poll_budget;
        self.behind = false;
        if let Err(e) = self.step(&mut out, &mut budget) {
            self.last_error = Some(e);
        }
        out
    }

    fn step(&mut self, out: &mut Vec<TailEvent>, budget: &mut u64) -> io::Result<()> {
        let meta = match fs::metadata(&self.path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return self.on_missing(out, budget),
            Err(e) => return Err(e),
        };
        // Once a file was read, any file opened later restarts at 0 behind a Reset.
        let mut reason = ResetReason::Recreated;
        if self.file.is_some() && self.id != Some(file_id(&meta)) {
            // Lines written to the old file just before it was replaced come first.
            if !self.read_to_eof(out, budget)? {
                self.behind = true;
                return Ok(());
            }
            let gone = self.missing || self.file.as_ref().is_some_and(is_unlinked);
            reason = if gone {
                ResetReason::Recreated
            } else {
                ResetReason::Rotated
            };
            self.file = None;
        }
        if self.file.is_none() {
            let reopened = self.id.is_some();
            if !self.open(out)? {
                return Ok(());
            }
            if reopened {
                out.push(TailEvent::Reset { reason });
            }
        }
        self.missing = false;

        let len = match &self.file {
            Some(file) => file.metadata()?.len(),
            None => return Ok(()),
        };
        if len < self.read_pos {
            self.restart_at(0);
            out.push(TailEvent::Reset {
                reason: ResetReason::Truncated,
            });
        }
        if !self.read_to_eof(out, budget)? {
            self.behind = true;
        }
        Ok(())
    }

    /// Opens the file at the path; the first file opened starts at `start`, any later one at 0.
    /// Returns false (after reporting `Missing`) when it vanished in between.
    fn open(&mut self, out: &mut Vec<TailEvent>) -> io::Result<bool> {
        let file = match File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.report_missing(out);
                return Ok(false);
            }
            Err(e) => return Err(e),
        };
        // Identity from the handle, not the earlier stat: the path may have changed in between.
        let id = file_id(&file.metadata()?);
        let first = self.id.is_none();
        self.restart_at(if first { self.start } else { 0 });
        self.file = Some(file);
        self.id = Some(id);
        Ok(true)
    }

    fn on_missing(&mut self, out: &mut Vec<TailEvent>, budget: &mut u64) -> io::Result<()> {
        if self.file.is_some() && !self.read_to_eof(out, budget)? {
            self.behind = true;
            return Ok(());
        }
        self.report_missing(out);
        Ok(())
    }

    fn report_missing(&mut self, out: &mut Vec<TailEvent>) {
        if !self.missing {
            self.missing = true;
            out.push(TailEvent::Missing);
        }
    }

    fn restart_at(&mut self, offset: u64) {
        self.read_pos = offset;
        self.line_start = offset;
        self.pending.clear();
        self.skipping = false;
        self.line_no = 0;
    }

    /// Reads the open file to its end within the budget; true when the end was reached.
    fn read_to_eof(&mut self, out: &mut Vec<TailEvent>, budget: &mut u64) -> io::Result<bool> {
        loop {
            if *budget == 0 {
                // Spent exactly at the end is caught up, not behind.
                let len = match &self.file {
                    Some(file) => file.metadata()?.len(),
                    None => 0,
                };
                return Ok(self.read_pos >= len);
            }
            let want = (self.limits.chunk as u64).min(*budget) as usize;
            let mut buf = mem::take(&mut self.buf);
            buf.resize(want, 0);
            let n = match &self.file {
                Some(file) => {
                    let mut reader: &File = file;
                    reader.seek(SeekFrom::Start(self.read_pos))?;
                    reader.read(&mut buf)?
                }
                None => 0,
            };
            if n == 0 {
                self.buf = buf;
                return Ok(true);
            }
            *budget = budget.saturating_sub(n as u64);
            self.consume(&buf[..n], out);
            self.buf = buf;
            self.read_pos += n as u64;
        }
    }

    /// Splits freshly read bytes (which start at `read_pos`) into lines.
    fn consume(&mut self, data: &[u8], out: &mut Vec<TailEvent>) {
        let mut start = 0;
        while let Some(rel) = data[start..].iter().position(|&b| b == b'\n') {
            let end = start + rel;
            self.finish_line(&data[start..end], out);
            start = end + 1;
            self.line_start = self.read_pos + start as u64;
        }
        let rest = &data[start..];
        if self.skipping || rest.is_empty() {
            return;
        }
        let len = self.pending.len() + rest.len();
        if len > self.limits.max_line {
            out.push(TailEvent::TooLong {
                offset: self.line_start,
                line_no: self.line_no + 1,
                len: len as u64,
            });
            self.pending = Vec::new();
            self.skipping = true;
        } else {
            self.pending.extend_from_slice(rest);
        }
    }

    fn finish_line(&mut self, tail: &[u8], out: &mut Vec<TailEvent>) {
        self.line_no += 1;
        if self.skipping {
            // Already reported as TooLong when it passed the limit.
            self.skipping = false;
            return;
        }
        let len = self.pending.len() + tail.len();
        if len > self.limits.max_line {
            out.push(TailEvent::TooLong {
                offset: self.line_start,
                line_no: self.line_no,
                len: len as u64,
            });
            self.pending.clear();
            return;
        }
        let mut bytes = mem::take(&mut self.pending);
        bytes.extend_from_slice(tail);
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        out.push(TailEvent::Line {
            offset: self.line_start,
            line_no: self.line_no,
            bytes,
        });
    }
}
