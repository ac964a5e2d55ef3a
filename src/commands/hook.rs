//! `seed hook`: read one payload on stdin, answer on stdout. Never blocks the agent because
//! seed itself failed, unless the user chose fail-closed; never exits 2.

use std::io::Write;
use std::process::ExitCode;

use crate::cli;
use crate::hook::{self, Invocation};

/// `seed hook [--sequence X] [--enforcement X] [--fail X] [EVENT]` parsed by hand; `None` for
/// anything else (help, unknown flags), which clap then handles with its usual messages.
pub fn fast_args(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<cli::HookArgs> {
    if args.next()?.to_str()? != "hook" {
        return None;
    }
    let mut out = cli::HookArgs {
        sequence: None,
        enforcement: None,
        fail: None,
        event: None,
    };
    while let Some(a) = args.next() {
        let a = a.into_string().ok()?;
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
            _ => return None,
        };
        let value = match inline {
            Some(v) => v,
            None => args.next()?.into_string().ok()?,
        };
        if slot.replace(value).is_some() {
            return None;
        }
    }
    Some(out)
}

pub fn run(args: cli::HookArgs) -> ExitCode {
    let env = |k: &str| std::env::var(k).ok();
    let mut stdin = std::io::stdin().lock();
    let out = hook::run(Invocation {
        sequence: args.sequence,
        enforcement: args.enforcement,
        fail: args.fail,
        event: args.event,
        stdin: &mut stdin,
        env: &env,
        cwd: std::env::current_dir().ok(),
    });
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
    use super::fast_args;

    fn parse(a: &[&str]) -> Option<(Option<String>, Option<String>, Option<String>)> {
        fast_args(a.iter().map(std::ffi::OsString::from)).map(|h| (h.sequence, h.fail, h.event))
    }

    #[test]
    fn fast_path_parses_the_hook_line_and_leaves_the_rest_to_clap() {
        assert_eq!(parse(&["hook"]), Some((None, None, None)));
        assert_eq!(
            parse(&["hook", "--sequence", "a,b", "--fail=closed", "PreToolUse"]),
            Some((
                Some("a,b".into()),
                Some("closed".into()),
                Some("PreToolUse".into())
            ))
        );
        assert_eq!(parse(&["hook", "--help"]), None);
        assert_eq!(parse(&["hook", "A", "B"]), None);
        assert_eq!(parse(&["hook", "--sequence"]), None);
        assert_eq!(parse(&["status"]), None);
    }
}
