//! `seed install` points the hooks at the small `seed-hook` when it sits next to the `seed`
//! they would run, and at `seed hook` otherwise.

use std::path::{Path, PathBuf};

use crate::support::project::{Project, seed_commands};

/// A directory holding `seed-hook` (a link to the binary under test).
fn link_seed_hook(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let at = dir.join("seed-hook");
    #[cfg(unix)]
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_seed-hook"), &at).unwrap();
    #[cfg(not(unix))]
    std::fs::copy(env!("CARGO_BIN_EXE_seed-hook"), &at).unwrap();
    at
}

fn pre_tool_use(p: &Project) -> String {
    let v = p.json(".claude/settings.json");
    v["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_seed_hook_next_to_seed_runs_the_hooks() {
    let p = Project::new();
    let dir = p.seed_dir();
    link_seed_hook(&dir);
    let (code, out, err) = p.seed_with_path(&["install", "--project"], &[&dir]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pre_tool_use(&p), "seed-hook PreToolUse # seed-managed");
    let v = p.json(".claude/settings.json");
    for c in seed_commands(&v) {
        assert!(c.starts_with("seed-hook ") && !c.contains(" hook "), "{c}");
    }
    // Installed again: nothing changes; uninstalled: nothing of seed's is left.
    let (_, out, _) = p.seed_with_path(&["install", "--project"], &[&dir]);
    assert!(out.starts_with("no change"), "{out}");
    let (code, _, _) = p.seed_with_path(&["uninstall", "--project"], &[&dir]);
    assert_eq!(code, 0);
    let left = std::fs::read_to_string(p.root().join(".claude/settings.json")).unwrap_or_default();
    assert!(!left.contains("seed-hook"), "{left}");
}

#[test]
fn a_seed_hook_that_is_not_seeds_sibling_is_not_used() {
    let p = Project::new();
    let elsewhere = p.root().join("other-bin");
    link_seed_hook(&elsewhere);
    // The `seed-hook` a shell finds first belongs to another install: the hooks keep `seed`.
    let (code, out, err) =
        p.seed_with_path(&["install", "--project"], &[&elsewhere, &p.seed_dir()]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pre_tool_use(&p), "seed hook PreToolUse # seed-managed");
}

#[test]
fn a_pinned_seed_with_seed_hook_beside_it_pins_seed_hook() {
    let p = Project::new();
    let dir = p.root().join("pinned bin");
    let small = link_seed_hook(&dir);
    let seed = dir.join("seed");
    #[cfg(unix)]
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_seed"), &seed).unwrap();
    #[cfg(not(unix))]
    std::fs::copy(env!("CARGO_BIN_EXE_seed"), &seed).unwrap();
    let (code, out, err) = p.seed(&["install", "--local", "--bin", seed.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let v = p.json(".claude/settings.local.json");
    let cmd = v["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert_eq!(cmd, format!("'{}' Stop # seed-managed", small.display()));
    // The MCP server, when there is one, stays `seed` itself (`seed-hook` has no `mcp`).
    assert!(!v.to_string().contains("seed-hook mcp"));
}
