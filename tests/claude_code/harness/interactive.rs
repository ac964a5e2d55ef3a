//! Interactive Claude Code under tmux, for what print mode does not offer (ExitPlanMode, plan
//! mode, permission dialogs). Onboarding, the API key and the project's trust are marked done
//! in the fresh HOME's `.claude.json`, as a user who has been through them has it.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::json;

use super::cli::Slot;
use super::run::{Run, finish};
use super::{Scenario, env_for};

/// How long a prompt may take before the test fails.
const PROMPT_TIMEOUT: Duration = Duration::from_secs(60);

/// A terminal the scenario's Claude Code runs in; the tmux server goes when this is dropped.
pub struct Terminal {
    /// The server's socket, inside the scenario's temporary directory (gone with it).
    socket: String,
}

impl Terminal {
    /// Starts `cmd` in a new tmux server of its own (160×50) whose socket is `socket`, in
    /// `cwd`, with only `env`.
    pub fn start(socket: &Path, cwd: &Path, env: &[(String, String)], cmd: &[String]) -> Terminal {
        let term = Terminal {
            socket: socket.display().to_string(),
        };
        let size = ["-x", "160", "-y", "50"];
        let started = Command::new("tmux")
            .args([
                "-S",
                &term.socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "cc",
            ])
            .args(size)
            .arg("-c")
            .arg(cwd)
            .args(cmd)
            .env_clear()
            .envs(env.iter().cloned())
            .status()
            .expect("tmux starts");
        assert!(started.success(), "tmux new-session failed");
        term
    }

    /// Whether the program still runs.
    pub fn alive(&self) -> bool {
        self.tmux(&["has-session", "-t", "cc"]).status.success()
    }

    /// Waits until the screen satisfies `ok`, and returns it.
    pub fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < PROMPT_TIMEOUT,
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-S", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// What the terminal shows now.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "cc"]).stdout).into_owned()
    }

    /// Types `text` literally.
    pub fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "cc", "-l", text]);
    }

    /// Presses keys by tmux name (`Enter`, `Escape`, `Down`).
    pub fn press(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "cc"];
        args.extend(keys);
        self.tmux(&args);
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

/// Whether tmux is there; if not, says so once and the interactive scenarios skip.
pub fn tmux_available() -> bool {
    let ok = Command::new("tmux").arg("-V").output().is_ok();
    if !ok {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: tests/claude_code interactive scenario: tmux is not installed (.ci/run installs it)"
        );
    }
    ok
}

/// Marks onboarding, the key and the project's trust as done, as after a user's first run.
fn onboarded(home: &Path, project: &Path, key: &str) {
    let tail: String = key
        .chars()
        .rev()
        .take(20)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let config = json!({
        "hasCompletedOnboarding": true,
        "customApiKeyResponses": {"approved": [tail], "rejected": []},
        "projects": {project.display().to_string(): {"hasTrustDialogAccepted": true}},
    });
    std::fs::write(home.join(".claude.json"), config.to_string()).expect(".claude.json");
}

/// One interactive session: each prompt is typed once the previous one's turn has ended: a
/// Stop seed let through, or `on_screen` says so. `on_screen` is shown the screen while a turn
/// runs, to answer a dialog by pressing keys; it returns whether the turn has ended (a dialog
/// the user declined ends it without a Stop). The run's `stderr` holds the last screen.
pub fn run(s: Scenario, args: &[&str], on_screen: &dyn Fn(&Terminal, &str) -> bool) -> Run {
    let _slot = Slot::take();
    let root = s.dir.path().to_path_buf();
    let project = s.project();
    let env = env_for(&root, &project, &s.model.url());
    let key = env
        .iter()
        .find(|(k, _)| k == "ANTHROPIC_API_KEY")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    onboarded(&root.join("home"), &project, &key);
    let mut cmd = vec![
        s.claude.path.display().to_string(),
        "--allowedTools".into(),
        s.allowed.clone(),
    ];
    cmd.extend(args.iter().map(|a| a.to_string()));
    let term = Terminal::start(&root.join("tmux"), &project, &env, &cmd);
    let start = Instant::now();
    term.wait_for("the input prompt", |screen| {
        screen.contains('❯') || screen.contains('>')
    });
    let stops = |root: &Path| stops_let_through(root);
    for (i, prompt) in s.prompts.iter().enumerate() {
        // Let the input box settle, then type.
        std::thread::sleep(Duration::from_millis(500));
        term.type_text(prompt);
        std::thread::sleep(Duration::from_millis(300));
        term.press(&["Enter"]);
        let began = Instant::now();
        while stops(&root) <= i {
            let screen = term.screen();
            assert!(
                began.elapsed() < PROMPT_TIMEOUT,
                "prompt {i} did not end within {PROMPT_TIMEOUT:?}; screen:\n{screen}"
            );
            if on_screen(&term, &screen) {
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    // The screen as the last turn left it (exiting clears it).
    let screen = term.screen();
    term.type_text("/exit");
    std::thread::sleep(Duration::from_millis(300));
    term.press(&["Enter"]);
    let gone = Instant::now();
    while term.alive() && gone.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(term);
    finish(s, Vec::new(), format!("last screen:\n{screen}"), start)
}

/// How many Stops seed has recorded as let through, in any session of the sandbox.
fn stops_let_through(root: &Path) -> usize {
    let Ok(dirs) = std::fs::read_dir(root.join("seed/sessions")) else {
        return 0;
    };
    dirs.filter_map(Result::ok)
        .filter_map(|d| std::fs::read_to_string(d.path().join("log.jsonl")).ok())
        .flat_map(|t| t.lines().map(String::from).collect::<Vec<_>>())
        .filter(|l| l.contains("\"hook\":\"Stop\"") && !l.contains("\"decision\":\"block\""))
        .count()
}
