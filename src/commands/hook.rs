//! `seed hook`: read one payload on stdin, answer on stdout. Never blocks the agent because
//! seed itself failed, unless the user chose fail-closed; never exits 2.

use std::io::Write;
use std::process::ExitCode;

use crate::cli;
use crate::hook::{self, Invocation};

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
