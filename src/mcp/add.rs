//! `add_to_seed`: how to extend seed, and a check of a proposed sequence — one file, or a
//! Mermaid diagram with its manifest, checked together (saved only when asked, with the store's
//! permissions, as new files that change no existing sequence).

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::tools::{McpContext, ToolError, ToolOutput, str_arg};
use crate::config;
use crate::dialects;
use crate::report::validation as validate;
use crate::store::sessions;

const ADD_HELP: &str = "How to add to seed:\n\
- A sequence: write a file in one of the dialects — master-sequence JSON (`.json`: tool_transitions, state_constraints, state_readers, progress_layers), workflow YAML (`.yaml`: nodes, preconditions, consequences, endings) or a Mermaid stateDiagram-v2 (`.mmd`, with a `.toml` manifest for bindings) — into the project's `.seed/sequences/` or the state directory's `sequences/`, then run `seed validate FILE`. Pass `text` and `file_name` to this tool to validate a proposal without writing it (for Mermaid, the diagram as `text` and its manifest as `manifest`, whose `diagram` names `file_name`); with `write: true` a valid proposal is saved as a new sequence (never over an existing file, a built-in or a sequence a session is running).\n\
- A content file: `who_am_i.seed`, `what_do_i_do.seed` (plain text) or `how_do_i.seed` (one `## component` section per component) in the state directory; seed serves them from this server's tools.";

/// The extensions a proposal's `file_name` may have, and what each holds.
const ACCEPTED: &str = ".json (master sequence), .yaml or .yml (workflow) or .mmd (Mermaid diagram, its TOML manifest as `manifest`)";

/// A proposed sequence: its files (name, text), the first being the one validated and saved
/// first.
struct Proposal {
    files: Vec<(String, String)>,
}

/// The files of a proposal, checked as arguments: a plain name with an extension of a dialect;
/// a manifest only beside a Mermaid diagram, saved as `<stem>.toml`.
fn proposal(
    file_name: String,
    text: String,
    manifest: Option<String>,
) -> Result<Proposal, ToolError> {
    if file_name.contains(['/', '\\']) || file_name.starts_with('.') {
        return Err(ToolError::InvalidParams(
            "`file_name` must be a plain file name such as my_flow.json".into(),
        ));
    }
    let path = Path::new(&file_name);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    match ext {
        "json" | "yaml" | "yml" | "mmd" if !stem.is_empty() => {}
        "toml" => {
            return Err(ToolError::InvalidParams(format!(
                "`file_name` names the Mermaid diagram, not its manifest: pass the diagram as `text` with file_name {stem}.mmd and the manifest as `manifest`"
            )));
        }
        _ => {
            return Err(ToolError::InvalidParams(format!(
                "`file_name` must end in {ACCEPTED}, got `{file_name}`"
            )));
        }
    }
    let mut files = vec![(file_name.clone(), text)];
    match manifest {
        Some(m) if ext == "mmd" => files.push((format!("{stem}.toml"), m)),
        Some(_) => {
            return Err(ToolError::InvalidParams(format!(
                "`manifest` goes with a Mermaid diagram (a file_name ending in .mmd), not `{file_name}`"
            )));
        }
        None => {}
    }
    Ok(Proposal { files })
}

pub fn add_to_seed(ctx: &McpContext, args: &Map<String, Value>) -> Result<ToolOutput, ToolError> {
    let text = str_arg(args, "text")?;
    let file_name = str_arg(args, "file_name")?;
    let manifest = str_arg(args, "manifest")?;
    let write = match args.get("write") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(ToolError::InvalidParams(format!(
                "`write` must be a boolean, got {}",
                super::params::kind(other)
            )));
        }
    };
    let Some(text) = text else {
        if manifest.is_some() {
            return Err(ToolError::InvalidParams(
                "`manifest` needs its diagram: pass the Mermaid diagram as `text`".into(),
            ));
        }
        return Ok(ToolOutput::ok(
            ADD_HELP.to_string(),
            json!({ "help": ADD_HELP }),
        ));
    };
    let file_name = file_name.unwrap_or_else(|| "proposal.json".into());
    let proposal = proposal(file_name, text, manifest)?;
    // A Mermaid sequence with a manifest is checked as one: the manifest, reading the diagram.
    let (diagram_name, diagram) = &proposal.files[0];
    let (checked, checked_text) = proposal.files.last().unwrap_or(&proposal.files[0]);
    let asked = RefCell::new(Vec::new());
    let resolve = |rel: &str| {
        asked.borrow_mut().push(rel.to_string());
        (rel == diagram_name).then(|| diagram.clone())
    };
    let loaded = dialects::load_text(checked, checked_text, &resolve);
    let chart_name = loaded.as_ref().ok().map(|l| l.chart.name.clone());
    let report = validate::check(checked.clone(), loaded);
    let ok = report.errors() == 0;
    let mut out = validate::render_text(std::slice::from_ref(&report));
    if let Some(other) = asked.borrow().iter().find(|r| *r != diagram_name) {
        out.push_str(&format!(
            "the manifest reads `{other}`, but a proposal is one diagram and its manifest: set `diagram = \"{diagram_name}\"`\n"
        ));
    }
    let mut written = Vec::new();
    let mut refused = None;
    if write && ok {
        match save(ctx, &proposal, chart_name.as_deref()) {
            Ok(paths) => {
                for p in &paths {
                    out.push_str(&format!("saved to {}\n", p.display()));
                }
                written = paths.iter().map(|p| p.display().to_string()).collect();
            }
            Err(why) => {
                out.push_str(&format!("not saved: {why}\n"));
                refused = Some(why);
            }
        }
    } else if write {
        out.push_str("not saved: fix the errors first\n");
    } else {
        out.push_str("not saved (pass write: true to save it)\n");
    }
    // `written`: the file saved (the diagram, for a Mermaid proposal), `files`: every file.
    let mut structured = json!({
        "valid": ok,
        "report": report,
        "written": written.first(),
        "files": written,
    });
    if let Some(why) = &refused {
        structured["refused"] = json!(why);
    }
    // Like `seed validate FILE`: a proposal with errors is an error result; so is a write that
    // was asked for and refused.
    Ok(ToolOutput {
        text: out,
        structured: Some(structured),
        is_error: !ok || refused.is_some(),
    })
}

/// Save a valid proposal under the state directory's `sequences/`, every file or none, or say
/// why not.
fn save(
    ctx: &McpContext,
    proposal: &Proposal,
    chart_name: Option<&str>,
) -> Result<Vec<PathBuf>, String> {
    let state = ctx
        .state_dir
        .as_ref()
        .ok_or("no state directory: set SEED_HOME to save sequences")?;
    let dir = state.join("sequences");
    let file_name = &proposal.files[0].0;
    let stem = Path::new(file_name)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(file_name);
    let mut names = vec![stem];
    names.extend(chart_name.filter(|n| *n != stem));
    for name in names {
        if let Some(why) = taken(ctx, state, &dir, name) {
            return Err(why);
        }
    }
    // The store's rules: 0700 directories, 0600 files, no foreign symlink at any level.
    let real = crate::store::paths::prepare_state(state).map_err(|e| e.to_string())?;
    let dir = real.join("sequences");
    crate::store::paths::ensure_dir_in(&real, &dir).map_err(|e| e.to_string())?;
    let mut saved: Vec<PathBuf> = Vec::new();
    for (name, text) in &proposal.files {
        let path = dir.join(name);
        if let Err(e) = create_new(&path, text.as_bytes()) {
            // All or nothing: a diagram without the manifest it was checked with is another
            // sequence than the one validated.
            for p in &saved {
                let _ = std::fs::remove_file(p);
            }
            return Err(match e.kind() {
                std::io::ErrorKind::AlreadyExists => format!(
                    "{} already exists; seed never overwrites a sequence (choose another file_name)",
                    path.display()
                ),
                _ => format!("{}: {e}", path.display()),
            });
        }
        saved.push(path);
    }
    Ok(saved)
}

/// Whether two sequence names are one on a file system that ignores case (macOS's and
/// Windows' defaults): `Compound_Intelligence.json` would be `compound_intelligence.json`.
fn same_name(a: &str, b: &str) -> bool {
    a == b || a.to_lowercase() == b.to_lowercase()
}

/// Why a sequence called `name` may not be added: a saved file would shadow or stand beside a
/// sequence of that name, and the agent could replace the very sequence that guides it. Names
/// compare without case in every rule, as such a file system would.
fn taken(ctx: &McpContext, state: &Path, dir: &Path, name: &str) -> Option<String> {
    if let Some(b) = dialects::builtin_names()
        .iter()
        .find(|b| same_name(b, name))
    {
        let spelt = match b == name {
            true => String::new(),
            false => format!(" (`{b}`: names compare without case)"),
        };
        return Some(format!(
            "`{name}` is a built-in sequence{spelt}; a saved file would shadow it (choose another name)"
        ));
    }
    let same_stem = std::fs::read_dir(dir).ok().and_then(|rd| {
        rd.flatten().map(|e| e.file_name()).find(|f| {
            Path::new(f)
                .file_stem()
                .and_then(|s| s.to_str())
                .is_some_and(|s| same_name(s, name))
        })
    });
    if let Some(f) = same_stem {
        return Some(format!(
            "{} already holds a sequence `{name}` ({}); seed never replaces one (choose another name)",
            dir.display(),
            f.to_string_lossy()
        ));
    }
    let active = |n: &str| same_name(n, name);
    let configured = ctx
        .sequence
        .clone()
        .or_else(|| super::guide::configured(ctx).ok().flatten());
    match mentioned(ctx) {
        // The active one has its own message below.
        Ok(m) => {
            if let Some((_, place)) = m
                .iter()
                .find(|(n, _)| active(n) && !configured.as_deref().is_some_and(active))
            {
                return Some(format!(
                    "`{name}` is named in {place}; a saved file would become that sequence (choose another name)"
                ));
            }
        }
        Err(why) => return Some(why),
    }
    let running = sessions::list(state)
        .ok()
        .into_iter()
        .flatten()
        .find(|s| s.sequences.iter().any(|n| active(n)));
    if let Some(s) = running {
        return Some(format!(
            "`{name}` is the sequence of session {}; a saved file would change it under the agent (choose another name)",
            s.id
        ));
    }
    if configured.as_deref().is_some_and(active) {
        return Some(format!(
            "`{name}` is this project's active sequence; a saved file would replace it (choose another name)"
        ));
    }
    None
}

/// Every sequence name the configuration mentions, with where: each file's `sequence` /
/// `sequences` entries (a path by its file stem) and `[overrides.NAME]` sections, `--sequence`
/// and `SEED_SEQUENCE`. A name not saved yet counts too: saving it would switch the sequence
/// on (or change how it is enforced) without anyone editing the configuration.
fn mentioned(ctx: &McpContext) -> Result<Vec<(String, String)>, String> {
    let env = |k: &str| std::env::var(k).ok();
    let cfg = config::load(&ctx.project_dirs, &env, &config::Flags::default()).map_err(|e| {
        format!("the configuration cannot be read, so the sequences it names are unknown: {e}")
    })?;
    let mut out: Vec<(String, String)> = Vec::new();
    let mut add = |entry: &str, place: &str| {
        let entry = entry.trim();
        let stem = Path::new(entry)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or(entry);
        for n in [entry, stem] {
            out.push((n.to_string(), place.to_string()));
        }
    };
    for f in &cfg.files {
        let place = f.display().to_string();
        let Ok(Some(parsed)) = config::read_file(f) else {
            continue;
        };
        let c = parsed.config;
        let listed = c.sequence_list().into_iter().flatten();
        for entry in listed.chain(c.sequences.clone().into_iter().flatten()) {
            add(&entry, &place);
        }
        for name in c.overrides.keys() {
            add(name, &format!("{place} ([overrides.{name}])"));
        }
    }
    for entry in &cfg.sequences {
        add(entry, "the active sequence list");
    }
    for entry in ctx.sequence.iter().flat_map(|s| s.split(',')) {
        add(entry, "--sequence");
    }
    Ok(out)
}

/// Write a new file (0600), failing when anything, even a dangling symlink, is at `path`.
fn create_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path)?;
    let written = f.write_all(bytes).and_then(|()| f.sync_all());
    if written.is_err() {
        drop(f);
        let _ = std::fs::remove_file(path);
    }
    written
}
