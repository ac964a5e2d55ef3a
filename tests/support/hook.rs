//! Shared helpers for the hook integration tests: run `seed` in a sealed environment.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use assert_cmd::Command;
use serde_json::Value;

/// Variables from the machine that would change what seed does.
pub const LEAKY: &[&str] = &[
    "SEED_HOME",
    "SEED_SEQUENCE",
    "SEED_FAIL",
    "SEED_ENFORCEMENT",
    "SEED_EMIT_ALLOW",
    "SEED_OFF_PATH",
    "SEED_INJECT_EVERY",
    "SEED_HOOK_BUDGET_MS",
    "SEED_CONFIG_DIR",
    "HEAVEN_DATA_DIR",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_SESSION_ID",
    "XDG_STATE_HOME",
    "XDG_CONFIG_HOME",
];

/// A sandbox: a state dir, a project dir, a home.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.stdout))
    }
}

/// Claude Code's user configuration (`~/.claude.json`) with every MCP server a built-in
/// sequence calls, as a user who set them up has it.
fn every_builtin_server() -> &'static str {
    static TEXT: LazyLock<String> = LazyLock::new(|| {
        let mut servers = serde_json::Map::new();
        for name in seed::dialects::builtin_names() {
            let Some(Ok(l)) = seed::dialects::builtin(&name) else {
                continue;
            };
            let m = seed::engine::Machine::new(l.chart);
            for s in m.server_needs().iter().filter_map(|n| n.server.clone()) {
                servers.insert(s.clone(), serde_json::json!({ "command": s }));
            }
        }
        serde_json::json!({ "mcpServers": servers }).to_string()
    });
    &TEXT
}

impl Sandbox {
    /// With every server the built-in sequences call configured (see
    /// [`Sandbox::without_mcp_servers`]).
    pub fn new() -> Sandbox {
        let s = Sandbox {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(s.project()).unwrap();
        std::fs::write(s.dir.path().join(".claude.json"), every_builtin_server()).unwrap();
        s
    }
    /// A home whose Claude Code configuration has no MCP server.
    pub fn without_mcp_servers(self) -> Sandbox {
        std::fs::remove_file(self.dir.path().join(".claude.json")).unwrap();
        self
    }
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("state")
    }
    pub fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }
    pub fn write_config(&self, text: &str) {
        std::fs::write(self.project().join(".seed.toml"), text).unwrap();
    }
    pub fn cmd(&self) -> Command {
        let mut c = Command::cargo_bin("seed").unwrap();
        for k in LEAKY {
            c.env_remove(k);
        }
        c.env("SEED_HOME", self.home())
            .env("SEED_CONFIG_DIR", self.dir.path().join("user-config"))
            .env("HOME", self.dir.path())
            .env("CLAUDE_PROJECT_DIR", self.project())
            .current_dir(self.project());
        c
    }
    /// [`Sandbox::cmd`] as a `std::process::Command`, for a run whose stdin the test holds.
    pub fn std_cmd(&self) -> std::process::Command {
        self.std_cmd_of(env!("CARGO_BIN_EXE_seed"))
    }
    /// `program` in the sandbox's environment (`sh` running seed under a limit).
    pub fn std_cmd_of(&self, program: &str) -> std::process::Command {
        let mut c = std::process::Command::new(program);
        for k in LEAKY {
            c.env_remove(k);
        }
        c.env("SEED_HOME", self.home())
            .env("SEED_CONFIG_DIR", self.dir.path().join("user-config"))
            .env("HOME", self.dir.path())
            .env("CLAUDE_PROJECT_DIR", self.project())
            .current_dir(self.project());
        c
    }
    pub fn hook(&self, args: &[&str], stdin: impl Into<Vec<u8>>) -> Run {
        self.hook_env(args, stdin, &[])
    }
    pub fn hook_env(&self, args: &[&str], stdin: impl Into<Vec<u8>>, env: &[(&str, &str)]) -> Run {
        let mut c = self.cmd();
        c.arg("hook").args(args).write_stdin(stdin.into());
        for (k, v) in env {
            c.env(k, v);
        }
        let o = c.output().unwrap();
        Run {
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            code: o.status.code().unwrap_or(-1),
        }
    }
    pub fn session_dir(&self, id: &str) -> PathBuf {
        // The name seed gives the session (ids with `_`, `:` or `/` are escaped).
        seed::store::paths::session_dir(&self.home(), id)
    }
    pub fn log_lines(&self, id: &str) -> Vec<Value> {
        let text =
            std::fs::read_to_string(self.session_dir(id).join("log.jsonl")).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// A payload as Claude Code sends it (compact, one line).
pub fn payload(event: &str, session: &str, extra: Value) -> String {
    let mut v = serde_json::json!({
        "session_id": session,
        "transcript_path": format!("/home/dev/.claude/projects/p/{session}.jsonl"),
        "cwd": "/home/dev/work/p",
        "permission_mode": "default",
        "hook_event_name": event,
    });
    if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
    format!("{v}\n")
}

/// Assert the saved snapshot of every sequence equals the fold of the session log.
pub fn assert_snapshot_is_fold(home: &Path, session: &str) {
    use seed::engine::Machine;
    use seed::store::snapshot;
    let dir = seed::store::paths::session_dir(home, session);
    let bytes = std::fs::read(dir.join("log.jsonl")).unwrap();
    let (records, bad) = seed::store::record::parse_records(&bytes);
    assert_eq!(bad, 0, "malformed lines in the log");
    let mut n = 0;
    for e in std::fs::read_dir(dir.join("snapshots")).unwrap().flatten() {
        // A hook killed between writing its temp file and renaming it leaves `.<name>.<pid>.tmp`.
        if e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let saved = snapshot::load(&e.path()).expect("snapshot parses");
        let chart = snapshot::load_chart(&dir.join("charts").join(e.file_name())).expect("chart");
        let machine = Machine::new(chart);
        assert_eq!(
            saved.fingerprint, machine.fingerprint,
            "chart round trip keeps the fingerprint"
        );
        assert_eq!(saved.log_len, bytes.len() as u64);
        assert_eq!(saved.records, records.len() as u64);
        assert_eq!(
            saved.snapshot,
            seed::session::fold::fold(&machine, &records),
            "snapshot == fold(log)"
        );
        n += 1;
    }
    assert!(n > 0, "no snapshot saved");
}

/// Make `link` a symlink to `target` owned by `nobody`. Only root can give a file away; the
/// test says why it skips when it cannot.
pub fn foreign_symlink(target: &Path, link: &Path) -> bool {
    std::os::unix::fs::symlink(target, link).unwrap();
    match std::os::unix::fs::lchown(link, Some(65534), Some(65534)) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("skipped: cannot give a symlink to another user ({e}); run as root to test");
            false
        }
    }
}
