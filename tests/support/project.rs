//! A sandbox Claude Code project for `seed install` / `uninstall` / `doctor`: the project in
//! `<tmp>/project` (with its `.claude/`), `HOME` and seed's user config beside it, and none of
//! the runner's own `SEED_*` / `CLAUDE_*` settings leaking in.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// Settings of the runner's environment that would change what seed does.
const LEAKY: &[&str] = &[
    "SEED_HOME",
    "SEED_SEQUENCE",
    "SEED_FAIL",
    "SEED_ENFORCEMENT",
    "SEED_EMIT_ALLOW",
    "SEED_CONFIG_DIR",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_SESSION_ID",
    // Where the state directory would be: tests give their own (or HOME's).
    "HEAVEN_DATA_DIR",
    "XDG_STATE_HOME",
];

/// The MCP servers `starlog_initialization` calls.
pub const STARLOG_SERVERS: &[&str] = &["starlog", "starship"];

pub struct Project {
    pub dir: tempfile::TempDir,
}

/// The `seed` binary under test.
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("seed")
}

impl Project {
    pub fn new() -> Project {
        let p = Project {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(p.root().join(".claude")).unwrap();
        p
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    /// `seed ARGS` in the project, with the runner's `PATH` behind a directory holding this
    /// `seed` (install refuses hooks that would find none).
    pub fn seed(&self, args: &[&str]) -> (i32, String, String) {
        self.run(args, None)
    }

    /// A directory holding only this `seed` (a link to the binary under test), for a `PATH`.
    pub fn seed_dir(&self) -> PathBuf {
        let dir = self.dir.path().join("seed-bin");
        if !dir.join("seed").exists() {
            std::fs::create_dir_all(&dir).unwrap();
            #[cfg(unix)]
            std::os::unix::fs::symlink(bin(), dir.join("seed")).unwrap();
            #[cfg(not(unix))]
            std::fs::copy(bin(), dir.join("seed")).unwrap();
        }
        dir
    }

    /// `seed ARGS` in the project, with `PATH` holding only `path_dirs`.
    pub fn seed_with_path(&self, args: &[&str], path_dirs: &[&Path]) -> (i32, String, String) {
        self.run(args, Some(path_dirs))
    }

    /// `seed ARGS` in the project, with `PATH` holding only `path_dirs` and `env` set.
    pub fn seed_with_env(
        &self,
        args: &[&str],
        path_dirs: &[&Path],
        env: &[(&str, &Path)],
    ) -> (i32, String, String) {
        self.run_env(args, Some(path_dirs), env)
    }

    fn run(&self, args: &[&str], path_dirs: Option<&[&Path]>) -> (i32, String, String) {
        self.run_env(args, path_dirs, &[])
    }

    fn run_env(
        &self,
        args: &[&str],
        path_dirs: Option<&[&Path]>,
        env: &[(&str, &Path)],
    ) -> (i32, String, String) {
        let mut c = Command::cargo_bin("seed").unwrap();
        for k in LEAKY {
            c.env_remove(k);
        }
        for (k, v) in env {
            c.env(k, v);
        }
        match path_dirs {
            Some(dirs) => c.env("PATH", std::env::join_paths(dirs).unwrap()),
            None => {
                let runner = std::env::var_os("PATH").unwrap_or_default();
                let dirs = std::iter::once(self.seed_dir()).chain(std::env::split_paths(&runner));
                c.env("PATH", std::env::join_paths(dirs).unwrap())
            }
        };
        let o = c
            .args(args)
            .env("CLAUDE_PROJECT_DIR", self.root())
            .env("HOME", self.dir.path().join("home"))
            .env("SEED_CONFIG_DIR", self.dir.path().join("cfg"))
            .current_dir(self.root())
            .output()
            .unwrap();
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    }

    /// A sequence of the project named `name` (`.seed/sequences/<name>.json`, a copy of a
    /// built-in), for a name install must find.
    pub fn add_sequence(&self, name: &str) {
        let dir = self.root().join(".seed/sequences");
        std::fs::create_dir_all(&dir).unwrap();
        let builtin =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("sequences/starlog_initialization.json");
        std::fs::copy(builtin, dir.join(format!("{name}.json"))).unwrap();
    }

    /// Claude Code's user configuration (`~/.claude.json`) with these MCP servers, as
    /// `claude mcp add --scope user` leaves it: the servers the built-in sequences call.
    pub fn provide_servers(&self, names: &[&str]) {
        let servers: serde_json::Map<String, Value> = names
            .iter()
            .map(|n| (n.to_string(), serde_json::json!({"command": n})))
            .collect();
        let home = self.dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let cfg = serde_json::json!({ "mcpServers": servers });
        std::fs::write(home.join(".claude.json"), cfg.to_string()).unwrap();
    }

    /// A JSON file of the project, parsed.
    pub fn json(&self, rel: &str) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.root().join(rel)).unwrap()).unwrap()
    }
}

/// The commands of seed's tagged hook entries in a settings value.
pub fn seed_commands(v: &Value) -> Vec<String> {
    seed::commands::install::find_entries(v)
        .into_iter()
        .map(|(_, c)| c)
        .collect()
}
