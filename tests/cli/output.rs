//! Results go to stdout for other programs: a reader that stops early (`seed … | head`) must
//! end seed's output quietly, with the command's own exit code and nothing on stderr.

use std::io::Read;
use std::process::{Command, Stdio};

/// Runs `seed args` with its stdout closed before seed writes anything.
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_seed"))
        .args(args)
        .env(
            "SEED_HOME",
            std::env::temp_dir().join("seed-closed-stdout-none"),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn seed");
    drop(child.stdout.take());
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        e.read_to_string(&mut err).expect("stderr");
    }
    let status = child.wait().expect("wait");
    (status.code(), err)
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    let seq = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sequences/compound_intelligence.json"
    );
    for args in [
        vec!["sequences"],
        vec!["sequences", "--json"],
        vec!["validate", seq],
        vec!["validate", "--json", seq],
        vec!["replay", "demo", "--summary"],
        vec!["replay", "demo", "--json"],
    ] {
        let (code, err) = with_closed_stdout(&args);
        assert_eq!(code, Some(0), "seed {args:?}: {err}");
        assert_eq!(err, "", "seed {args:?} wrote to stderr");
    }
}
