//! `seed install` / `seed uninstall`: merge seed's hook entries into a Claude Code settings
//! file (and with `--project --mcp` its server into `.mcp.json`; other scopes get the `claude
//! mcp` command printed), idempotently. seed's handlers are tagged with a shell comment
//! (`# seed-managed`) so they can be found again; every other key and hook is kept; a file
//! that does not parse is refused and left untouched; your file as it was before seed changed
//! it is kept as `<file>.seed-backup`, and a file seed made is removed again when nothing else
//! was put in it. Every file is prepared first and written only when all of them can be: an
//! install is whole or not at all. An install that could not work is refused before anything
//! is written: a sequence that does not load, hooks that run a `seed` the shell cannot find.
//! `--local` also keeps the local settings out of git (`gitignore`).

pub mod checks;
mod files;
pub mod gitignore;
mod hooks;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use super::CmdResult;
use crate::cli;

pub use files::{real_target, replace_file, replace_file_like};
pub use hooks::{
    BLOCK_ON_FAILURE, HOOK_BIN, HOOK_EVENTS, Handler, MARKER, TIMEOUT_SECS, find_entries,
    hook_command, is_hook_bin, is_seed_handler, merge, parse_settings, remove, render,
    seed_handlers, shell_quote,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Project,
    Local,
    User,
}

/// The project root: `$CLAUDE_PROJECT_DIR`, else the nearest ancestor of the current
/// directory with `.claude/` or `.git`, else the current directory.
pub fn project_root() -> PathBuf {
    if let Some(p) = std::env::var_os("CLAUDE_PROJECT_DIR").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    cwd.ancestors()
        .find(|d| d.join(".claude").is_dir() || d.join(".git").exists())
        .map(Path::to_path_buf)
        .unwrap_or(cwd)
}

/// `~/.claude` (or `$CLAUDE_CONFIG_DIR`).
pub fn user_claude_dir() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".claude"))
}

pub fn settings_path(scope: Scope) -> Result<PathBuf, String> {
    Ok(match scope {
        Scope::Project => project_root().join(".claude").join("settings.json"),
        Scope::Local => project_root().join(".claude").join("settings.local.json"),
        Scope::User => user_claude_dir()
            .ok_or("no home directory: set HOME or CLAUDE_CONFIG_DIR")?
            .join("settings.json"),
    })
}

fn scope_of(args: &cli::InstallArgs) -> Scope {
    if args.user {
        Scope::User
    } else if args.project {
        Scope::Project
    } else {
        Scope::Local
    }
}

/// The command every file of one install starts seed with, hooks and MCP server alike:
/// `--bin` when given, else `seed`, found on `PATH` when Claude Code runs it. A path pinned
/// into a shared file (the project's settings, `.mcp.json`) breaks for everyone else, and one
/// name for both keeps the hooks and the MCP server the same executable across upgrades.
pub fn command_bin(bin: Option<&str>) -> String {
    bin.map(String::from).unwrap_or_else(|| "seed".into())
}

/// The `seed` a shell would run: the first executable `seed` on `PATH`.
pub fn seed_on_path() -> Option<PathBuf> {
    let name = if cfg!(windows) { "seed.exe" } else { "seed" };
    on_path(name)
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

/// What the hooks run: the small `seed-hook` when it sits next to the `seed` they would run
/// (the same build; it starts faster, see the README's benchmarks), else `bin` with `hook`.
/// For plain `seed`, the `seed-hook` a shell finds first must be that sibling.
pub fn hook_bin(bin: &str) -> String {
    let seed = match bin {
        "seed" => seed_on_path(),
        path => Some(PathBuf::from(path)),
    };
    let sibling = seed.and_then(|s| Some(s.parent()?.join(HOOK_BIN)));
    match sibling.filter(|h| is_executable(h)) {
        Some(h) if bin == "seed" => match on_path(HOOK_BIN) {
            Some(first) if first == h => HOOK_BIN.to_string(),
            _ => bin.to_string(),
        },
        Some(h) => h.display().to_string(),
        None => bin.to_string(),
    }
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// A note when the hooks would run another `seed` than this one (none at all is refused:
/// `checks::on_path`).
fn path_note(bin: &str) -> Option<String> {
    if bin != "seed" {
        return None;
    }
    let me = std::env::current_exe().ok()?;
    let p = seed_on_path()?;
    (std::fs::canonicalize(&p).ok() != std::fs::canonicalize(&me).ok()).then(|| {
        format!(
            "seed: note: the hooks will run {} (the `seed` on PATH), not this executable ({})",
            p.display(),
            me.display()
        )
    })
}

/// One file's change, prepared and not yet written.
struct Change {
    path: PathBuf,
    what: &'static str,
    old: Option<String>,
    new_text: String,
    changed: bool,
    /// Keep the old text as `<file>.seed-backup` (see `wants_backup`).
    backup: bool,
    /// Remove the file instead of writing it (see `seeds_own_file`).
    delete: bool,
    /// What to say once it is written, instead of naming seed's entries (a `.gitignore`).
    said: Option<String>,
}

fn backup_path(path: &Path) -> PathBuf {
    PathBuf::from(format!("{}.seed-backup", path.display()))
}

/// The backup keeps your file as it was before seed changed it: it is written only when the
/// file holds none of seed's entries (your own version). A file that already holds seed's
/// entries is seed's own version, never a backup: written over an existing backup (a second
/// install, an uninstall) it would lose your original, and without one it is no original.
fn wants_backup(old: Option<&Value>, holds_seed: impl Fn(&Value) -> bool) -> bool {
    old.is_some_and(|v| !holds_seed(v))
}

/// Whether an uninstall that leaves `{}` should remove the file: it is seed's own when seed
/// never saw a version of it without its entries, which is when there is no backup (a file
/// seed created has none, since there was nothing to keep). A link (a dotfiles repository) is
/// yours whatever it holds, and is kept.
fn seeds_own_file(path: &Path, left: &Value) -> bool {
    let regular = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
    let backup = std::fs::symlink_metadata(backup_path(path)).is_ok();
    regular && !backup && left.as_object().is_some_and(serde_json::Map::is_empty)
}

pub fn run(args: cli::InstallArgs, uninstall: bool) -> CmdResult {
    let scope = scope_of(&args);
    let path = settings_path(scope)?;
    let bin = command_bin(args.bin.as_deref());
    let sequence = args.sequence.as_deref();
    if !uninstall {
        if let Some(list) = sequence {
            checks::sequences(list, &project_root())
                .map_err(|e| format!("{e}; nothing was written"))?;
        }
        checks::on_path(&bin)?;
    }
    // Every file is read, parsed and changed in memory first: one that cannot be (bad JSON,
    // a foreign `seed` server) stops the install before anything is written.
    let fail_closed = !uninstall && checks::fails_closed(sequence, &project_root());
    let holds_hooks = |v: &Value| !find_entries(v).is_empty();
    let mut changes = vec![prepare(&path, uninstall, "hooks", holds_hooks, |v| {
        if uninstall {
            remove(v).map(|r| r.0)
        } else {
            merge(v, &hook_bin(&bin), sequence, fail_closed)
        }
    })?];
    // Claude Code keeps a user's or local MCP server in its own `~/.claude.json`, which it
    // rewrites while it runs: seed says how to add it rather than write a file it would race
    // with, or the project's shared `.mcp.json`, which is not that scope.
    let mcp_note = args
        .mcp
        .then(|| super::install_mcp::scope_note(scope, &bin, sequence, uninstall))
        .flatten();
    if args.mcp && mcp_note.is_none() {
        let mcp_path = project_root().join(".mcp.json");
        let holds_server = super::install_mcp::has_seed_server;
        changes.push(prepare(
            &mcp_path,
            uninstall,
            "MCP server",
            holds_server,
            |v| {
                if uninstall {
                    Ok(super::install_mcp::remove(v).0)
                } else {
                    super::install_mcp::merge(v, &bin, sequence)
                }
            },
        )?);
    }
    if scope == Scope::Local && !uninstall {
        changes.extend(gitignore_change()?);
    }
    if args.dry_run {
        for c in &changes {
            show(c)?;
        }
        if let Some(note) = &mcp_note {
            outln!("{note}")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !uninstall && let Some(note) = path_note(&bin) {
        eprintln!("{note}");
    }
    let mut written: Vec<&Change> = Vec::new();
    for c in &changes {
        if let Err(e) = commit(c, uninstall) {
            // Put back what this run already wrote, so the install stays all or nothing.
            for w in written {
                let _ = match &w.old {
                    Some(old) => replace_file(&w.path, old),
                    None => real_target(&w.path).and_then(std::fs::remove_file),
                };
            }
            return Err(e);
        }
        written.push(c);
    }
    if let Some(note) = &mcp_note {
        outln!("{note}")?;
    }
    if !uninstall {
        for w in checks::missing_servers(sequence, &project_root()) {
            eprintln!("{w}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The project's `.gitignore` with the local settings in it, when it needs them (see
/// `gitignore`).
fn gitignore_change() -> Result<Option<Change>, super::CmdError> {
    let root = project_root();
    let path = root.join(".gitignore");
    let old = match std::fs::read_to_string(&path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display()).into()),
    };
    let Some(new_text) = gitignore::wanted(&root, old.as_deref()) else {
        return Ok(None);
    };
    Ok(Some(Change {
        said: Some(format!(
            "added {} to {} (local settings stay out of git)",
            gitignore::LINE,
            path.display()
        )),
        path,
        what: ".gitignore line",
        old,
        new_text,
        changed: true,
        backup: false,
        delete: false,
    }))
}

/// Read `path`, refuse it when it does not parse, and apply `change` in memory. `holds_seed`
/// tells whether a value of this file already holds seed's entries.
fn prepare(
    path: &Path,
    uninstall: bool,
    what: &'static str,
    holds_seed: impl Fn(&Value) -> bool,
    change: impl FnOnce(Value) -> Result<Value, String>,
) -> Result<Change, super::CmdError> {
    let old = match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display()).into()),
    };
    let current = parse_settings(path, old.as_deref().unwrap_or(""))?;
    let before = current.clone();
    let backup = wants_backup(old.as_ref().map(|_| &before), holds_seed);
    let new_value = change(current).map_err(|e| format!("{}: {e}", path.display()))?;
    let delete = uninstall && old.is_some() && seeds_own_file(path, &new_value);
    let new_text = if uninstall && old.is_none() {
        String::new()
    } else {
        render(&new_value)
    };
    // Compared as values: a file formatted differently but already right is left alone.
    let changed = match &old {
        Some(_) => before != new_value,
        None => !uninstall,
    };
    Ok(Change {
        path: path.to_path_buf(),
        what,
        old,
        new_text,
        changed,
        backup,
        delete: delete && changed,
        said: None,
    })
}

/// `--dry-run`: the unified diff, or that nothing would change.
fn show(c: &Change) -> std::io::Result<()> {
    let shown = c.path.display().to_string();
    if !c.changed {
        return outln!("no change: {shown} is already as seed wants it");
    }
    if c.delete {
        return outln!("remove {shown}: it holds nothing but seed's {}", c.what);
    }
    let old_text = c.old.clone().unwrap_or_default();
    let diff = similar::TextDiff::from_lines(&old_text, &c.new_text);
    out!(
        "{}",
        diff.unified_diff().context_radius(3).header(&shown, &shown)
    )
}

/// Keep a backup, then replace the file atomically (through a symlink, which stays).
fn commit(c: &Change, uninstall: bool) -> Result<(), super::CmdError> {
    let shown = c.path.display().to_string();
    if !c.changed {
        outln!("no change: {shown} is already as seed wants it")?;
        return Ok(());
    }
    if c.delete {
        std::fs::remove_file(&c.path).map_err(|e| format!("{shown}: cannot remove: {e}"))?;
        outln!("removed {shown}: it held nothing but seed's {}", c.what)?;
        return Ok(());
    }
    if let Some(o) = c.old.as_ref().filter(|_| c.backup) {
        let backup = backup_path(&c.path);
        replace_file_like(&backup, o, Some(&c.path))
            .map_err(|e| format!("{}: cannot write backup: {e}", backup.display()))?;
    }
    replace_file(&c.path, &c.new_text).map_err(|e| format!("{shown}: cannot write: {e}"))?;
    if let Some(said) = &c.said {
        outln!("{said}")?;
        return Ok(());
    }
    let (verb, prep) = if uninstall {
        ("removed seed's", "from")
    } else {
        ("installed seed's", "in")
    };
    outln!("{verb} {} {prep} {shown}", c.what)?;
    Ok(())
}
