//! `seed status` and `seed recovery`: fold a session's records through its sequence and show
//! the one status every face shows.

use std::path::Path;
use std::process::ExitCode;

use super::{CmdResult, sequence_search_dirs};
use crate::dialects;
use crate::engine::{Machine, Snapshot};
use crate::report;
use crate::store::record::Record;

/// Records of a JSONL file. Malformed lines are skipped and counted (a crash can leave one
/// incomplete last line; anything else is reported).
pub fn read_records(path: &Path) -> Result<(Vec<Record>, usize), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    Ok(parse_records(&bytes))
}

pub fn parse_records(bytes: &[u8]) -> (Vec<Record>, usize) {
    let mut records = Vec::new();
    let mut bad = 0;
    for line in bytes.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Record>(line) {
            Ok(r) => records.push(r),
            Err(_) => bad += 1,
        }
    }
    (records, bad)
}

/// Fold records through a machine from the start.
pub fn fold(machine: &Machine, records: &[Record]) -> Snapshot {
    machine.fold(records.iter().filter_map(Record::step))
}

pub fn run(args: crate::cli::StatusArgs, recovery: bool) -> CmdResult {
    let Some(events) = &args.events else {
        return Err("name a file of event records with --events FILE (session lookup needs the hook's state directory)".into());
    };
    let (records, bad) = read_records(events)?;
    if bad > 0 {
        eprintln!(
            "seed: skipped {bad} malformed line(s) in {}",
            events.display()
        );
    }
    let name = args
        .sequence
        .clone()
        .or_else(|| {
            records
                .iter()
                .rev()
                .find_map(|r| r.sequences.first().cloned())
        })
        .ok_or("no sequence: pass --sequence NAME (the records name none)")?;
    let loaded = dialects::resolve(&name, &sequence_search_dirs())?;
    let machine = Machine::new(loaded.chart);
    let snap = fold(&machine, &records);
    let status = machine.status(&snap);
    let out = match (recovery, args.json) {
        (false, false) => report::status_text(&status),
        (false, true) => serde_json::to_string_pretty(&report::status_json(&status))?,
        (true, false) => report::recovery_text(&status),
        (true, true) => serde_json::to_string_pretty(&report::recovery_json(&status))?,
    };
    println!("{}", out.trim_end());
    Ok(ExitCode::SUCCESS)
}
