//! The command line. Every subcommand's interface lives here; `commands/` implements them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "seed",
    version,
    about = "Mission control for agent workflows: a Claude Code hook that keeps the agent on its sequence, and a dashboard that shows where it is.",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Set a project up: pick a sequence, copy it for editing, name it in .seed.toml, install the hooks, check them.
    Init(InitArgs),
    /// Claude Code hook: read one hook payload on stdin, step the sequence, answer on stdout.
    Hook(HookArgs),
    /// Show the current step, layered progress, allowed tools and the next step.
    Status(StatusArgs),
    /// Print recovery suggestions for the current step.
    Recovery(StatusArgs),
    /// Why a call would be allowed or refused now: the verdict, every rule that decides it (file:line:column) and the shortest way to make it legal.
    Explain(ExplainArgs),
    /// List the built-in and project sequences.
    Sequences(JsonArg),
    /// Load and lint sequence files (all built-ins when no path is given).
    Validate(ValidateArgs),
    /// The dashboard: follow a live session in a side pane, or replay one.
    Tui(TuiArgs),
    /// Replay a session or a Claude Code transcript without a terminal.
    Replay(ReplayArgs),
    /// Render a frame of the dashboard to SVG, PNG, HTML, text or ANSI.
    Screenshot(ScreenshotArgs),
    /// Replay the bundled demo session in the dashboard.
    Demo(DemoArgs),
    /// Add seed's hooks to Claude Code settings.
    Install(InstallArgs),
    /// Remove seed's hooks (and only those) from Claude Code settings.
    Uninstall(InstallArgs),
    /// Check the installation end to end.
    Doctor(JsonArg),
    /// MCP server over stdio exposing seed's tools to the agent.
    Mcp(McpArgs),
    /// Draft a sequence from the workflow past sessions followed, and show what it would refuse.
    Learn(LearnArgs),
    /// Write a commented skeleton of a new sequence, ready to edit.
    New(NewArgs),
}

#[derive(Debug, Args)]
pub struct JsonArg {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// Sequence name or path (else project config, `SEED_SEQUENCE`, or none).
    #[arg(long, value_name = "NAME|PATH")]
    pub sequence: Option<String>,
    /// Override the enforcement of every sequence: enforce, advise or observe.
    #[arg(long, value_name = "MODE")]
    pub enforcement: Option<String>,
    /// What seed's own errors answer: open (no decision, the default) or closed (deny).
    #[arg(long, value_name = "open|closed")]
    pub fail: Option<String>,
    /// Hook event name; defaults to the payload's `hook_event_name`.
    pub event: Option<String>,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The call as the agent makes it: `Bash(command="git push")`, `mcp__starship__fly`,
    /// `Skill(skill="hope:intent")` (input values are JSON).
    #[arg(value_name = "CALL")]
    pub call: String,
    /// Sequence name or path (else each sequence of the session).
    #[arg(long, value_name = "NAME|PATH")]
    pub sequence: Option<String>,
    /// A file of event records (JSON lines, the records `seed hook` appends) to fold.
    #[arg(long, value_name = "FILE", conflicts_with = "session")]
    pub events: Option<PathBuf>,
    /// A session in the state directory (default: the calling Claude Code session, else the
    /// newest session of this directory's project).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Print JSON: `{"call", "sequences": [...]}`, one object per sequence.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Sequence name or path.
    #[arg(long, value_name = "NAME|PATH")]
    pub sequence: Option<String>,
    /// A file of event records (JSON lines, the records `seed hook` appends) to fold.
    #[arg(long, value_name = "FILE", conflicts_with = "session")]
    pub events: Option<PathBuf>,
    /// A session in the state directory (default: the calling Claude Code session, else the
    /// newest session of this directory's project).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Sequence files, directories or names.
    pub paths: Vec<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TuiArgs {
    /// Session to follow (default: the most recently active one for this project).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Sequence name or path (what-if when replaying).
    #[arg(long, value_name = "NAME|PATH")]
    pub sequence: Option<String>,
    /// Theme name.
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
    /// Replay a seed session id, a session log or a Claude Code transcript.
    #[arg(long, value_name = "SOURCE")]
    pub replay: Option<String>,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A seed session id, a session log or a Claude Code transcript `.jsonl`.
    pub source: String,
    /// Replay through this sequence instead (what-if).
    #[arg(long, value_name = "NAME|PATH")]
    pub sequence: Option<String>,
    /// Print a summary (the only mode without a terminal; implied by --json).
    #[arg(long)]
    pub summary: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ScreenshotArgs {
    /// A seed session id, a session log or a Claude Code transcript `.jsonl`.
    pub source: String,
    /// Render the frame after event N.
    #[arg(long, value_name = "N", conflicts_with = "at_end")]
    pub at: Option<usize>,
    /// Render the frame after the last event (the default).
    #[arg(long)]
    pub at_end: bool,
    /// Frame size as COLSxROWS.
    #[arg(long, default_value = "120x40", value_name = "COLSxROWS")]
    pub size: String,
    /// Theme name.
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
    /// Sequence name or path.
    #[arg(long, value_name = "NAME|PATH")]
    pub sequence: Option<String>,
    /// Output format.
    #[arg(long, value_name = "svg|png|html|txt|ansi")]
    pub format: String,
    /// Output file.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Theme name.
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The project's shared settings (`.claude/settings.json`).
    #[arg(long, group = "scope")]
    pub project: bool,
    /// Your user settings (`~/.claude/settings.json`).
    #[arg(long, group = "scope")]
    pub user: bool,
    /// The project's local, uncommitted settings (`.claude/settings.local.json`; in a git
    /// repository, install adds it to the project's `.gitignore` and uninstall leaves it there).
    #[arg(long, group = "scope")]
    pub local: bool,
    /// Sequence the hooks should use.
    #[arg(long, value_name = "NAME|PATH")]
    pub sequence: Option<String>,
    /// Also (un)register `seed mcp`: in `.mcp.json` with --project; with --user or --local,
    /// print the `claude mcp` command that does it.
    #[arg(long)]
    pub mcp: bool,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The seed executable the hooks and the MCP server run (default: `seed` from PATH, for
    /// every scope; install refuses when PATH has none).
    #[arg(long, value_name = "PATH")]
    pub bin: Option<String>,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Session whose state the tools report (default: `CLAUDE_CODE_SESSION_ID`, else the most recent).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Sequence name or path.
    #[arg(long, value_name = "NAME|PATH")]
    pub sequence: Option<String>,
}

#[derive(Debug, Args)]
pub struct LearnArgs {
    /// Claude Code transcripts or seed session logs, or folders of them (a project's folder
    /// under ~/.claude/projects/, seed's state directory).
    #[arg(required = true, value_name = "SOURCE")]
    pub sources: Vec<PathBuf>,
    /// Write the draft: the manifest to FILE (`.toml`), its diagram beside it (`.mmd`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Leave out activities and edges seen fewer times than this.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub min_count: u64,
    /// Leave out edges whose dependency (heuristics miner, -1 to 1) is lower than this.
    #[arg(
        long,
        value_name = "D",
        default_value_t = 0.5,
        allow_negative_numbers = true
    )]
    pub dependency: f64,
    /// The drafted sequence's name (default: the --out file's name, else `learned`).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Print the report and the draft as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// A Mermaid statechart and its TOML manifest (NAME.mmd + NAME.toml).
    Mermaid,
    /// seed 000's master-sequence JSON (NAME.json).
    Json,
    /// seed 003's workflow YAML (NAME.yaml).
    Yaml,
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The sequence's name: letters, digits, `_` and `-`.
    pub name: String,
    /// The dialect to write it in.
    #[arg(long, value_enum, default_value_t = DialectArg::Mermaid)]
    pub dialect: DialectArg,
    /// Where to write it (default: the project's `.seed/sequences/`, where sequences are
    /// looked up by name).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The sequence to keep the agent on (default: pick it from a list, on a terminal).
    #[arg(long, value_name = "NAME")]
    pub sequence: Option<String>,
    /// Install the hooks in the project's shared settings (`.claude/settings.json`).
    #[arg(long, group = "scope")]
    pub project: bool,
    /// Install the hooks in your user settings (`~/.claude/settings.json`).
    #[arg(long, group = "scope")]
    pub user: bool,
    /// Install the hooks in the project's local settings (`.claude/settings.local.json`; the default).
    #[arg(long, group = "scope")]
    pub local: bool,
    /// Also register seed's MCP server (done anyway when the sequence calls seed's tools).
    #[arg(long)]
    pub mcp: bool,
    /// Written into `.seed.toml` for every sequence: `enforce` refuses what the sequence
    /// forbids, `advise` only tells the agent, `observe` only records (default: the sequence's own).
    #[arg(long, value_name = "MODE", value_parser = ["enforce", "advise", "observe"])]
    pub enforcement: Option<String>,
    /// Say what would change, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The seed executable the hooks run (default: `seed` from PATH).
    #[arg(long, value_name = "PATH")]
    pub bin: Option<String>,
}
