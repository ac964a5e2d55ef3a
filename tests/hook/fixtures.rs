//! Real Claude Code payloads (read in place from `../shared/fixtures/claude-code`, never
//! copied): every one gets a valid answer of the right shape, none crashes. Skipped, with a
//! printed reason, when the folder is absent.

use crate::support::hook as hook_common;

use std::path::{Path, PathBuf};

use hook_common::Sandbox;
use seed::protocol::HookInput;
use serde_json::Value;

fn fixtures() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/claude-code");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: {} is absent", dir.display());
        None
    }
}

fn payload_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["hooks", "examples"] {
        let Ok(rd) = std::fs::read_dir(root.join(sub)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(std::fs::read_dir(&p).unwrap().flatten().map(|f| f.path()));
            } else {
                out.push(p);
            }
        }
    }
    out.retain(|p| p.extension().is_some_and(|e| e == "json"));
    out.sort();
    out
}

/// The answer's shape for `event`: nothing, or one JSON object whose `hookEventName` is the
/// event and whose decisions are legal values.
fn check_shape(event: &str, stdout: &str, file: &Path) {
    if stdout.is_empty() {
        return;
    }
    assert!(
        stdout.ends_with('\n') && stdout.trim().lines().count() == 1,
        "{}",
        file.display()
    );
    let v: Value =
        serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    if let Some(spec) = v.get("hookSpecificOutput") {
        assert_eq!(spec["hookEventName"], event, "{}", file.display());
        if let Some(d) = spec.get("permissionDecision") {
            assert!(
                ["allow", "deny", "ask"].contains(&d.as_str().unwrap()),
                "{}",
                file.display()
            );
        }
    }
    if let Some(d) = v.get("decision") {
        assert_eq!(d, "block", "{}", file.display());
        assert!(
            matches!(event, "Stop" | "SubagentStop"),
            "{}",
            file.display()
        );
    }
}

#[test]
fn every_real_payload_gets_a_valid_answer() {
    let Some(root) = fixtures() else { return };
    let files = payload_files(&root);
    assert!(
        files.len() >= 200,
        "expected the fixture set, found {}",
        files.len()
    );
    let s = Sandbox::new();
    s.write_config("sequence = \"compound_intelligence\"\n");
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let event = HookInput::parse(bytes.clone(), None)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()))
            .event;
        let r = s.hook(&[], bytes);
        assert_eq!(r.code, 0, "{}", f.display());
        assert_eq!(r.stderr, "", "{}", f.display());
        check_shape(&event, &r.stdout, f);
    }
    // Every payload was recorded.
    let total: usize = std::fs::read_dir(s.home().join("sessions"))
        .unwrap()
        .flatten()
        .map(|d| {
            std::fs::read_to_string(d.path().join("log.jsonl"))
                .unwrap()
                .lines()
                .count()
        })
        .sum();
    assert_eq!(total, files.len());
    assert!(!s.home().join("errors.jsonl").exists());
}

#[test]
fn windows_lone_surrogate_files_are_repaired() {
    let Some(root) = fixtures() else { return };
    for rel in [
        "hooks/PreToolUse/tomselander-home-assistant-green-button-14.json",
        "hooks/PermissionRequest/tomselander-home-assistant-green-button-4.json",
    ] {
        let p = root.join(rel);
        let Ok(bytes) = std::fs::read(&p) else {
            eprintln!("skipped: {} is absent", p.display());
            continue;
        };
        // serde_json alone refuses these files; the repair pass makes them readable.
        assert!(serde_json::from_slice::<Value>(&bytes).is_err(), "{rel}");
        let input = HookInput::parse(bytes, None).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert!(input.repairs.lone_surrogates > 0, "{rel}");
        assert!(input.tool_input.to_string().contains('\u{FFFD}'), "{rel}");
    }
}
