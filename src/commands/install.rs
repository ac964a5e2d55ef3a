//! `seed install` / `seed uninstall`: merge seed's hook entries into a Claude Code settings
//! file, idempotently. seed's handlers are tagged with a shell comment (`# seed-managed`) so
//! they can be found again; every other key and hook is kept; a file that does not parse is
//! refused and left untouched; the previous file is kept as `<file>.seed-backup`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Map, Value, json};

use super::CmdResult;
use crate::cli;

/// The tag in every command seed installs.
pub const MARKER: &str = "# seed-managed";
/// Seconds Claude Code waits for seed. A hook answers in a few milliseconds; the margin is
/// for the rare hook that must fold a long log again (a new chart version, a lost snapshot).
pub const TIMEOUT_SECS: u64 = 30;
/// Events seed is installed for, and whether they take a tool matcher.
pub const HOOK_EVENTS: &[(&str, bool)] = &[
    ("SessionStart", false),
    ("UserPromptSubmit", false),
    ("PreToolUse", true),
    ("PostToolUse", true),
    ("PostToolUseFailure", true),
    ("Stop", false),
    ("SubagentStart", false),
    ("SubagentStop", false),
    ("PreCompact", false),
    ("SessionEnd", false),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Project,
    Local,
    User,
}

/// Quote for a POSIX shell when needed.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@,".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

pub fn hook_command(bin: &str, event: &str, sequence: Option<&str>) -> String {
    let seq = sequence
        .map(|s| format!(" --sequence {}", shell_quote(s)))
        .unwrap_or_default();
    format!("{} hook{seq} {event} {MARKER}", shell_quote(bin))
}

pub fn is_seed_handler(h: &Value) -> bool {
    h.get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| c.contains(MARKER))
}

fn desired_group(event: &str, matcher: bool, bin: &str, sequence: Option<&str>) -> Value {
    let handler = json!({
        "type": "command",
        "command": hook_command(bin, event, sequence),
        "timeout": TIMEOUT_SECS,
    });
    if matcher {
        json!({ "matcher": "*", "hooks": [handler] })
    } else {
        json!({ "hooks": [handler] })
    }
}

fn hooks_map(root: &mut Map<String, Value>) -> Result<&mut Map<String, Value>, String> {
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    hooks
        .as_object_mut()
        .ok_or_else(|| "`hooks` is not an object".to_string())
}

fn group_has_seed(g: &Value) -> bool {
    g.get("hooks")
        .and_then(Value::as_array)
        .is_some_and(|hs| hs.iter().any(is_seed_handler))
}

/// Add (or update in place) seed's entries. Running it twice changes nothing.
pub fn merge(settings: Value, bin: &str, sequence: Option<&str>) -> Result<Value, String> {
    let Value::Object(mut root) = settings else {
        return Err("the settings file is not a JSON object".into());
    };
    let hooks = hooks_map(&mut root)?;
    for &(event, matcher) in HOOK_EVENTS {
        let want = desired_group(event, matcher, bin, sequence);
        let list = hooks.entry(event).or_insert_with(|| json!([]));
        let arr = list
            .as_array_mut()
            .ok_or_else(|| format!("`hooks.{event}` is not an array"))?;
        match arr.iter().position(group_has_seed) {
            Some(first) => {
                arr[first] = want;
                let mut i = first + 1;
                while i < arr.len() {
                    if group_has_seed(&arr[i]) {
                        strip_seed(&mut arr[i]);
                        if group_is_empty(&arr[i]) {
                            arr.remove(i);
                            continue;
                        }
                    }
                    i += 1;
                }
            }
            None => arr.push(want),
        }
    }
    Ok(Value::Object(root))
}

fn strip_seed(group: &mut Value) -> usize {
    let Some(hs) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
        return 0;
    };
    let before = hs.len();
    hs.retain(|h| !is_seed_handler(h));
    before - hs.len()
}

fn group_is_empty(g: &Value) -> bool {
    g.get("hooks")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
}

/// Remove seed's handlers (and only those); groups, event lists and `hooks` left empty by
/// that are removed too. Returns the new settings and how many handlers went.
pub fn remove(settings: Value) -> Result<(Value, usize), String> {
    let Value::Object(mut root) = settings else {
        return Err("the settings file is not a JSON object".into());
    };
    let mut removed = 0;
    if let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) {
        for list in hooks.values_mut() {
            let Some(arr) = list.as_array_mut() else {
                continue;
            };
            arr.retain_mut(|g| {
                let n = strip_seed(g);
                removed += n;
                !(n > 0 && group_is_empty(g))
            });
        }
        if removed > 0 {
            hooks.retain(|_, v| !v.as_array().is_some_and(Vec::is_empty));
        }
    }
    if removed > 0
        && root
            .get("hooks")
            .is_some_and(|h| h.as_object().is_some_and(Map::is_empty))
    {
        root.remove("hooks");
    }
    Ok((Value::Object(root), removed))
}

/// seed's entries in a settings value: (event, command).
pub fn find_entries(settings: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, list) in hooks {
        for g in list.as_array().into_iter().flatten() {
            for h in g
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if is_seed_handler(h)
                    && let Some(c) = h.get("command").and_then(Value::as_str)
                {
                    out.push((event.clone(), c.to_string()));
                }
            }
        }
    }
    out
}

/// Parse a settings file's text: empty means `{}`; anything unparseable is refused.
pub fn parse_settings(path: &Path, text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(json!({}));
    }
    let v: Value = serde_json::from_str(text).map_err(|e| {
        format!(
            "{}:{}:{}: not valid JSON ({}); the file was left untouched",
            path.display(),
            e.line(),
            e.column(),
            e.to_string().split(" at line").next().unwrap_or("")
        )
    })?;
    if !v.is_object() {
        return Err(format!(
            "{}: not a JSON object; the file was left untouched",
            path.display()
        ));
    }
    Ok(v)
}

pub fn render(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
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

/// Write `text` over `path` through a temp file and a rename, keeping the file's mode.
fn replace_file(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.seed-tmp",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    ));
    std::fs::write(&tmp, text)?;
    if let Ok(m) = std::fs::metadata(path) {
        std::fs::set_permissions(&tmp, m.permissions())?;
    }
    std::fs::rename(&tmp, path)
}

pub fn run(args: cli::InstallArgs, uninstall: bool) -> CmdResult {
    let scope = scope_of(&args);
    let path = settings_path(scope)?;
    let bin = match (&args.bin, scope) {
        (Some(b), _) => b.clone(),
        (None, Scope::Project) => "seed".to_string(),
        (None, _) => std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "seed".into()),
    };
    let sequence = args.sequence.as_deref();
    update_file(&path, args.dry_run, uninstall, "hooks", |v| {
        if uninstall {
            remove(v).map(|r| r.0)
        } else {
            merge(v, &bin, sequence)
        }
    })?;
    if args.mcp {
        // `.mcp.json` is shared with the project: it names `seed` on PATH unless --bin says otherwise.
        let mcp_bin = args.bin.clone().unwrap_or_else(|| "seed".into());
        let mcp_path = project_root().join(".mcp.json");
        update_file(&mcp_path, args.dry_run, uninstall, "MCP server", |v| {
            if uninstall {
                Ok(super::install_mcp::remove(v).0)
            } else {
                super::install_mcp::merge(v, &mcp_bin)
            }
        })?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Apply `change` to a JSON file: refuse one that does not parse, leave it alone when nothing
/// changes, print a unified diff on a dry run, else keep a backup and replace it atomically.
fn update_file(
    path: &Path,
    dry_run: bool,
    uninstall: bool,
    what: &str,
    change: impl FnOnce(Value) -> Result<Value, String>,
) -> Result<(), super::CmdError> {
    let old = match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display()).into()),
    };
    let current = parse_settings(path, old.as_deref().unwrap_or(""))?;
    let before = current.clone();
    let new_value = change(current)?;
    let old_text = old.clone().unwrap_or_default();
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
    let shown = path.display().to_string();
    if !changed {
        outln!("no change: {shown} is already as seed wants it")?;
        return Ok(());
    }
    if dry_run {
        let diff = similar::TextDiff::from_lines(&old_text, &new_text);
        out!(
            "{}",
            diff.unified_diff().context_radius(3).header(&shown, &shown)
        )?;
        return Ok(());
    }
    if let Some(o) = &old {
        let backup = PathBuf::from(format!("{shown}.seed-backup"));
        std::fs::write(&backup, o)
            .map_err(|e| format!("{}: cannot write backup: {e}", backup.display()))?;
    }
    replace_file(path, &new_text).map_err(|e| format!("{shown}: cannot write: {e}"))?;
    let verb = if uninstall {
        "removed seed's"
    } else {
        "installed seed's"
    };
    let prep = if uninstall { "from" } else { "in" };
    outln!("{verb} {what} {prep} {shown}")?;
    Ok(())
}
