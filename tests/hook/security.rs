//! The state directory is never reached through someone else's symlink: not the state dir
//! itself, not a directory the store creates or enters under it, not a file it opens. A state
//! dir that belongs to someone else is refused; one of ours that is too open is made private.
#![cfg(unix)]

use crate::support::hook as hook_common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use hook_common::{Sandbox, foreign_symlink, payload};
use serde_json::json;

const SEQ: &[&str] = &["--sequence", "starlog_initialization"];

fn pre(session: &str) -> String {
    payload(
        "PreToolUse",
        session,
        json!({ "tool_name": "Bash", "tool_input": { "command": "ls" } }),
    )
}

fn files_under(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| {
                    if e.file_type().unwrap().is_dir() {
                        1 + files_under(&e.path())
                    } else {
                        1
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

/// Refused: exit 0, nothing on stdout (fail-open), one `seed:` line naming the link.
fn assert_refused(r: &hook_common::Run, what: &str) {
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{what}");
    assert!(
        r.stderr.starts_with("seed: ") && r.stderr.contains("owned by another user"),
        "{what}: {}",
        r.stderr
    );
}

#[test]
fn a_state_dir_that_is_someone_elses_symlink_is_not_followed() {
    let s = Sandbox::new();
    let real = s.dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = s.dir.path().join("link");
    if !foreign_symlink(&real, &link) {
        return;
    }
    let r = s.hook_env(SEQ, pre("s1"), &[("SEED_HOME", link.to_str().unwrap())]);
    assert_refused(&r, "SEED_HOME");
    assert_eq!(files_under(&real), 0, "nothing written through the link");
    // Fail-closed denies instead.
    let r = s.hook_env(
        SEQ,
        pre("s1"),
        &[
            ("SEED_HOME", link.to_str().unwrap()),
            ("SEED_FAIL", "closed"),
        ],
    );
    assert_eq!(r.json()["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(files_under(&real), 0);
}

#[test]
fn our_own_symlinked_state_dir_is_fine() {
    let s = Sandbox::new();
    let real = s.dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = s.dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let r = s.hook_env(SEQ, pre("s1"), &[("SEED_HOME", link.to_str().unwrap())]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert!(real.join("sessions/s1/log.jsonl").is_file());
}

/// Every directory the store creates or enters: a foreign link there is refused and nothing
/// lands in its target.
#[test]
fn foreign_symlinks_inside_the_state_dir_are_refused() {
    for (inner, session) in [
        ("sessions", "s-a"),
        ("sessions/s-b", "s-b"),
        ("sessions/s-c/snapshots", "s-c"),
        ("sessions/s-d/charts", "s-d"),
        ("cache", "s-e"),
        ("cache/charts", "s-f"),
    ] {
        let s = Sandbox::new();
        // A first hook makes the state dir, then the link takes a directory's place.
        let r = s.hook(SEQ, pre("warm-up"));
        assert_eq!(r.stderr, "");
        let at = s.home().join(inner);
        if at.exists() {
            std::fs::remove_dir_all(&at).unwrap();
        }
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        let victim = s.dir.path().join("victim");
        std::fs::create_dir(&victim).unwrap();
        if !foreign_symlink(&victim, &at) {
            return;
        }
        let r = s.hook(SEQ, pre(session));
        assert_refused(&r, inner);
        assert_eq!(
            files_under(&victim),
            0,
            "{inner}: nothing written through the link"
        );
    }
}

#[test]
fn a_foreign_symlink_as_the_session_log_is_refused() {
    let s = Sandbox::new();
    s.hook(SEQ, pre("s1"));
    let log = s.session_dir("s1").join("log.jsonl");
    std::fs::remove_file(&log).unwrap();
    let victim = s.dir.path().join("victim.txt");
    std::fs::write(&victim, "mine\n").unwrap();
    if !foreign_symlink(&victim, &log) {
        return;
    }
    let r = s.hook(SEQ, pre("s1"));
    assert_refused(&r, "log.jsonl");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine\n");
}

#[test]
fn a_state_dir_owned_by_another_user_is_refused() {
    let s = Sandbox::new();
    std::fs::create_dir(s.home()).unwrap();
    if let Err(e) = std::os::unix::fs::lchown(s.home(), Some(65534), Some(65534)) {
        eprintln!("skipped: cannot give a directory to another user ({e}); run as root to test");
        return;
    }
    let r = s.hook(SEQ, pre("s1"));
    assert_refused(&r, "foreign state dir");
    assert_eq!(files_under(&s.home()), 0);
}

#[test]
fn a_loose_state_dir_of_ours_is_made_private() {
    let s = Sandbox::new();
    std::fs::create_dir(s.home()).unwrap();
    std::fs::set_permissions(s.home(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let r = s.hook(SEQ, pre("s1"));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let m = std::fs::metadata(s.home()).unwrap();
    assert_eq!(m.mode() & 0o777, 0o700);
    for d in [
        "sessions",
        "sessions/s1",
        "sessions/s1/snapshots",
        "cache/charts",
    ] {
        let m = std::fs::metadata(s.home().join(d)).unwrap();
        assert_eq!(m.mode() & 0o777, 0o700, "{d}");
    }
    let m = std::fs::metadata(s.session_dir("s1").join("log.jsonl")).unwrap();
    assert_eq!(m.mode() & 0o777, 0o600);
}

/// Directories and logs of ours that an older seed (or a hand) left open to others are
/// tightened when seed finds them: directories 0700, logs 0600. A file someone else owns is not
/// seed's to change, and a file a link of ours leads to keeps its mode.
#[test]
fn loose_directories_and_logs_of_ours_are_tightened() {
    let s = Sandbox::new();
    assert_eq!(s.hook(SEQ, pre("s1")).code, 0);
    let post = payload(
        "PostToolUse",
        "s1",
        json!({ "tool_name": "Read", "tool_input": {}, "tool_response": {} }),
    );
    assert_eq!(s.hook(SEQ, post.clone()).code, 0);
    let dirs = [
        "sessions",
        "sessions/s1",
        "sessions/s1/snapshots",
        "cache",
        "cache/charts",
    ];
    let files = ["sessions/s1/log.jsonl", "state.log"];
    for d in dirs {
        std::fs::set_permissions(s.home().join(d), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for f in files {
        std::fs::set_permissions(s.home().join(f), std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    // Someone else's errors log stays as it is.
    let errors = s.home().join("errors.jsonl");
    std::fs::write(&errors, "").unwrap();
    std::fs::set_permissions(&errors, std::fs::Permissions::from_mode(0o644)).unwrap();
    let foreign = std::os::unix::fs::chown(&errors, Some(65534), Some(65534)).is_ok();
    let r = s.hook(SEQ, post);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let mode = |p: &str| std::fs::metadata(s.home().join(p)).unwrap().mode() & 0o777;
    for d in dirs {
        assert_eq!(mode(d), 0o700, "{d}");
    }
    for f in files {
        assert_eq!(mode(f), 0o600, "{f}");
    }
    // A failure without a session writes to errors.jsonl: not ours, not changed.
    if foreign {
        let r = s.hook(SEQ, "not json");
        assert_eq!(r.code, 0);
        assert_eq!(mode("errors.jsonl"), 0o644);
    }
}

/// Session ids that sanitize alike (`:` and `/` both become `_`, long ids share a prefix) get
/// directories of their own, and `status --session` finds each by its raw id.
#[test]
fn distinct_session_ids_never_share_a_directory() {
    let s = Sandbox::new();
    let long = "x".repeat(140);
    let ids = [
        "a:b".to_string(),
        "a/b".to_string(),
        "a_b".to_string(),
        format!("{long}1"),
        format!("{long}2"),
    ];
    for id in &ids {
        let r = s.hook(SEQ, pre(id));
        assert_eq!(r.stderr, "", "{id}");
    }
    let dirs = std::fs::read_dir(s.home().join("sessions"))
        .unwrap()
        .count();
    assert_eq!(dirs, ids.len());
    for id in &ids {
        let out = s
            .cmd()
            .args(["status", "--json", "--session", id])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
