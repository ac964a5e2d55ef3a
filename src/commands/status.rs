//! `seed status` and `seed recovery`: fold a session's records through its sequence and show
//! the one status every face shows.

use std::path::Path;
use std::process::ExitCode;
use std::time::SystemTime;

use super::CmdResult;
use crate::engine::{Machine, Snapshot, Status};
use crate::report;
use crate::report::sanitize;
use crate::store::paths;
use crate::store::record::Record;
use crate::store::sessions::{self, SessionInfo};

/// Records of a JSONL file. Malformed lines are skipped and counted (a crash can leave one
/// incomplete last line; anything else is reported).
pub fn read_records(path: &Path) -> Result<(Vec<Record>, usize), String> {
    use std::io::Read;
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
    use std::io::Read;
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

pub fn parse_records(bytes: &[u8]) -> (Vec<Record>, usize) {
    crate::store::snapshot::parse_records(bytes)
}

/// Fold records through a machine from the start.
pub fn fold(machine: &Machine, records: &[Record]) -> Snapshot {
    machine.fold(records.iter().filter_map(Record::step))
}

pub fn run(args: crate::cli::StatusArgs, recovery: bool) -> CmdResult {
    // Errors quote sequence files and paths: cleaned like the rest of the output.
    run_checked(args, recovery).map_err(|e| sanitize::terminal(&e.to_string()).into())
}

fn run_checked(args: crate::cli::StatusArgs, recovery: bool) -> CmdResult {
    let Some(events) = &args.events else {
        return run_session(&args, recovery);
    };
    let v = super::view::load_view(
        &super::view::Source::Events(events),
        args.sequence.as_deref(),
        None,
    )?;
    if let Some(n) = v.skipped.notice() {
        eprintln!("{n}");
    }
    print_statuses(&[v.machine.status(&v.snap)], None, recovery, args.json)
}

/// One status per sequence; several sequences print one after the other (a JSON array). A
/// session's view starts with which session it is (`report::session`).
fn print_statuses(
    statuses: &[Status],
    session: Option<&SessionInfo>,
    recovery: bool,
    json: bool,
) -> CmdResult {
    let shown = session.map(described);
    let render = |st: &Status| -> serde_json::Value {
        let mut v = if recovery {
            report::recovery_json(st)
        } else {
            report::status_json(st)
        };
        if let Some(d) = &shown {
            v["session"] = d.json.clone();
        }
        v
    };
    let out = if json {
        match statuses {
            [one] => serde_json::to_string_pretty(&render(one))?,
            many => serde_json::to_string_pretty(&many.iter().map(render).collect::<Vec<_>>())?,
        }
    } else {
        let texts: Vec<String> = statuses
            .iter()
            .map(|st| {
                let t = if recovery {
                    report::recovery_text(st)
                } else {
                    report::status_text(st)
                };
                t.trim_end().to_string()
            })
            .collect();
        let body = texts.join("\n\n");
        let text = match &shown {
            Some(d) => format!("{}\n\n{body}", d.text),
            None => body,
        };
        // Names, labels, tools and reasons come from sequence files and logs.
        sanitize::terminal(&text)
    };
    outln!("{}", out.trim_end())?;
    Ok(ExitCode::SUCCESS)
}

/// `--session ID`, else the calling Claude Code session, else the most recent one.
fn run_session(args: &crate::cli::StatusArgs, recovery: bool) -> CmdResult {
    let state = paths::state_dir()?;
    let pick = super::session_choice::Pick::from_env(args.session.as_deref());
    let views = super::view::session_views(&state, &pick, args.sequence.as_deref())?;
    // One notice for the log, however many sequences it was stepped through.
    if let Some(n) = views.first().and_then(|v| v.skipped.notice()) {
        eprintln!("{n}");
    }
    let statuses: Vec<Status> = views.iter().map(|v| v.machine.status(&v.snap)).collect();
    let session = views.first().and_then(|v| v.session.as_ref());
    print_statuses(&statuses, session, recovery, args.json)
}

/// Which session is shown, as text and as JSON.
struct Described {
    text: String,
    json: serde_json::Value,
}

/// The session's id, project and age, and whether it ran elsewhere than the user's directory.
fn described(info: &SessionInfo) -> Described {
    let now = SystemTime::now();
    let started: Option<jiff::Timestamp> = info.started.as_deref().and_then(|s| s.parse().ok());
    let secs_since = |t: SystemTime| now.duration_since(t).ok().map(|d| d.as_secs() as i64);
    let here = super::session_choice::project_dir();
    let elsewhere = match (&info.cwd, &here) {
        (Some(cwd), Some(here)) if !sessions::belongs(cwd, here) => {
            Some(here.display().to_string())
        }
        _ => None,
    };
    let shown = report::session::Shown {
        id: &info.id,
        project: info.cwd.as_deref(),
        started_ago: started.and_then(|t| secs_since(SystemTime::from(t))),
        last_event_ago: info.modified.and_then(secs_since),
        elsewhere_than: elsewhere.as_deref(),
    };
    let last_event = info
        .modified
        .and_then(|m| jiff::Timestamp::try_from(m).ok())
        .map(|t| t.to_string());
    Described {
        text: report::session::header(&shown),
        json: serde_json::json!({
            "id": info.id,
            "project": info.cwd,
            "started": started.map(|t| t.to_string()),
            "last_event": last_event,
            "elsewhere": elsewhere.is_some(),
        }),
    }
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
}
