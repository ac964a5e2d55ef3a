//! `seed-hook [--sequence NAME|PATH] [--enforcement MODE] [--fail open|closed] [EVENT]`: the
//! same as `seed hook …`, in an executable that links only the hook's path (no dashboard, MCP
//! server, async runtime or image export). Claude Code starts one per hook event, and most of
//! a hook's cost is starting the process, which grows with the executable: `seed install`
//! points the hooks at this one when it sits next to `seed`.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = std::iter::once(OsString::from("hook")).chain(std::env::args_os().skip(1));
    match seed::commands::hook::run_fast(args) {
        Some(code) => code,
        // `--help`: the one line; `seed hook --help` says more.
        None => {
            println!(
                "{} (as `seed hook`; see `seed hook --help`)",
                seed::commands::hook::USAGE.replace("seed hook", "seed-hook")
            );
            ExitCode::SUCCESS
        }
    }
}
