//! `seed status` and `seed recovery`: fold a session's records through its sequence and show
//! the one status every face shows.

use std::path::Path;
use std::process::ExitCode;

use super::{CmdResult, sequence_search_dirs};
use crate::dialects;
use crate::engine::{Machine, Snapshot, Status};
use crate::report;
use crate::store::record::Record;
use crate::store::{paths, sessions, snapshot};

/// Records of a JSONL file. Malformed lines are skipped and counted (a crash can leave one
/// incomplete last line; anything else is reported).
pub fn read_records(path: &Path) -> Result<(Vec<Record>, usize), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    Ok(parse_records(&bytes))
}

pub fn parse_records(bytes: &[u8]) -> (Vec<Record>, usize) {
    crate::store::snapshot::parse_records(bytes)
}

/// Fold records through a machine from the start.
pub fn fold(machine: &Machine, records: &[Record]) -> Snapshot {
    machine.fold(records.iter().filter_map(Record::step))
}

pub fn run(args: crate::cli::StatusArgs, recovery: bool) -> CmdResult {
    let Some(events) = &args.events else {
        return run_session(&args, recovery);
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
    print_statuses(&[machine.status(&snap)], recovery, args.json)
}

/// One status per sequence; several sequences print one after the other (a JSON array).
fn print_statuses(statuses: &[Status], recovery: bool, json: bool) -> CmdResult {
    let render = |st: &Status| -> serde_json::Value {
        if recovery {
            report::recovery_json(st)
        } else {
            report::status_json(st)
        }
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
        texts.join("\n\n")
    };
    println!("{}", out.trim_end());
    Ok(ExitCode::SUCCESS)
}

/// `--session ID` (default: the most recent session in the state directory): each sequence
/// the hook stepped, from its saved snapshot when that is current, else folded from the log.
fn run_session(args: &crate::cli::StatusArgs, recovery: bool) -> CmdResult {
    let state = paths::state_dir()?;
    let info = match &args.session {
        Some(id) => sessions::find(&state, id)?
            .ok_or_else(|| format!("no session `{id}` in {}", state.display()))?,
        None => sessions::latest(&state)?.ok_or_else(|| {
            format!(
                "no sessions in {} yet (pass --events FILE, or install the hook)",
                state.display()
            )
        })?,
    };
    let log_len = std::fs::metadata(&info.log)?.len();
    let mut records: Option<Vec<Record>> = None;
    let mut load_records = || -> Result<Vec<Record>, String> {
        if records.is_none() {
            let (r, bad) = read_records(&info.log)?;
            if bad > 0 {
                eprintln!(
                    "seed: skipped {bad} malformed line(s) in {}",
                    info.log.display()
                );
            }
            records = Some(r);
        }
        Ok(records.clone().unwrap_or_default())
    };
    let mut statuses = Vec::new();
    if let Some(name) = &args.sequence {
        let machine = Machine::new(dialects::resolve(name, &sequence_search_dirs())?.chart);
        statuses.push(machine.status(&fold(&machine, &load_records()?)));
    } else {
        for name in &info.sequences {
            let chart =
                match snapshot::load_chart(&info.dir.join("charts").join(format!("{name}.json"))) {
                    Some(c) => c,
                    None => dialects::resolve(name, &sequence_search_dirs())?.chart,
                };
            let machine = Machine::new(chart);
            let saved = snapshot::load(&info.dir.join("snapshots").join(format!("{name}.json")));
            let snap = match saved {
                Some(s) if s.is_fresh(&machine, log_len) => s.snapshot,
                _ => fold(&machine, &load_records()?),
            };
            statuses.push(machine.status(&snap));
        }
    }
    if statuses.is_empty() {
        return Err(format!("session {} has no sequence: pass --sequence NAME", info.id).into());
    }
    print_statuses(&statuses, recovery, args.json)
}
