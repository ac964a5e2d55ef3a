//! The harness: a scenario is a fresh project (its own HOME, SEED_HOME and project directory)
//! with seed installed as a user installs it, the real Claude Code in print mode, and the
//! model's turns scripted. See `main.rs` for how to write one.
// Scenarios use what they need of the harness.
#![allow(dead_code)]

pub mod anchor_mcp;
pub mod cli;
pub mod interactive;
pub mod model;
pub mod replay;
pub mod run;
pub mod sse;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

pub use model::{Script, Turn};
pub use run::Run;

/// The `seed` binary under test; its directory goes first on Claude Code's `PATH`, so the
/// hooks `seed install` writes (`seed hook …`) run it.
pub const SEED: &str = env!("CARGO_BIN_EXE_seed");

/// The tools a scenario may call without a permission prompt, unless it says otherwise.
pub const ALLOWED: &str =
    "Bash,Read,Write,Edit,Glob,Grep,Agent,ToolSearch,mcp__seed__*,mcp__anchor__*";

/// A scenario being set up.
pub struct Scenario {
    pub claude: cli::Claude,
    dir: tempfile::TempDir,
    model: model::Model,
    main: Script,
    subagents: BTreeMap<String, Script>,
    prompts: Vec<String>,
    allowed: String,
    seed_mcp: Option<Vec<String>>,
    anchor_mcp: bool,
}

impl Scenario {
    /// A fresh sandbox, or `None` (after one printed line) when Claude Code is not installed.
    pub fn new() -> Option<Scenario> {
        let claude = cli::claude()?;
        let dir = tempfile::tempdir().expect("tempdir");
        for d in ["home", "seed", "project", "config"] {
            std::fs::create_dir_all(dir.path().join(d)).expect("sandbox directory");
        }
        Some(Scenario {
            claude,
            dir,
            model: model::Model::start(),
            main: Script::default(),
            subagents: BTreeMap::new(),
            prompts: Vec::new(),
            allowed: ALLOWED.to_string(),
            seed_mcp: None,
            anchor_mcp: false,
        })
    }

    pub fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    /// The stand-in's base URL: `/hook…` answers an http hook with `{}`, `/mcp/anchor` is the
    /// anchor MCP server.
    pub fn model_url(&self) -> String {
        self.model.url()
    }

    /// `seed install --local ARGS` in the project, as a user runs it.
    pub fn install(self, args: &[&str]) -> Scenario {
        let out = seed_in(self.dir.path(), &self.project())
            .args(["install", "--local"])
            .args(args)
            .output()
            .expect("seed install runs");
        assert!(
            out.status.success(),
            "seed install failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self
    }

    /// Installs seed's hooks for one sequence.
    pub fn sequence(self, name: &str) -> Scenario {
        self.install(&["--sequence", name])
    }

    /// A file of the project (e.g. `.seed.toml`).
    pub fn file(self, rel: &str, text: &str) -> Scenario {
        let path = self.project().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("project subdirectory");
        }
        std::fs::write(path, text).expect("project file");
        self
    }

    /// seed's MCP server (`seed mcp ARGS`), given to Claude Code with `--mcp-config`.
    pub fn seed_mcp(mut self, args: &[&str]) -> Scenario {
        self.seed_mcp = Some(args.iter().map(|a| a.to_string()).collect());
        self
    }

    /// The test MCP server `anchor` with its one tool, `odyssean_anchor(stage)`.
    pub fn anchor_mcp(mut self) -> Scenario {
        self.anchor_mcp = true;
        self
    }

    /// The test MCP server `anchor` in the project's `.mcp.json`, approved in
    /// `.claude/settings.local.json` as a user approves it.
    pub fn anchor_in_project_mcp_json(self) -> Scenario {
        let servers = json!({"mcpServers": {"anchor": anchor_mcp::config(&self.model.url())}});
        let s = self.file(".mcp.json", &servers.to_string());
        s.settings(|v| v["enableAllProjectMcpServers"] = json!(true))
    }

    /// Changes the project's `.claude/settings.local.json` (after `seed install` wrote it).
    pub fn settings(self, change: impl FnOnce(&mut Value)) -> Scenario {
        let path = self.project().join(".claude/settings.local.json");
        let mut v: Value = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_else(|| json!({}));
        change(&mut v);
        let text = serde_json::to_string_pretty(&v).expect("settings");
        self.file(".claude/settings.local.json", &text)
    }

    /// `--allowedTools` (default: [`ALLOWED`]).
    pub fn allowed_tools(mut self, list: &str) -> Scenario {
        self.allowed = list.to_string();
        self
    }

    /// A user prompt; several make one session (each sent after the previous one's result).
    pub fn prompt(mut self, text: &str) -> Scenario {
        self.prompts.push(text.to_string());
        self
    }

    /// The main conversation's answers, in order, across every prompt.
    pub fn model(mut self, turns: impl IntoIterator<Item = Turn>) -> Scenario {
        self.main = Script::new(turns);
        self
    }

    /// A subagent's answers: the conversation whose first prompt contains `marker`.
    pub fn subagent(mut self, marker: &str, turns: impl IntoIterator<Item = Turn>) -> Scenario {
        self.subagents
            .insert(marker.to_string(), Script::new(turns));
        self
    }

    /// Runs Claude Code in print mode until the last prompt's result.
    pub fn run(self) -> Run {
        self.model.script(self.main.clone(), self.subagents.clone());
        let mut args: Vec<String> = vec![
            "-p".into(),
            "--input-format".into(),
            "stream-json".into(),
            "--output-format".into(),
            "stream-json".into(),
            "--verbose".into(),
            "--allowedTools".into(),
            self.allowed.clone(),
        ];
        if let Some(config) = self.mcp_config() {
            args.extend(["--mcp-config".into(), config.display().to_string()]);
        }
        run::print_mode(self, args)
    }

    /// Runs Claude Code interactively under tmux with `args` (see `interactive::run`).
    pub fn run_interactive(
        self,
        args: &[&str],
        on_screen: &dyn Fn(&interactive::Terminal, &str) -> bool,
    ) -> Run {
        self.model.script(self.main.clone(), self.subagents.clone());
        interactive::run(self, args, on_screen)
    }

    fn mcp_config(&self) -> Option<PathBuf> {
        let base_url = self.model.url();
        let mut servers = serde_json::Map::new();
        if let Some(args) = &self.seed_mcp {
            let mut a = vec![json!("mcp")];
            a.extend(args.iter().map(|s| json!(s)));
            servers.insert("seed".into(), json!({"command": SEED, "args": a}));
        }
        if self.anchor_mcp {
            servers.insert("anchor".into(), anchor_mcp::config(&base_url));
        }
        if servers.is_empty() {
            return None;
        }
        let path = self.dir.path().join("mcp.json");
        let config = json!({"mcpServers": servers});
        std::fs::write(&path, config.to_string()).expect("mcp config");
        Some(path)
    }

    /// The environment of every process of the scenario: nothing of the runner's leaks in, and
    /// nothing leaves the loopback.
    fn env(&self) -> Vec<(String, String)> {
        env_for(self.dir.path(), &self.project(), &self.model.url())
    }
}

/// The sandbox's environment (see `Scenario::env`).
pub fn env_for(root: &Path, project: &Path, base_url: &str) -> Vec<(String, String)> {
    let seed_dir = Path::new(SEED).parent().expect("seed's directory");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![seed_dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let path = std::env::join_paths(dirs).expect("PATH");
    let s = |p: &Path| p.display().to_string();
    vec![
        ("PATH".into(), path.to_string_lossy().into_owned()),
        ("HOME".into(), s(&root.join("home"))),
        ("SEED_HOME".into(), s(&root.join("seed"))),
        ("SEED_CONFIG_DIR".into(), s(&root.join("config"))),
        ("CLAUDE_PROJECT_DIR".into(), s(project)),
        ("ANTHROPIC_BASE_URL".into(), base_url.into()),
        (
            "ANTHROPIC_API_KEY".into(),
            "sk-ant-stand-in-0000000000000000".into(),
        ),
        (
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
            "1".into(),
        ),
        ("DISABLE_AUTOUPDATER".into(), "1".into()),
        ("DISABLE_TELEMETRY".into(), "1".into()),
        ("DISABLE_ERROR_REPORTING".into(), "1".into()),
        ("TERM".into(), "xterm-256color".into()),
        ("LANG".into(), "C.UTF-8".into()),
    ]
}

/// `seed` with the sandbox's environment, in `cwd`.
pub fn seed_in(root: &Path, cwd: &Path) -> Command {
    let mut c = Command::new(SEED);
    c.env_clear()
        .envs(env_for(root, cwd, "http://127.0.0.1:9"))
        .current_dir(cwd);
    c
}

/// Every text of a JSON value (strings of `text` and `content`), joined by newlines.
pub fn texts(v: &Value) -> String {
    model::texts_of(&json!({"content": v}))
}
