//! A configuration file steers what the agent may do, and `.seed.toml` is found by walking up
//! from the project: one that someone else owns, or anyone but its owner could write, is not
//! obeyed. It is an error like a broken file (one line saying why, a failure record, the
//! configured fail answer), never silently skipped for another file.
#![cfg(unix)]

use crate::support::hook as hook_common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use hook_common::{Run, Sandbox, payload};
use serde_json::json;

const CONFIG: &str = "sequence = \"starlog_initialization\"\noff_path = \"deny\"\n";

fn pre() -> String {
    payload(
        "PreToolUse",
        "s-trust",
        json!({ "tool_name": "Bash", "tool_input": { "command": "ls" } }),
    )
}

/// Give `path` to `nobody`; only root can. Says why the test skips otherwise.
fn give_away(path: &Path, gid: u32) -> bool {
    match std::os::unix::fs::lchown(path, Some(65534), Some(gid)) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("skipped: cannot give a file to another user ({e}); run as root to test");
            false
        }
    }
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Refused: fail-open (nothing printed) with one line naming the file and why, and recorded.
fn assert_refused(r: &Run, file: &Path, why: &str) {
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(&format!("seed: {}: ", file.display()))
            && r.stderr.contains(why)
            && r.stderr.contains("refusing to obey it"),
        "{}",
        r.stderr
    );
}

/// A project whose `.seed.toml` sits two directories above where Claude Code runs.
fn nested() -> (Sandbox, std::path::PathBuf) {
    let s = Sandbox::new();
    let file = s.project().join(".seed.toml");
    std::fs::write(&file, CONFIG).unwrap();
    std::fs::create_dir_all(s.project().join("a/b")).unwrap();
    (s, file)
}

fn hook_in_subdir(s: &Sandbox, env: &[(&str, &str)]) -> Run {
    let dir = s.project().join("a/b");
    let mut env = env.to_vec();
    let dir_s = dir.display().to_string();
    env.push(("CLAUDE_PROJECT_DIR", &dir_s));
    s.hook_env(&[], pre(), &env)
}

#[test]
fn a_config_file_anyone_can_write_is_refused() {
    let (s, file) = nested();
    // Ours and private: obeyed (the sequence denies Bash off its path).
    let r = hook_in_subdir(&s, &[]);
    assert_eq!(r.json()["hookSpecificOutput"]["permissionDecision"], "deny");
    chmod(&file, 0o666);
    assert_refused(
        &hook_in_subdir(&s, &[]),
        &file,
        "writable by every user (mode 0666)",
    );
    // Fail-closed denies instead, with the same line as its reason.
    let r = hook_in_subdir(&s, &[("SEED_FAIL", "closed")]);
    let reason = r.json()["hookSpecificOutput"]["permissionDecisionReason"].clone();
    assert!(
        reason.as_str().unwrap().contains("writable by every user"),
        "{reason}"
    );
    let log = s.log_lines("s-trust");
    assert_eq!(log.len(), 3);
    assert!(
        log[1]["error"]
            .as_str()
            .unwrap()
            .contains("refusing to obey it")
    );
    chmod(&file, 0o644);
    assert_eq!(hook_in_subdir(&s, &[]).stderr, "");
}

#[test]
fn a_config_file_owned_by_another_user_is_refused() {
    let (s, file) = nested();
    if !give_away(&file, 65534) {
        return;
    }
    chmod(&file, 0o644);
    assert_refused(
        &hook_in_subdir(&s, &[]),
        &file,
        "owned by another user (uid 65534)",
    );
    // Through a link of ours, it is the file that counts.
    let link = s.dir.path().join("user-config");
    std::fs::create_dir_all(&link).unwrap();
    std::fs::remove_file(s.project().join(".seed.toml")).unwrap();
    let theirs = s.dir.path().join("theirs.toml");
    std::fs::write(&theirs, CONFIG).unwrap();
    assert!(give_away(&theirs, 65534));
    std::os::unix::fs::symlink(&theirs, link.join("config.toml")).unwrap();
    let r = s.hook(&[], pre());
    assert_refused(&r, &link.join("config.toml"), "owned by another user");
}

/// Writable by a group that others are in (`nogroup`, whose member is `nobody`): refused. A
/// user's own group is fine (the unit tests of the group rule cover it without root).
#[test]
fn a_config_file_its_group_can_write_is_refused() {
    let (s, file) = nested();
    if !give_away(&file, 65534) {
        return;
    }
    // Back to us, in nobody's group, group-writable.
    std::os::unix::fs::lchown(
        &file,
        Some(
            std::fs::metadata(s.dir.path())
                .map(|m| {
                    use std::os::unix::fs::MetadataExt;
                    m.uid()
                })
                .unwrap(),
        ),
        None,
    )
    .unwrap();
    chmod(&file, 0o664);
    assert_refused(
        &hook_in_subdir(&s, &[]),
        &file,
        "writable by its group (gid 65534",
    );
    chmod(&file, 0o644);
    assert_eq!(
        hook_in_subdir(&s, &[]).stderr,
        "",
        "read-only for the group: fine"
    );
}
