//! `seed hook`: read one payload on stdin, answer on stdout. Never blocks the agent because
//! seed itself failed, unless the user chose fail-closed; never exits 2, not even for
//! arguments it cannot use (clap's usage errors exit 2, which Claude Code reads as a block).

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use crate::cli;
use crate::hook::{self, Invocation, Outcome};

/// What the words after `seed` ask of hook mode.
#[derive(Debug)]
pub enum HookCall {
    /// Not `seed hook`: clap handles it.
    NotHook,
    /// `seed hook --help` with nothing wrong beside it: clap prints the help. Next to a bad
    /// argument, help is not shown: clap would exit 2 (a block), so it is a `Bad` call.
    Help,
    Run(cli::HookArgs),
    /// Arguments hook mode cannot use: the message, and what could be read anyway (the event,
    /// `--fail`), for the failure record and answer.
    Bad(String, cli::HookArgs),
}

pub const USAGE: &str =
    "usage: seed hook [--sequence NAME|PATH] [--enforcement MODE] [--fail open|closed] [EVENT]";

/// `seed hook [--sequence X] [--enforcement X] [--fail X] [EVENT]`, parsed by hand before
/// clap: hook mode is on every tool call's path, and its errors must not be clap's.
pub fn parse(args: impl Iterator<Item = std::ffi::OsString>) -> HookCall {
    let mut args = args.peekable();
    if args.next().as_deref().and_then(|a| a.to_str()) != Some("hook") {
        return HookCall::NotHook;
    }
    let mut out = cli::HookArgs {
        sequence: None,
        enforcement: None,
        fail: None,
        event: None,
    };
    let mut problem: Option<String> = None;
    let mut help = false;
    let mut note = |p: String| {
        problem.get_or_insert(p);
    };
    while let Some(a) = args.next() {
        let Some(a) = a.to_str().map(String::from) else {
            note(format!("argument {a:?} is not UTF-8"));
            continue;
        };
        if a == "--help" || a == "-h" {
            help = true;
            continue;
        }
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let slot = match flag.as_str() {
            "--sequence" => &mut out.sequence,
            "--enforcement" => &mut out.enforcement,
            "--fail" => &mut out.fail,
            _ if !a.starts_with('-') && out.event.is_none() => {
                out.event = Some(a);
                continue;
            }
            _ if !a.starts_with('-') => {
                note(format!("unexpected argument `{a}` (one EVENT at most)"));
                continue;
            }
            _ => {
                note(format!("unknown option `{flag}`"));
                continue;
            }
        };
        // The next word is the value, unless it is another option.
        let value = match inline {
            Some(v) => Some(v),
            None => args
                .next_if(|v| !v.to_string_lossy().starts_with("--"))
                .map(|v| v.to_string_lossy().into_owned()),
        };
        match value {
            Some(v) => {
                if slot.replace(v).is_some() {
                    note(format!("`{flag}` given twice"));
                }
            }
            _ => note(format!("`{flag}` needs a value")),
        }
    }
    match problem {
        Some(p) => HookCall::Bad(p, out),
        None if help => HookCall::Help,
        None => HookCall::Run(out),
    }
}

/// Run hook mode when the arguments ask for it; `None` leaves them to clap (another command,
/// or `seed hook --help`).
pub fn run_fast(args: impl Iterator<Item = std::ffi::OsString>) -> Option<ExitCode> {
    match parse(args) {
        HookCall::NotHook | HookCall::Help => None,
        HookCall::Run(a) => Some(run(a)),
        HookCall::Bad(message, a) => Some(refuse(&message, a)),
    }
}

fn invocation<'a>(
    args: cli::HookArgs,
    stdin: &'a mut dyn std::io::Read,
    env: &'a dyn Fn(&str) -> Option<String>,
) -> Invocation<'a> {
    Invocation {
        deadline: Some(watchdog(env)),
        sequence: args.sequence,
        enforcement: args.enforcement,
        fail: args.fail,
        event: args.event,
        stdin,
        env,
        cwd: std::env::current_dir().ok(),
    }
}

/// The budget's watchdog for this process: past it, it prints the answer `fail` asks for and
/// ends the process, before Claude Code's timeout would let the call through. It starts with
/// `SEED_HOOK_BUDGET_MS` or the default; the configuration, once read, sets it.
fn watchdog(env: &dyn Fn(&str) -> Option<String>) -> hook::Deadline {
    let budget = env("SEED_HOOK_BUDGET_MS")
        .and_then(|v| v.trim().parse().ok())
        .map_or(hook::DEFAULT_BUDGET, std::time::Duration::from_millis)
        .min(hook::MAX_BUDGET);
    hook::Deadline::start(std::time::Instant::now(), budget, |out| {
        let _ = print(out);
        std::process::exit(0);
    })
}

/// A file-size limit (`ulimit -f`) makes a write past it raise SIGXFSZ, whose default is to
/// end the process in the middle of an append, with no answer. Caught, the write fails
/// (EFBIG): the append is rolled back and the hook answers by its fail mode.
fn survive_file_size_limit() {
    #[cfg(unix)]
    {
        let caught = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, caught);
    }
}

pub fn run(args: cli::HookArgs) -> ExitCode {
    survive_file_size_limit();
    let env = |k: &str| std::env::var(k).ok();
    let mut stdin = std::io::stdin().lock();
    print(hook::run(invocation(args, &mut stdin, &env)))
}

fn refuse(message: &str, args: cli::HookArgs) -> ExitCode {
    survive_file_size_limit();
    let env = |k: &str| std::env::var(k).ok();
    let message = format!("hook arguments: {message} ({USAGE})");
    let stdin = std::io::stdin();
    // Someone typing at a terminal gets the error at once; a payload piped in is read for
    // the event and session it names.
    let mut input: Box<dyn std::io::Read> = if stdin.is_terminal() {
        Box::new(std::io::empty())
    } else {
        Box::new(stdin.lock())
    };
    print(hook::refuse_arguments(
        &message,
        invocation(args, &mut *input, &env),
    ))
}

fn print(out: Outcome) -> ExitCode {
    if let Some(e) = &out.stderr {
        let _ = writeln!(std::io::stderr(), "{e}");
    }
    if !out.stdout.is_empty() {
        let mut so = std::io::stdout().lock();
        let _ = so.write_all(out.stdout.as_bytes());
        let _ = so.flush();
    }
    ExitCode::from(out.exit)
}

#[cfg(test)]
mod tests {
    use super::{HookCall, parse};

    fn call(a: &[&str]) -> HookCall {
        parse(a.iter().map(std::ffi::OsString::from))
    }

    fn run(a: &[&str]) -> Option<(Option<String>, Option<String>, Option<String>)> {
        match call(a) {
            HookCall::Run(h) => Some((h.sequence, h.fail, h.event)),
            _ => None,
        }
    }

    fn bad(a: &[&str]) -> (String, Option<String>, Option<String>) {
        match call(a) {
            HookCall::Bad(m, h) => (m, h.fail, h.event),
            other => panic!("{a:?} is not refused: {other:?}"),
        }
    }

    #[test]
    fn the_hook_line_is_parsed_before_clap() {
        assert_eq!(run(&["hook"]), Some((None, None, None)));
        assert_eq!(
            run(&["hook", "--sequence", "a,b", "--fail=closed", "PreToolUse"]),
            Some((
                Some("a,b".into()),
                Some("closed".into()),
                Some("PreToolUse".into())
            ))
        );
        assert!(matches!(call(&["status"]), HookCall::NotHook));
        assert!(matches!(call(&["hook", "--help"]), HookCall::Help));
        assert!(matches!(
            call(&["hook", "PreToolUse", "-h"]),
            HookCall::Help
        ));
        assert!(matches!(
            call(&["hook", "--fail", "open", "--help", "PreToolUse"]),
            HookCall::Help
        ));
    }

    /// Help beside a bad argument would be clap's usage error (exit 2, a block): refused.
    #[test]
    fn help_next_to_a_bad_argument_is_a_bad_argument() {
        assert!(
            bad(&["hook", "--sequence", "--help"])
                .0
                .contains("needs a value")
        );
        assert!(bad(&["hook", "--bogus", "--help"]).0.contains("`--bogus`"));
        assert!(bad(&["hook", "-h", "A", "B"]).0.contains("`B`"));
    }

    /// Bad arguments are hook mode's own error, with what could be read kept.
    #[test]
    fn bad_arguments_are_refused_by_hook_mode_not_clap() {
        let (m, fail, event) = bad(&["hook", "--bogus", "--fail", "closed", "PreToolUse"]);
        assert!(m.contains("`--bogus`"), "{m}");
        assert_eq!(
            (fail.as_deref(), event.as_deref()),
            (Some("closed"), Some("PreToolUse"))
        );
        assert!(bad(&["hook", "--sequence"]).0.contains("needs a value"));
        let (m, fail, event) = bad(&["hook", "--sequence", "--fail", "closed"]);
        assert!(m.contains("needs a value"), "{m}");
        assert_eq!((fail.as_deref(), event), (Some("closed"), None));
        assert!(bad(&["hook", "PreToolUse", "Extra"]).0.contains("`Extra`"));
        assert!(
            bad(&["hook", "--fail", "open", "--fail=closed"])
                .0
                .contains("twice")
        );
        // Hostile words: not UTF-8, empty, a short option.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let words = [
                "hook".into(),
                std::ffi::OsString::from_vec(vec![0xff, b'x']),
            ];
            assert!(
                matches!(parse(words.into_iter()), HookCall::Bad(m, _) if m.contains("not UTF-8"))
            );
        }
        assert!(
            bad(&["hook", "PreToolUse", ""])
                .0
                .contains("unexpected argument")
        );
        assert!(bad(&["hook", "-x"]).0.contains("`-x`"));
    }
}
