//! The command line's help is part of the interface: a snapshot per command catches accidental
//! changes to names, flags and wording.

use assert_cmd::Command;

const COMMANDS: &[&str] = &[
    "hook",
    "status",
    "recovery",
    "explain",
    "sequences",
    "validate",
    "tui",
    "replay",
    "screenshot",
    "demo",
    "install",
    "uninstall",
    "doctor",
    "mcp",
    "learn",
    "new",
    "init",
];

fn help(args: &[&str]) -> String {
    let out = Command::cargo_bin("seed")
        .unwrap()
        .args(args)
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?} exits 0");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn top_level_help() {
    insta::assert_snapshot!("help", help(&["--help"]));
}

#[test]
fn every_command_has_help() {
    for cmd in COMMANDS {
        insta::assert_snapshot!(format!("help_{cmd}"), help(&[cmd, "--help"]));
    }
}

#[test]
fn unknown_commands_and_flags_fail_with_one_clear_line() {
    let out = Command::cargo_bin("seed")
        .unwrap()
        .arg("frobnicate")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.lines()
            .next()
            .is_some_and(|l| l.contains("unrecognized subcommand 'frobnicate'")),
        "{err}"
    );
}
