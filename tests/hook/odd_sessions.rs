//! Sessions and files at the edges: ids that only bytes seed cannot keep tell apart, a log
//! that is a link to a device, temp files of killed hooks, and a configuration warning that
//! must still be said when the hook then fails.

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use crate::support::hook as hook_common;

use hook_common::{Sandbox, payload};
use serde_json::json;

fn raw_payload(session_json: &[u8]) -> Vec<u8> {
    let mut p =
        b"{\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"hi\",\"session_id\":".to_vec();
    p.extend_from_slice(session_json);
    p.push(b'}');
    p
}

fn sessions(s: &Sandbox) -> Vec<String> {
    std::fs::read_dir(s.home().join("sessions"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Ids that differ only in bytes that are not UTF-8 (or in lone surrogates) would become the
/// same id once repaired: they are refused, never altered into one shared session. A literal
/// U+FFFD in a payload that needed no repair is an id like any other.
#[test]
fn ids_that_differ_only_in_unreadable_bytes_are_refused_not_merged() {
    let s = Sandbox::new();
    for id in [
        &b"\"s\xff\""[..],
        b"\"s\xfe\"",
        b"\"s\\ud800\"",
        b"\"s\\udc00\"",
    ] {
        let r = s.hook(&["PreToolUse"], raw_payload(id));
        assert_eq!((r.code, r.stdout.as_str()), (0, ""));
        assert!(
            r.stderr.contains("`session_id` is not valid UTF-8"),
            "{}",
            r.stderr
        );
    }
    assert!(sessions(&s).is_empty(), "{:?}", sessions(&s));
    let r = s.hook(
        &["UserPromptSubmit"],
        raw_payload("\"s\u{fffd}\"".as_bytes()),
    );
    assert_eq!(r.stderr, "");
    assert_eq!(s.log_lines("s\u{fffd}")[0]["session"], "s\u{fffd}");
}

/// A log linked to `/dev/zero` never ends: `status` says it cannot read it instead of
/// reading for ever.
#[cfg(target_os = "linux")]
#[test]
fn a_log_linked_to_a_device_is_refused_by_status() {
    let s = Sandbox::new();
    let r = s.hook(
        &["UserPromptSubmit"],
        payload("UserPromptSubmit", "zero", json!({"prompt": "hi"})),
    );
    assert_eq!(r.stderr, "");
    let log = s.session_dir("zero").join("log.jsonl");
    std::fs::remove_file(&log).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &log).unwrap();
    for cmd in ["status", "recovery"] {
        let mut child = s
            .std_cmd()
            .args([
                cmd,
                "--session",
                "zero",
                "--sequence",
                "starlog_initialization",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut waited = Duration::ZERO;
        while child.try_wait().unwrap().is_none() {
            assert!(
                waited < Duration::from_secs(60),
                "{cmd} still reading /dev/zero"
            );
            std::thread::sleep(Duration::from_millis(100));
            waited += Duration::from_millis(100);
        }
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{cmd}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("not a regular file"), "{err}");
    }
}

/// Temp files of hooks killed mid-write go: a session's at the next hook (its writers hold
/// the lock), the state directory's once they are old (another hook may be writing one).
#[test]
fn temp_files_of_killed_hooks_are_swept() {
    let s = Sandbox::new();
    let call = || payload("UserPromptSubmit", "tmp", json!({"prompt": "hi"}));
    assert_eq!(
        s.hook(&["--sequence", "starlog_initialization"], call())
            .stderr,
        ""
    );
    let dir = s.session_dir("tmp");
    let left = [
        dir.join(".session.json.4242.tmp"),
        dir.join("snapshots/.starlog_initialization.json.4242.tmp"),
    ];
    let old_root = s.home().join(".allowed_tools.seed.4242.tmp");
    let young_root = s.home().join(".allowed_tools.seed.4243.tmp");
    for p in left.iter().chain([&old_root, &young_root]) {
        std::fs::write(p, "half").unwrap();
    }
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&old_root)
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
    assert_eq!(
        s.hook(&["--sequence", "starlog_initialization"], call())
            .stderr,
        ""
    );
    for p in left.iter().chain([&old_root]) {
        assert!(!p.exists(), "{} left", p.display());
    }
    assert!(
        young_root.exists(),
        "a young temp file may be another hook's"
    );
}

/// A warning of the configuration (here a capped `lock_wait_ms`) is said even when the hook
/// then fails (here: the log stays locked past the budget).
#[test]
fn a_configuration_warning_is_said_with_a_failure() {
    let s = Sandbox::new();
    let call = || payload("UserPromptSubmit", "warned", json!({"prompt": "hi"}));
    assert_eq!(s.hook(&[], call()).stderr, "");
    s.write_config("lock_wait_ms = 99999\nhook_budget_ms = 300\n");
    let holder = std::fs::File::options()
        .append(true)
        .open(s.session_dir("warned").join("log.jsonl"))
        .unwrap();
    holder.lock().unwrap();
    let mut child = s
        .std_cmd()
        .args(["hook", "UserPromptSubmit"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(call().as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    drop(holder);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("seed: ran out of time"), "{err}");
    assert!(
        err.contains("(warning: ") && err.contains("lock_wait_ms = 99999"),
        "{err}"
    );
}
