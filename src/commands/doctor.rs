//! `seed doctor`: checks the installation end to end. It finds seed's entries in the Claude
//! Code settings files (or an enabled seed plugin), runs a canned payload of its event through
//! every installed command (each event, each matcher group) in the project, against the real
//! state directory (the one the hook will use, under a throwaway session `seed-doctor-<pid>`
//! whose files are removed afterwards, even on failure), checks each reply's shape for its
//! event, reads what seed said on stderr, and reports each command's result and latency; with
//! seed's server in `.mcp.json` it starts it and times `initialize`. The sequences the
//! configuration names must load. Hooks that failed the same way are told once, with what to
//! do about it. Any problem, or no installation at all, exits 1.

mod failsafe;
mod failures;
mod fix;
mod footprint;
mod mcp;
mod probe;
mod sequences;
mod servers;
mod shape;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};

use super::CmdResult;
use super::install::{self, Handler, Scope};
use crate::cli;

pub use probe::check_stderr;
pub use shape::check_reply;

/// Whether a settings value enables a plugin named `seed` (`enabledPlugins: {"seed@…": true}`).
fn enables_seed_plugin(v: &Value) -> bool {
    v.get("enabledPlugins")
        .and_then(Value::as_object)
        .is_some_and(|m| {
            m.iter()
                .any(|(k, on)| k.split('@').next() == Some("seed") && on != &json!(false))
        })
}

/// Run one installed handler on a canned payload of its event and note the result.
fn probe(
    checks: &mut Vec<Value>,
    scope: &str,
    h: &Handler,
    session: &str,
    project: &Path,
    safety: &failsafe::Wanted,
) -> bool {
    let payload = probe::canned(&h.event, h.matcher.as_deref(), session, project);
    let r = probe::run_command(&h.command, &payload, project);
    let mut problems = failsafe::check(h, safety);
    problems.extend(check_reply(&h.event, r.exit, &r.stdout));
    problems.extend(check_stderr(&r.stderr));
    let ok = problems.is_empty();
    checks.push(
        json!({ "scope": scope, "event": h.event, "matcher": h.matcher,
        "command": h.command, "ms": (r.ms * 100.0).round() / 100.0, "ok": ok,
        "problems": problems, "stdout": r.stdout.trim(), "stderr": r.stderr.trim() }),
    );
    ok
}

/// A handler running `command` for `event` in a group that sees every call.
fn handler(event: &str, command: String) -> Handler {
    let tools = install::HOOK_EVENTS
        .iter()
        .any(|(e, matcher)| *e == event && *matcher);
    Handler {
        event: event.to_string(),
        matcher: tools.then(|| "*".to_string()),
        command,
        timeout: None,
        on_failure: None,
    }
}

/// What the settings files say and how their seed handlers answered.
#[derive(Default)]
struct Probed {
    files: Vec<Value>,
    checks: Vec<Value>,
    ok: bool,
    plugin: bool,
}

/// Each scope's settings file: its seed entries, those it misses, and every handler run on
/// a canned payload (each event, each matcher group: a typo in any one command, a sequence
/// that does not exist or a flag `seed hook` does not take, fails the check).
fn probe_settings(session: &str, project: &Path, safety: &failsafe::Wanted) -> Probed {
    let mut p = Probed {
        ok: true,
        ..Probed::default()
    };
    for (scope, name) in [
        (Scope::User, "user"),
        (Scope::Project, "project"),
        (Scope::Local, "local"),
    ] {
        let Ok(path) = install::settings_path(scope) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let settings = match install::parse_settings(&path, &text) {
            Ok(v) => v,
            Err(e) => {
                p.ok = false;
                p.files
                    .push(json!({ "scope": name, "path": path, "error": e }));
                continue;
            }
        };
        p.plugin |= enables_seed_plugin(&settings);
        let entries = install::seed_handlers(&settings);
        let events: Vec<&str> = entries.iter().map(|h| h.event.as_str()).collect();
        let missing: Vec<&str> = install::HOOK_EVENTS
            .iter()
            .map(|(e, _)| *e)
            .filter(|e| !entries.is_empty() && !events.contains(e))
            .collect();
        p.files.push(
            json!({ "scope": name, "path": path, "entries": entries.len(), "missing": missing }),
        );
        for h in &entries {
            p.ok &= probe(&mut p.checks, name, h, session, project, safety);
        }
    }
    p
}

/// Each failed check gets the one thing to do about it, when there is one.
fn attach_fixes(checks: &mut [Value], exe: &str) {
    for c in checks.iter_mut().filter(|c| c["ok"] != true) {
        let problems: Vec<String> =
            serde_json::from_value(c["problems"].clone()).unwrap_or_default();
        let fix = fix::fix_for(
            &problems,
            c["stderr"].as_str().unwrap_or(""),
            c["command"].as_str().unwrap_or(""),
            c["scope"].as_str().unwrap_or(""),
            exe,
        );
        c["fix"] = json!(fix);
    }
}

pub fn run(args: cli::JsonArg) -> CmdResult {
    let session = format!("seed-doctor-{}", std::process::id());
    // Read before the probes run: what the hooks recorded, not what doctor's own runs add.
    let failures = crate::store::paths::state_dir()
        .ok()
        .map(|state| failures::check(&state));
    // The hooks run against the real state directory, so a broken one shows; what the
    // throwaway session leaves there is undone when `_cleanup` drops (also on an early return).
    let _cleanup = crate::store::paths::state_dir()
        .ok()
        .map(|state| footprint::Footprint::take(state, &session));
    let project = install::project_root();
    let safety = failsafe::Wanted::of(&project);
    let Probed {
        files,
        mut checks,
        mut ok,
        plugin,
    } = probe_settings(&session, &project, &safety);
    let in_settings = files.iter().any(|f| f["entries"].as_u64().unwrap_or(0) > 0);
    if !in_settings && plugin {
        // The plugin's hooks/hooks.json runs `seed hook EVENT` from PATH for every event.
        for (event, _) in install::HOOK_EVENTS {
            let h = handler(event, format!("seed hook {event}"));
            ok &= probe(&mut checks, "plugin", &h, &session, &project, &safety);
        }
    }
    let installed = in_settings || plugin;
    if !installed {
        ok = false;
        // Still show whether this executable answers at all.
        let exe: PathBuf = std::env::current_exe().unwrap_or_else(|_| "seed".into());
        let command = format!(
            "{} hook PreToolUse",
            install::shell_quote(&exe.display().to_string())
        );
        let h = handler("PreToolUse", command);
        probe(&mut checks, "self", &h, &session, &project, &safety);
    }
    let mcp = mcp::check(&project);
    if let Some(m) = &mcp {
        ok &= m["ok"] == true;
    }
    let sequences = sequences::check(&project);
    ok &= sequences.iter().all(|s| s["ok"] == true);
    let servers = servers::check(&project, &stepped(&project, &checks));
    ok &= servers::ok(&servers);
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "/path/to/seed".into());
    attach_fixes(&mut checks, &exe);
    let report = json!({ "ok": ok, "installed": installed, "plugin": plugin, "files": files,
        "sequences": sequences, "servers": servers, "checks": checks, "mcp": mcp,
        "failures": failures });
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        // What reaches the terminal shows control and bidi characters as escapes: hooks'
        // stderr, paths and names come from a project's files (a cloned repository's).
        let mut shown = report.clone();
        crate::report::sanitize::visible_json(&mut shown);
        let checks = shown["checks"].as_array().cloned().unwrap_or_default();
        print_text(&shown, &fix::groups(&checks, &exe))?;
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Each settings file read, its seed entries and the events it misses.
fn print_files(r: &Value) -> std::io::Result<()> {
    let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    for f in list(&r["files"]) {
        match f.get("error").and_then(Value::as_str) {
            Some(e) => outln!("✗ {} settings: {e}", s(&f["scope"]))?,
            None => outln!(
                "• {} settings {}: {} seed entr{}",
                s(&f["scope"]),
                s(&f["path"]),
                f["entries"],
                if f["entries"] == 1 { "y" } else { "ies" }
            )?,
        }
        for m in list(&f["missing"]) {
            outln!("  ✗ no entry for {}", s(&m))?;
        }
    }
    Ok(())
}

fn print_text(r: &Value, groups: &[fix::Group]) -> std::io::Result<()> {
    let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    print_files(r)?;
    if r["plugin"] == true {
        outln!("• the seed plugin is enabled (its hooks run `seed` from PATH)")?;
    }
    if r["installed"] == false {
        outln!(
            "✗ seed is not installed: no settings file has seed's hooks and no seed plugin is enabled (run `seed install`, or enable the plugin in hooks/hooks.json)"
        )?;
    }
    for q in list(&r["sequences"]) {
        if q["ok"] == true {
            outln!("✓ sequence {} (from {})", s(&q["sequence"]), s(&q["at"]))?;
        } else {
            outln!("✗ sequence {} (from {})", s(&q["sequence"]), s(&q["at"]))?;
            outln!("    {}", s(&q["problem"]))?;
            outln!("    fix: {}", s(&q["fix"]))?;
        }
    }
    print_servers(&r["servers"])?;
    let mut told = vec![false; groups.len()];
    for c in list(&r["checks"]) {
        let event = match c["matcher"].as_str() {
            Some(m) => format!("{} [{m}]", s(&c["event"])),
            None => s(&c["event"]),
        };
        if c["ok"] == true {
            outln!(
                "✓ {} {event:<22} {:>7.2} ms  {}",
                s(&c["scope"]),
                c["ms"].as_f64().unwrap_or(0.0),
                s(&c["command"])
            )?;
            continue;
        }
        let Some(at) = groups
            .iter()
            .position(|g| g.scope == s(&c["scope"]) && g.events.contains(&event))
        else {
            continue;
        };
        if std::mem::replace(&mut told[at], true) {
            continue;
        }
        print_group(&groups[at], &c)?;
    }
    for line in failures::lines(&r["failures"]) {
        outln!("{line}")?;
    }
    if let Some(m) = r.get("mcp").filter(|m| !m.is_null()) {
        let mark = if m["ok"] == true { "✓" } else { "✗" };
        outln!(
            "{mark} mcp  {:<22} {:>7.2} ms  {} {}",
            "initialize",
            m["ms"].as_f64().unwrap_or(0.0),
            s(&m["command"]),
            list(&m["args"]).iter().map(s).collect::<Vec<_>>().join(" ")
        )?;
        for p in list(&m["problems"]) {
            outln!("    {}", s(&p))?;
        }
    }
    outln!(
        "{}",
        if r["ok"] == true {
            "doctor: all good"
        } else {
            "doctor: problems found"
        }
    )
}

/// The sequences the hooks step: each installed command's `--sequence`, else (a command
/// without one) the configured list; each name once.
fn stepped(project: &Path, checks: &[Value]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut configured = false;
    for c in checks {
        match fix::sequence_of(c["command"].as_str().unwrap_or("")) {
            Some(list) => names.extend(list.split(',').map(|s| s.trim().to_string())),
            None => configured = true,
        }
    }
    if configured || checks.is_empty() {
        names.extend(
            sequences::configured(project)
                .map(|(_, l)| l)
                .unwrap_or_default(),
        );
    }
    let mut out: Vec<String> = Vec::new();
    for n in names.into_iter().filter(|n| !n.is_empty()) {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// Each MCP server a sequence needs, and what Claude Code's configuration says of it.
fn print_servers(r: &Value) -> std::io::Result<()> {
    use crate::report::sanitize::clean;
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    for p in r["problems"].as_array().into_iter().flatten() {
        outln!("! Claude Code configuration: {}", clean(&s(p), 1000))?;
    }
    for n in r["needs"].as_array().into_iter().flatten() {
        let mark = match n["provided"].as_str() {
            Some("yes") => "✓",
            Some("no") => "✗",
            _ => "!",
        };
        let (seq, line) = (clean(&s(&n["sequence"]), 200), clean(&s(&n["line"]), 1000));
        outln!("{mark} sequence {seq} {line}")?;
        if let Some(f) = n["fix"].as_str() {
            outln!("    fix: {f}")?;
        }
    }
    for n in r["deep_state"].as_array().into_iter().flatten() {
        let (seq, line) = (clean(&s(&n["sequence"]), 200), clean(&s(&n["line"]), 1000));
        outln!("! sequence {seq}: {line}")?;
    }
    Ok(())
}

/// Failed hooks told once: one of them as it ran (or, for several, which ones), what went
/// wrong, and the fix.
fn print_group(g: &fix::Group, first: &Value) -> std::io::Result<()> {
    let command = first["command"].as_str().unwrap_or("");
    match g.events.as_slice() {
        [one] => outln!(
            "✗ {} {one:<22} {:>7.2} ms  {command}",
            g.scope,
            first["ms"].as_f64().unwrap_or(0.0)
        )?,
        many => {
            outln!(
                "✗ {} {} hooks failed the same way: {}",
                g.scope,
                many.len(),
                many.join(", ")
            )?;
            outln!("    e.g. {command}")?;
        }
    }
    for p in &g.problems {
        outln!("    {p}")?;
    }
    // Lines seed wrote are among the problems already (`check_stderr`).
    let told = |l: &&str| l.starts_with("seed: ") && !check_stderr(l).is_empty();
    for l in g.stderr.lines().filter(|l| !told(l)) {
        outln!("    stderr: {l}")?;
    }
    if let Some(f) = &g.fix {
        outln!("    fix: {f}")?;
    }
    Ok(())
}
