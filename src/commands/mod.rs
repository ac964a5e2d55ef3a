//! One file per subcommand. Each returns an exit code or a one-line error.

/// `print!` for a command's results: a reader that stops early (`seed sequences | head`) ends
/// the output quietly instead of panicking; other write errors are returned.
macro_rules! out {
    ($($t:tt)*) => { $crate::commands::write_out(format_args!($($t)*)) };
}
/// `println!` with the same rule as `out!`.
macro_rules! outln {
    ($($t:tt)*) => { $crate::commands::write_out(format_args!("{}\n", format_args!($($t)*))) };
}

pub mod demo;
pub mod doctor;
pub mod explain;
pub mod hook;
pub mod init;
pub mod install;
pub mod install_mcp;
pub mod learn;
pub mod mcp;
pub mod new;
pub mod replay;
pub mod screenshot;
pub mod sequences;
pub mod status;
pub mod tui;
pub mod validate;

use std::io::Write;
use std::process::ExitCode;

pub(crate) fn write_out(args: std::fmt::Arguments<'_>) -> std::io::Result<()> {
    let mut o = std::io::stdout().lock();
    match o.write_fmt(args).and_then(|()| o.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// A command's failure: printed as one line, exit code 1.
pub type CmdError = Box<dyn std::error::Error + Send + Sync>;
pub type CmdResult = Result<ExitCode, CmdError>;

/// Write a file that must not exist yet: nothing a user made is ever replaced.
pub(crate) fn write_new_file(path: &std::path::Path, text: &str) -> Result<(), String> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    f.write_all(text.as_bytes())
        .map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
