//! Which Claude Code the suite drives, and how many at once.
//!
//! `SEED_CLAUDE=PATH` names an executable; otherwise the pinned version (`.ci/claude-code-version`)
//! installed by `.ci/install-claude-code` under `target/claude-code/`. When neither is there,
//! every scenario returns after one line on the terminal saying why.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Condvar, Mutex, OnceLock};

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

/// The Claude Code executable and the version it reports.
#[derive(Clone, Debug)]
pub struct Claude {
    pub path: PathBuf,
    pub version: String,
}

pub fn pinned_version() -> String {
    let file = PathBuf::from(MANIFEST).join(".ci/claude-code-version");
    std::fs::read_to_string(&file)
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// The CLI to drive, or `None` after printing (once per run) why the scenarios skip.
pub fn claude() -> Option<Claude> {
    static FOUND: OnceLock<Result<Claude, String>> = OnceLock::new();
    match FOUND.get_or_init(find) {
        Ok(c) => Some(c.clone()),
        Err(why) => {
            static SAID: OnceLock<()> = OnceLock::new();
            SAID.get_or_init(|| {
                // Straight to the terminal: the test harness would swallow println! of a test
                // that passes.
                let _ = writeln!(std::io::stderr(), "skipped: tests/claude_code: {why}");
            });
            None
        }
    }
}

fn find() -> Result<Claude, String> {
    let (path, from_env) = match std::env::var_os("SEED_CLAUDE") {
        Some(p) => (PathBuf::from(p), true),
        None => (
            PathBuf::from(MANIFEST)
                .join("target/claude-code")
                .join(pinned_version())
                .join("node_modules/.bin/claude"),
            false,
        ),
    };
    let how =
        "`.ci/install-claude-code` installs it (needs npm); SEED_CLAUDE=PATH picks another build";
    if !path.exists() {
        let what = if from_env {
            "SEED_CLAUDE"
        } else {
            "Claude Code"
        };
        return Err(format!("{what} {} is not there; {how}", path.display()));
    }
    let out = Command::new(&path)
        .arg("--version")
        .env("DISABLE_AUTOUPDATER", "1")
        .output()
        .map_err(|e| format!("{} does not run ({e}); {how}", path.display()))?;
    let version = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string();
    if !out.status.success() || version.is_empty() {
        return Err(format!("{} --version failed; {how}", path.display()));
    }
    Ok(Claude { path, version })
}

/// At most this many Claude Code processes at once (each is a large native binary; the
/// machine may have 2 cores). `SEED_CLAUDE_JOBS` changes it.
fn limit() -> usize {
    std::env::var("SEED_CLAUDE_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(2)
}

static RUNNING: Mutex<usize> = Mutex::new(0);
static FREED: Condvar = Condvar::new();

/// A slot to run one Claude Code; the slot is given back when this is dropped.
pub struct Slot;

impl Slot {
    pub fn take() -> Slot {
        let mut n = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        while *n >= limit() {
            n = FREED.wait(n).unwrap_or_else(|e| e.into_inner());
        }
        *n += 1;
        Slot
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut n = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        *n -= 1;
        FREED.notify_one();
    }
}
