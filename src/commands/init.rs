//! `seed init`: from nothing to a sequence the hooks enforce. Pick a sequence (a list on a
//! terminal, else `--sequence`), copy a built-in into the project's `.seed/sequences/` for
//! editing, name it in `.seed.toml`, install the hooks (and seed's MCP server when the sequence
//! calls seed's tools) through `seed install`, check it all through `seed doctor`, and say how to
//! open the dashboard. Run again, it changes nothing; `--dry-run` says what it would do.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use super::CmdResult;
use super::install::project_root;
use crate::cli;
use crate::config::PROJECT_FILE;
use crate::dialects;
use crate::report::sanitize::clean;

pub fn run(args: cli::InitArgs) -> CmdResult {
    let project = project_root();
    let name = match &args.sequence {
        Some(n) => n.clone(),
        None => match pick()? {
            Some(n) => n,
            None => {
                eprintln!("seed: init cancelled: nothing was changed");
                return Ok(ExitCode::from(1));
            }
        },
    };
    let dir = project.join(".seed").join("sequences");
    let chart = find(&name, &dir)?;
    // A configuration that does not parse stops init before anything is written.
    let config = project.join(PROJECT_FILE);
    if let Ok(text) = std::fs::read_to_string(&config) {
        says(&text, &name, None)?;
    }
    outln!(
        "sequence:  {} — {}",
        clean(&name, 80),
        clean(&chart.description, 160)
    )?;
    copy_builtin(&name, &dir, args.dry_run)?;
    write_config(&config, &name, args.enforcement.as_deref(), args.dry_run)?;
    let mcp = args.mcp || uses_seeds_tools(&chart);
    let install = cli::InstallArgs {
        project: args.project,
        user: args.user,
        local: args.local,
        sequence: None,
        mcp,
        dry_run: args.dry_run,
        bin: args.bin.clone(),
    };
    let code = super::install::run(install, false)?;
    if code != ExitCode::SUCCESS {
        return Ok(code);
    }
    if args.dry_run {
        outln!("--dry-run: nothing was written, and doctor did not run")?;
        return Ok(ExitCode::SUCCESS);
    }
    let doctor = super::doctor::run(cli::JsonArg { json: false })?;
    outln!("\nopen the dashboard beside Claude Code:  seed tui")?;
    Ok(doctor)
}

/// The sequence to set up: a built-in, or one the project already has.
fn find(name: &str, dir: &Path) -> Result<crate::engine::Chart, String> {
    if !dialects::skeletons::is_name(name) {
        return Err(format!(
            "--sequence {name:?}: name a sequence (`seed sequences` lists them), not a file"
        ));
    }
    // A built-in is described by itself: the project's copy may be half there until init
    // copies the rest (doctor checks the copy the hooks run).
    let found = match dialects::builtin(name) {
        Some(b) => b,
        None => dialects::resolve(name, &[dir.to_path_buf()]),
    };
    found.map(|l| l.chart).map_err(|e| e.to_string())
}

/// The list on a terminal: the everyday sequences first, then the others, then the project's.
fn pick() -> Result<Option<String>, String> {
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let names = offered();
    if !terminal {
        return Err(format!(
            "pick a sequence with --sequence NAME (not a terminal, so no list to pick from): {}",
            names
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let items = names
        .into_iter()
        .map(|(name, about)| crate::tui::pick::Choice { name, about })
        .collect::<Vec<_>>();
    let picker = crate::tui::pick::Picker::new("Pick the sequence to keep Claude Code on:", items);
    let chosen =
        crate::tui::pick::run(picker.clone()).map_err(|e| format!("cannot show the list: {e}"))?;
    Ok(chosen.map(|i| picker.items[i].name.clone()))
}

/// Every sequence with its one-line description, in the order the list offers them.
pub fn offered() -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = crate::report::sequences::list()
        .into_iter()
        .flatten()
        .map(|i| (i.name, first_line(&i.description)))
        .collect();
    let rank = |n: &str| {
        dialects::EVERYDAY
            .iter()
            .position(|e| *e == n)
            .unwrap_or(dialects::EVERYDAY.len())
    };
    all.sort_by(|a, b| rank(&a.0).cmp(&rank(&b.0)).then(a.0.cmp(&b.0)));
    all
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").trim().to_string()
}

/// A built-in's files into the project's sequences folder, where the hooks find it by name
/// before the built-in: the copy is the user's to edit. A copy already there is kept.
fn copy_builtin(name: &str, dir: &Path, dry_run: bool) -> Result<(), String> {
    let files = dialects::builtin_files(name);
    if files.is_empty() {
        outln!("sequence:  the project's own ({})", dir.display()).map_err(|e| e.to_string())?;
        return Ok(());
    }
    for (rel, text) in files {
        let path = dir.join(rel);
        let shown = path.display().to_string();
        let line = match std::fs::read_to_string(&path) {
            Ok(t) if t == text => format!("no change: {shown} is the built-in's"),
            Ok(_) => format!("kept:      {shown} (your edited copy)"),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if dry_run {
                    format!("would copy: {shown}")
                } else {
                    write(&path, text)?;
                    format!("copied:    {shown} (edit it: the hooks run this copy)")
                }
            }
            Err(e) => return Err(format!("{shown}: cannot read: {e}")),
        };
        outln!("{line}").map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("{}: cannot create: {e}", parent.display()))?;
    }
    super::write_new_file(path, text)
}

/// `.seed.toml` names the sequence (and the enforcement, when one is given): written when
/// missing, its `sequence`/`sequences` (and `enforcement`) line replaced when it says another
/// (every other line kept), left alone when it already says so.
fn write_config(
    path: &Path,
    name: &str,
    enforcement: Option<&str>,
    dry_run: bool,
) -> Result<(), String> {
    let shown = path.display().to_string();
    let old = match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("{shown}: cannot read: {e}")),
    };
    let mode_line = enforcement.map(|m| format!("enforcement = \"{m}\""));
    let wanted = match &mode_line {
        Some(l) => format!("sequence = \"{name}\"\n{l}"),
        None => format!("sequence = \"{name}\""),
    };
    let new = match &old {
        None => format!(
            "# seed: the sequence Claude Code's hooks keep the agent on (its files are in\n# .seed/sequences/; `seed sequences` lists the others). enforcement: enforce refuses,\n# advise only tells the agent, observe only records.\n{wanted}\n"
        ),
        Some(text) => {
            if says(text, name, enforcement)? {
                outln!(
                    "no change: {shown} already says {}",
                    wanted.replace('\n', ", ")
                )
                .map_err(|e| e.to_string())?;
                return Ok(());
            }
            let mut edited = with_line(
                text,
                &["sequence", "sequences"],
                &format!("sequence = \"{name}\""),
            );
            if let Some(l) = &mode_line {
                edited = with_line(&edited, &["enforcement"], l);
            }
            if !says(&edited, name, enforcement).unwrap_or(false) {
                return Err(format!(
                    "{shown}: cannot set the sequence in it; write `{}` there yourself",
                    wanted.replace('\n', "` and `")
                ));
            }
            edited
        }
    };
    if dry_run {
        let diff = similar::TextDiff::from_lines(old.as_deref().unwrap_or(""), &new);
        out!(
            "{}",
            diff.unified_diff().context_radius(2).header(&shown, &shown)
        )
        .map_err(|e| e.to_string())?;
        return Ok(());
    }
    super::install::replace_file(path, &new).map_err(|e| format!("{shown}: cannot write: {e}"))?;
    outln!("wrote:     {shown} ({})", wanted.replace('\n', ", ")).map_err(|e| e.to_string())?;
    Ok(())
}

/// The configuration names exactly this sequence (with this enforcement, when one is given).
fn says(text: &str, name: &str, enforcement: Option<&str>) -> Result<bool, String> {
    let t: toml::Table = toml::from_str(text).map_err(|e| {
        format!(
            "{PROJECT_FILE} does not parse ({}); fix it first",
            e.message().trim()
        )
    })?;
    let one = |v: &toml::Value| v.as_str() == Some(name);
    let named = match (t.get("sequence"), t.get("sequences")) {
        (Some(s), None) => one(s),
        (None, Some(toml::Value::Array(a))) => a.len() == 1 && one(&a[0]),
        _ => false,
    };
    let mode = enforcement.is_none_or(|m| t.get("enforcement").and_then(|v| v.as_str()) == Some(m));
    Ok(named && mode)
}

/// `text` with its top-level entries of `keys` (a list may span lines) replaced by `line`, or
/// that line added at the top.
fn with_line(text: &str, keys: &[&str], line: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut in_table = false;
    let mut skipping_list = false;
    let mut placed = false;
    for l in text.lines() {
        let t = l.trim_start();
        if skipping_list {
            skipping_list = !t.contains(']');
            continue;
        }
        in_table |= t.starts_with('[');
        let key = t.split('=').next().unwrap_or("").trim();
        if !in_table && t.contains('=') && keys.contains(&key) {
            if !placed {
                out.push(line.to_string());
                placed = true;
            }
            skipping_list = key == "sequences" && t.contains('[') && !t.contains(']');
            continue;
        }
        out.push(l.to_string());
    }
    if !placed {
        out.insert(0, line.to_string());
    }
    let mut s = out.join("\n");
    s.push('\n');
    s
}

/// The sequence calls seed's own tools (`seed.who_am_i`…): its MCP server is needed.
fn uses_seeds_tools(chart: &crate::engine::Chart) -> bool {
    chart
        .mentioned_patterns()
        .iter()
        .any(|p| p.alts.iter().any(|a| a.glob.starts_with("seed.")))
}
