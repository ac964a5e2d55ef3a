#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use seed::cli::{Cli, Command};
use seed::commands;

fn main() -> ExitCode {
    // Hook mode skips building the whole command tree: it is on every tool call's path.
    if let Some(code) = commands::hook::run_fast(std::env::args_os().skip(1)) {
        return code;
    }
    let cli = Cli::parse();
    // The hook answers before anything heavy (runtime, theme, terminal) is touched.
    let result = match cli.command {
        Command::Hook(a) => return commands::hook::run(a),
        Command::Status(a) => commands::status::run(a, false),
        Command::Recovery(a) => commands::status::run(a, true),
        Command::Explain(a) => commands::explain::run(a),
        Command::Sequences(a) => commands::sequences::run(a),
        Command::Validate(a) => commands::validate::run(a),
        Command::Tui(a) => commands::tui::run(a),
        Command::Replay(a) => commands::replay::run(a),
        Command::Screenshot(a) => commands::screenshot::run(a),
        Command::Demo(a) => commands::demo::run(a),
        Command::Install(a) => commands::install::run(a, false),
        Command::Uninstall(a) => commands::install::run(a, true),
        Command::Doctor(a) => commands::doctor::run(a),
        Command::Mcp(a) => commands::mcp::run(a),
        Command::Learn(a) => commands::learn::run(a),
        Command::New(a) => commands::new::run(a),
        Command::Init(a) => commands::init::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // One line, whatever the error quotes: control characters shown, not run.
            eprintln!(
                "seed: {}",
                seed::report::sanitize::escape(&e.to_string(), 4000)
            );
            ExitCode::from(1)
        }
    }
}
