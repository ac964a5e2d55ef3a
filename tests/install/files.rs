//! `seed install` and the files it writes: a symlinked settings file stays a symlink, an
//! install is all or nothing across the settings file and `.mcp.json`, and the hooks and the
//! MCP server are started by the same command.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::project as project_common;
use project_common::{Project, seed_commands as commands};

#[cfg(unix)]
#[test]
fn a_symlinked_settings_file_is_written_through_and_stays_a_link() {
    let p = Project::new();
    let dotfiles = p.dir.path().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    let target = dotfiles.join("settings.local.json");
    std::fs::write(&target, "{\"model\": \"opus\"}\n").unwrap();
    let link = p.root().join(".claude/settings.local.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let (code, out, err) = p.seed_with_path(&["install", "--local"], &[&p.seed_dir()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(v["model"], "opus");
    assert_eq!(
        commands(&v).len(),
        seed::commands::install::HOOK_EVENTS.len()
    );
    // The backup sits beside the path you gave, and nothing else was left behind.
    let backup = p.root().join(".claude/settings.local.json.seed-backup");
    assert_eq!(
        std::fs::read_to_string(&backup).unwrap(),
        "{\"model\": \"opus\"}\n"
    );
    let names = |d: &Path| {
        let mut n: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&dotfiles), ["settings.local.json"]);
    assert_eq!(
        names(&p.root().join(".claude")),
        ["settings.local.json", "settings.local.json.seed-backup"]
    );
    // Uninstall writes through the link too.
    assert_eq!(
        p.seed_with_path(&["uninstall", "--local"], &[&p.seed_dir()])
            .0,
        0
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(v, json!({ "model": "opus" }));
}

/// A `.mcp.json` that does not parse stops the whole install: the settings file is not
/// written either.
#[test]
fn an_unparseable_mcp_json_stops_the_whole_install() {
    let p = Project::new();
    let settings = p.root().join(".claude/settings.json");
    std::fs::write(&settings, "{}\n").unwrap();
    std::fs::write(p.root().join(".mcp.json"), "{\"mcpServers\": {,}}\n").unwrap();
    let (code, out, err) = p.seed_with_path(&["install", "--project", "--mcp"], &[&p.seed_dir()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains(".mcp.json:1:") && err.contains("left untouched"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{}\n");
    assert!(!p.root().join(".claude/settings.json.seed-backup").exists());
    // A foreign `seed` server is refused the same way.
    std::fs::write(
        p.root().join(".mcp.json"),
        "{\"mcpServers\": {\"seed\": {\"command\": \"other\"}}}\n",
    )
    .unwrap();
    let (code, _, err) = p.seed_with_path(&["install", "--project", "--mcp"], &[&p.seed_dir()]);
    assert_eq!(code, 1);
    assert!(err.contains("not seed's"), "{err}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{}\n");
    // A good one: both written.
    std::fs::write(p.root().join(".mcp.json"), "{}\n").unwrap();
    assert_eq!(
        p.seed_with_path(&["install", "--project", "--mcp"], &[&p.seed_dir()])
            .0,
        0
    );
    assert_eq!(p.json(".mcp.json")["mcpServers"]["seed"]["command"], "seed");
    assert!(!commands(&p.json(".claude/settings.json")).is_empty());
}

/// Every scope, with and without `--bin`: the hooks and the MCP server start seed the same
/// way — `seed` from PATH unless `--bin` pins one. The project's server goes in its
/// `.mcp.json`; a user's or local server lives in Claude Code's own `~/.claude.json`, so seed
/// prints the `claude mcp add` command for it and writes no `.mcp.json`.
#[test]
fn hooks_and_mcp_server_use_the_same_command() {
    for scope in ["--local", "--user", "--project"] {
        let p = Project::new();
        let (code, out, err) = p.seed_with_path(&["install", scope, "--mcp"], &[&p.seed_dir()]);
        assert_eq!(code, 0, "{scope}: {err}");
        let settings = match scope {
            "--local" => p.json(".claude/settings.local.json"),
            "--project" => p.json(".claude/settings.json"),
            _ => serde_json::from_str(
                &std::fs::read_to_string(p.dir.path().join("home/.claude/settings.json")).unwrap(),
            )
            .unwrap(),
        };
        assert!(
            commands(&settings)
                .iter()
                .all(|c| c.starts_with("seed hook ")),
            "{scope}: {:?}",
            commands(&settings)
        );
        // This very `seed` is on PATH: nothing to say.
        assert_eq!(err, "", "{scope}");
        let server = |out: &str| match scope {
            "--project" => p.json(".mcp.json")["mcpServers"]["seed"]["command"]
                .as_str()
                .unwrap()
                .to_string(),
            _ => {
                assert!(!p.root().join(".mcp.json").exists(), "{scope}");
                let add = format!("\n  claude mcp add --scope {} seed -- ", &scope[2..]);
                let at = out.find(&add).unwrap_or_else(|| panic!("{scope}: {out}"));
                let line = out[at + add.len()..].lines().next().unwrap();
                line.strip_suffix(" mcp").unwrap_or(line).to_string()
            }
        };
        assert_eq!(server(&out), "seed", "{scope}");

        let (code, out, err) = p.seed_with_path(
            &["install", scope, "--mcp", "--bin", "/opt/seed/bin/seed"],
            &[],
        );
        assert_eq!(code, 0, "{scope}: {err}");
        assert_eq!(server(&out), "/opt/seed/bin/seed", "{scope}");
        assert!(!err.contains("PATH"), "{err}");
    }
}

/// Hooks that run `seed` from a PATH without one would all fail (exit 127) and enforce
/// nothing: install refuses, names `--bin` with this executable, and writes nothing; with
/// `--bin` it installs.
#[test]
fn no_seed_on_path_is_refused_unless_bin_is_given() {
    for scope in ["--local", "--project", "--user"] {
        let p = Project::new();
        let (code, out, err) = p.seed_with_path(&["install", scope, "--mcp"], &[]);
        assert_eq!(code, 1, "{scope}: {out}");
        assert!(
            err.starts_with("seed: `seed` is not on PATH"),
            "{scope}: {err}"
        );
        assert!(err.contains("--bin "), "{scope}: {err}");
        assert!(
            err.trim_end().ends_with("nothing was written"),
            "{scope}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(out.is_empty(), "{out}");
        let written: Vec<_> = std::fs::read_dir(p.root().join(".claude"))
            .unwrap()
            .collect();
        assert!(written.is_empty(), "{scope}: {written:?}");
        assert!(!p.root().join(".mcp.json").exists());
        assert!(!p.dir.path().join("home/.claude/settings.json").exists());
        // The dry run fails the same way: what it would show could not work.
        let (code, _, err) = p.seed_with_path(&["install", scope, "--dry-run"], &[]);
        assert_eq!(code, 1, "{scope}: {err}");
        let bin = project_common::bin();
        let (code, _, err) =
            p.seed_with_path(&["install", scope, "--bin", bin.to_str().unwrap()], &[]);
        assert_eq!((code, err.as_str()), (0, ""), "{scope}");
    }
    // Uninstall needs no seed at all.
    let p = Project::new();
    assert_eq!(p.seed(&["install", "--local"]).0, 0);
    let (code, _, err) = p.seed_with_path(&["uninstall", "--local"], &[]);
    assert_eq!((code, err.as_str()), (0, ""));
}

/// With this very executable on PATH as `seed`, nothing needs saying.
#[cfg(unix)]
#[test]
fn no_note_when_path_has_this_seed() {
    let p = Project::new();
    let bin_dir = p.dir.path().join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("seed"), bin_dir.join("seed")).unwrap();
    let (code, _, err) = p.seed_with_path(&["install", "--local"], &[&bin_dir]);
    assert_eq!((code, err.as_str()), (0, ""));
}

/// The backup of a settings file keeps the original's permission bits: a private file does
/// not leave a world-readable copy beside it (an older, looser backup is tightened too).
#[cfg(unix)]
#[test]
fn the_backup_keeps_the_original_files_mode() {
    use std::os::unix::fs::PermissionsExt;
    let p = Project::new();
    let settings = p.root().join(".claude/settings.local.json");
    let backup = p.root().join(".claude/settings.local.json.seed-backup");
    let mode = |f: &Path| std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
    for (want, stale_backup) in [(0o600, None), (0o640, Some(0o644))] {
        let _ = std::fs::remove_file(&backup);
        if let Some(m) = stale_backup {
            std::fs::write(&backup, "old").unwrap();
            std::fs::set_permissions(&backup, std::fs::Permissions::from_mode(m)).unwrap();
        }
        std::fs::write(&settings, "{\"model\": \"opus\"}\n").unwrap();
        std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(want)).unwrap();
        let (code, out, err) = p.seed_with_path(&["install", "--local"], &[&p.seed_dir()]);
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(
            std::fs::read_to_string(&backup).unwrap(),
            "{\"model\": \"opus\"}\n"
        );
        assert_eq!(mode(&backup), want, "backup of a {want:o} file");
        assert_eq!(mode(&settings), want, "the file keeps its mode");
    }
}
