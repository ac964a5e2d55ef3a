//! `seed status` and `seed recovery`: fold a session's records through its sequence and show
//! the one status every face shows.

use std::process::ExitCode;
use std::time::SystemTime;

use super::CmdResult;
use crate::engine::Status;
use crate::report;
use crate::report::sanitize;
use crate::session::now::{self, Items, Moved};
use crate::store::failures::Tally;

/// A status, with what the files moved and every item's lifecycle (`session::now`), and the
/// line saying its deep state cannot apply here (seed 000's readers, `HEAVEN_DATA_DIR` unset).
type Shown<'a> = (Status, Option<&'a Moved>, Option<&'a Items>, Option<String>);
use crate::store::paths;
use crate::store::sessions::{self, SessionInfo};

fn deep_state_notice(m: &crate::engine::Machine) -> Option<String> {
    report::deep_state::unset_notice(&m.chart, &|k| std::env::var(k).ok())
}

pub fn run(args: crate::cli::StatusArgs, recovery: bool) -> CmdResult {
    // Errors quote sequence files and paths: cleaned like the rest of the output.
    run_checked(args, recovery).map_err(|e| sanitize::terminal(&e.to_string()).into())
}

fn run_checked(args: crate::cli::StatusArgs, recovery: bool) -> CmdResult {
    let Some(events) = &args.events else {
        return run_session(&args, recovery);
    };
    let v = crate::session::view::load_view(
        &crate::session::view::Source::Events(events),
        args.sequence.as_deref(),
        None,
    )?;
    if let Some(n) = v.skipped.notice() {
        eprintln!("{n}");
    }
    print_statuses(
        &[(
            v.machine.status(&v.snap),
            None,
            None,
            deep_state_notice(&v.machine),
        )],
        None,
        &v.failures,
        recovery,
        args.json,
    )
}

/// One status per sequence; several sequences print one after the other (a JSON array). A
/// session's view starts with which session it is (`report::session`).
fn print_statuses(
    statuses: &[Shown<'_>],
    session: Option<&SessionInfo>,
    failures: &Tally,
    recovery: bool,
    json: bool,
) -> CmdResult {
    let shown = session.map(described);
    let render = |(st, moved, items, notice): &Shown<'_>| -> serde_json::Value {
        let mut v = if recovery {
            report::recovery_json(st)
        } else {
            report::status_json(st)
        };
        now::mark(*moved, *items, String::new(), &mut v);
        if let Some(d) = &shown {
            v["session"] = d.json.clone();
        }
        if !recovery {
            v["hook_failures"] = report::failures_json(failures);
        }
        if let Some(n) = notice {
            v["deep_state_notice"] = n.clone().into();
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
            .map(|(st, moved, items, notice)| {
                let t = if recovery {
                    report::recovery_text(st)
                } else {
                    report::status_text(st)
                };
                let t = now::mark(*moved, *items, t, &mut serde_json::Value::Null);
                match notice {
                    Some(n) => format!("{}\n{n}", t.trim_end()),
                    None => t.trim_end().to_string(),
                }
            })
            .collect();
        let mut body = texts.join("\n\n");
        if !recovery {
            // Once per session, however many sequences it steps.
            body = report::with_failures(&body, failures);
        }
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
    let pick = crate::session::choice::Pick::from_env(args.session.as_deref());
    let views = crate::session::view::session_views(&state, &pick, args.sequence.as_deref())?;
    // One notice for the log, however many sequences it was stepped through.
    if let Some(n) = views.first().and_then(|v| v.skipped.notice()) {
        eprintln!("{n}");
    }
    let statuses: Vec<Shown<'_>> = views
        .iter()
        .map(|v| {
            (
                v.machine.status(&v.snap),
                v.moved.as_ref(),
                v.items.as_ref(),
                deep_state_notice(&v.machine),
            )
        })
        .collect();
    let session = views.first().and_then(|v| v.session.as_ref());
    let failures = views.first().map(|v| v.failures).unwrap_or_default();
    print_statuses(&statuses, session, &failures, recovery, args.json)
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
    let here = crate::session::choice::project_dir();
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
