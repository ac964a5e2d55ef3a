//! What `seed install` then `seed uninstall` leave behind: nothing seed made. A file seed
//! created goes when nothing but seed's entries were in it, a backup only ever holds your own
//! version of a file, and a user's or local MCP server, which lives in Claude Code's own
//! `~/.claude.json`, is left to `claude mcp` with the exact command printed.

use crate::support::project as project_common;

use std::path::{Path, PathBuf};

use project_common::Project;
use serde_json::json;

fn ok(p: &Project, args: &[&str]) -> String {
    let (code, out, err) = p.seed_with_path(args, &[&p.seed_dir()]);
    assert_eq!(code, 0, "{args:?}: {out}{err}");
    out
}

/// Every `*.seed-backup` under `dir`.
fn backups(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(backups(&p));
        } else if p.to_string_lossy().ends_with(".seed-backup") {
            out.push(p);
        }
    }
    out
}

/// A project with no settings and no `.mcp.json`: install, uninstall, and the project is as it
/// was — no `{}` left, no backup of seed's own entries.
#[test]
fn an_uninstall_removes_the_files_seed_created() {
    let p = Project::new();
    let settings = p.root().join(".claude/settings.json");
    let mcp = p.root().join(".mcp.json");
    ok(&p, &["install", "--project", "--mcp", "--sequence", "hope"]);
    ok(&p, &["install", "--project", "--mcp"]);
    assert!(settings.exists() && mcp.exists());
    assert_eq!(backups(p.dir.path()), Vec::<PathBuf>::new());

    let dry = ok(&p, &["uninstall", "--project", "--mcp", "--dry-run"]);
    assert!(
        dry.contains(&format!(
            "remove {}: it holds nothing but seed's hooks",
            settings.display()
        )),
        "{dry}"
    );
    assert!(settings.exists(), "a dry run removes nothing");
    let out = ok(&p, &["uninstall", "--project", "--mcp"]);
    assert!(
        out.contains(&format!(
            "removed {}: it held nothing but seed's MCP server",
            mcp.display()
        )),
        "{out}"
    );
    assert!(!settings.exists() && !mcp.exists(), "{out}");
    assert_eq!(backups(p.dir.path()), Vec::<PathBuf>::new());
    // A second uninstall has nothing to do and creates nothing.
    let out = ok(&p, &["uninstall", "--project", "--mcp"]);
    assert!(!settings.exists() && !mcp.exists(), "{out}");
}

/// What you add to a file seed created is yours: the uninstall takes seed's entries out and
/// keeps the file.
#[test]
fn a_file_seed_created_that_you_added_to_stays() {
    let p = Project::new();
    let settings = p.root().join(".claude/settings.json");
    ok(&p, &["install", "--project"]);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    v["model"] = json!("opus");
    std::fs::write(&settings, v.to_string()).unwrap();
    ok(&p, &["uninstall", "--project"]);
    assert_eq!(p.json(".claude/settings.json"), json!({"model": "opus"}));
}

/// Your own empty file was there before seed: it is backed up and stays, as it was.
#[test]
fn your_own_empty_file_stays() {
    let p = Project::new();
    let mcp = p.root().join(".mcp.json");
    std::fs::write(&mcp, "{}\n").unwrap();
    ok(&p, &["install", "--project", "--mcp"]);
    ok(&p, &["uninstall", "--project", "--mcp"]);
    assert_eq!(p.json(".mcp.json"), json!({}));
    assert_eq!(
        backups(p.dir.path()),
        vec![p.root().join(".mcp.json.seed-backup")]
    );
}

/// A settings file that is a link (a dotfiles repository) is yours, even when seed's entries
/// were all it held: the uninstall writes `{}` through it and keeps the link.
#[cfg(unix)]
#[test]
fn a_linked_file_is_never_removed() {
    let p = Project::new();
    let target = p.dir.path().join("dotfiles-settings.json");
    let settings = p.root().join(".claude/settings.json");
    std::os::unix::fs::symlink(&target, &settings).unwrap();
    ok(&p, &["install", "--project"]);
    ok(&p, &["uninstall", "--project"]);
    assert!(
        std::fs::symlink_metadata(&settings)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(p.json(".claude/settings.json"), json!({}));
}

/// `--user` and `--local` servers live in Claude Code's `~/.claude.json`, not in the project's
/// shared `.mcp.json`: seed writes the hooks and prints the `claude mcp` command for the server.
#[test]
fn user_and_local_servers_are_left_to_claude_mcp() {
    for scope in ["user", "local"] {
        let p = Project::new();
        p.add_sequence("my flow");
        let flag = format!("--{scope}");
        let out = ok(&p, &["install", &flag, "--mcp", "--sequence", "my flow"]);
        assert!(
            out.contains(&format!(
                "\n  claude mcp add --scope {scope} seed -- seed mcp --sequence 'my flow'\n"
            )),
            "{scope}: {out}"
        );
        assert!(!p.root().join(".mcp.json").exists(), "{scope}");
        assert!(!p.dir.path().join("home/.claude.json").exists(), "{scope}");
        let dry = ok(&p, &["install", &flag, "--mcp", "--dry-run"]);
        assert!(
            dry.contains(&format!(
                "claude mcp add --scope {scope} seed -- seed mcp\n"
            )),
            "{scope}: {dry}"
        );
        let out = ok(&p, &["uninstall", &flag, "--mcp"]);
        assert!(
            out.ends_with(&format!("\n  claude mcp remove --scope {scope} seed\n")),
            "{scope}: {out}"
        );
        assert!(!p.root().join(".mcp.json").exists(), "{scope}");
    }
}
