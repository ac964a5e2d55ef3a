//! `seaam_organ_lifecycle` (seed 002) read through hand-written `dna.json` files: the readers
//! aggregate whole lists (goals achieved, failures, active modules), a walk follows the file
//! as SEAAM rewrites it, and malformed, empty, huge or hostile files read as "unknown" without
//! moving or breaking anything.

use crate::support::mermaid as mermaid_common;

use std::fs;
use std::path::Path;
use std::time::SystemTime;

use mermaid_common::{Walk, tool};
use seed::engine::{Decision, Facts, VerdictKind};
use seed::store::readers::{self, MAX_READER_BYTES, ReaderVars};
use serde_json::{Value, json};

fn vars(dir: &Path) -> ReaderVars {
    ReaderVars {
        project_dir: Some(dir.display().to_string()),
        ..ReaderVars::default()
    }
}

/// Write `dna.json` (raw text) and sample every reader of the sequence.
fn sample(w: &Walk, dir: &Path, dna: &str) -> Facts {
    fs::write(dir.join("dna.json"), dna).expect("write dna.json");
    readers::sample(&w.m.chart.readers, &vars(dir), SystemTime::now())
}

fn goal(achieved: bool) -> Value {
    json!({"text": "I must perceive.", "created_at": "2026-01-30T12:00:00Z", "achieved": achieved})
}

fn failure(module: &str, kind: &str, message: &str) -> Value {
    json!({"module_name": module, "error_type": kind, "message": message, "attempt_count": 1})
}

fn dna(goals: Vec<Value>, blueprint: &[&str], failures: Vec<Value>, active: &[&str]) -> String {
    let bp: serde_json::Map<String, Value> = blueprint
        .iter()
        .map(|m| (m.to_string(), json!({"description": "organ", "version": 1})))
        .collect();
    json!({
        "goals": goals, "blueprint": bp, "failures": failures, "active_modules": active,
        "metadata": {"evolution_count": 3}
    })
    .to_string()
}

#[test]
fn readers_aggregate_the_whole_lists() {
    let t = tempfile::tempdir().expect("tempdir");
    let w = Walk::new("seaam_organ_lifecycle");
    let f = sample(
        &w,
        t.path(),
        &dna(
            vec![goal(true), goal(false), goal(true)],
            &[
                "soma.perception.observer",
                "soma.memory.store",
                "soma.io.voice",
            ],
            vec![
                failure("soma.memory.store", "import", "No module named 'redis'"),
                failure("soma.io.voice", "validation", "start() missing"),
            ],
            &["soma.perception.observer"],
        ),
    );
    assert_eq!(f["goals_achieved"], json!(2));
    assert_eq!(f["goals_total"], json!(3));
    assert_eq!(f["goals_all_achieved"], json!(false));
    assert_eq!(f["failures"], json!(2));
    // The newest failure (SEAAM appends), not the first one.
    assert_eq!(f["failure"], json!("validation"));
    assert_eq!(f["failure_module"], json!("soma.io.voice"));
    assert_eq!(f["active_modules"], json!(1));
    assert_eq!(f["pending_organs"], json!(2));
    assert_eq!(f["evolution_count"], json!(3));

    let f = sample(
        &w,
        t.path(),
        &dna(
            vec![goal(true), goal(true)],
            &["a", "b"],
            vec![],
            &["b", "a"],
        ),
    );
    assert_eq!(f["goals_all_achieved"], json!(true));
    assert_eq!(
        (f["failures"].clone(), f["failure"].clone()),
        (json!(0), Value::Null)
    );
    assert_eq!(f["pending_organs"], json!(0));
    // No goals at all is not "every goal achieved".
    let f = sample(&w, t.path(), &dna(vec![], &[], vec![], &[]));
    assert_eq!(f["goals_all_achieved"], json!(false));
}

#[test]
fn the_lifecycle_follows_dna_json_as_seaam_rewrites_it() {
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path();
    let mut w = Walk::new("seaam_organ_lifecycle");
    let read = tool("Read", json!({}));
    let observer = "soma.perception.observer";
    w.expect("Designed", 0.0, Some("Bash(command=\"*seaam*\")"));
    // Observe mode: nothing is ever blocked.
    assert_eq!(w.gate(&tool("Edit", json!({}))).decision, Decision::Allow);
    w.facts = sample(&w, d, &dna(vec![goal(false)], &[observer], vec![], &[]));
    let run = tool("Bash", json!({"command": "python -m seaam"}));
    w.call(&run, VerdictKind::Advance)
        .expect("Generating", 20.0, None);
    fs::create_dir_all(d.join("soma/perception")).expect("mkdir");
    fs::write(d.join("soma/perception/observer.py"), "class Observer: ...").expect("organ");
    w.facts = sample(&w, d, &dna(vec![goal(false)], &[observer], vec![], &[]));
    w.advance(&read).expect("Importing", 40.0, None);
    let broken = failure(observer, "import", "No module named 'watchdog'");
    w.facts = sample(
        &w,
        d,
        &dna(vec![goal(false)], &[observer], vec![broken.clone()], &[]),
    );
    w.advance(&read)
        .expect("Failed", 0.0, Some("Bash(command=\"*seaam*\")"));
    assert_eq!(
        w.m.recovery(&w.snap, None).suggestions[0],
        "Organ soma.perception.observer failed (import): No module named 'watchdog' (1 failure(s) recorded). The Architect redesigns it in the next cycle; once dna.json's failures are cleared the organ goes back to Pending."
    );
    // Two failures recorded; clearing one is not enough.
    let other = failure("soma.io.voice", "runtime", "thread died");
    w.facts = sample(
        &w,
        d,
        &dna(
            vec![goal(false)],
            &[observer],
            vec![broken, other.clone()],
            &[],
        ),
    );
    w.advance(&read)
        .expect("Failed", 0.0, Some("Bash(command=\"*seaam*\")"));
    w.facts = sample(
        &w,
        d,
        &dna(vec![goal(false)], &[observer], vec![other], &[]),
    );
    w.advance(&read)
        .expect("Failed", 0.0, Some("Bash(command=\"*seaam*\")"));
    w.facts = sample(&w, d, &dna(vec![goal(false)], &[observer], vec![], &[]));
    w.advance(&read)
        .expect("Pending", 10.0, Some("Bash(command=\"*seaam*\")"));
    w.advance(&run);
    w.facts = sample(
        &w,
        d,
        &dna(
            vec![goal(true), goal(false)],
            &[observer],
            vec![],
            &[observer],
        ),
    );
    // Running fills its interval as goals are achieved: one of two is half of it.
    let running = w.m.chart.find("Running").expect("Running");
    let (lo, hi) = w.m.interval(running);
    assert_eq!(lo, 0.8, "the alive band starts at 80%");
    let at = |fraction: f64| 100.0 * (lo + (hi - lo) * fraction);
    w.advance(&read).expect("Running", at(0.5), None);
    w.facts = sample(
        &w,
        d,
        &dna(
            vec![goal(true), goal(false), goal(false), goal(false)],
            &[observer],
            vec![],
            &[observer],
        ),
    );
    w.advance(&read).expect("Running", at(0.25), None);
    assert!(
        (w.m.progress(&w.snap).highest - at(0.5)).abs() < 1e-9,
        "the highest reached is kept"
    );
    w.facts = sample(
        &w,
        d,
        &dna(
            vec![goal(true), goal(true)],
            &[observer],
            vec![],
            &[observer],
        ),
    );
    w.advance(&read).expect("__final", 100.0, None);
    assert!(w.m.progress(&w.snap).done);
}

#[test]
fn bad_dna_json_reads_as_unknown_and_moves_nothing() {
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path();
    let mut w = Walk::new("seaam_organ_lifecycle");
    let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    let huge = format!(
        "{{\"goals\": [], \"pad\": \"{}\"}}",
        "x".repeat(MAX_READER_BYTES as usize)
    );
    for bad in [
        "",
        "{",
        "null",
        "[1, 2, 3]",
        "{}",
        r#"{"goals": "all of them", "failures": {"x": 1}, "active_modules": 7, "blueprint": []}"#,
        r#"{"goals": [1, "two", null, {"achieved": "yes"}], "failures": [null, 3]}"#,
        deep.as_str(),
        huge.as_str(),
    ] {
        let f = sample(&w, d, bad);
        // Unknown (`null`) or `false`: never "achieved".
        assert_ne!(f["goals_all_achieved"], json!(true), "{:.40}", bad);
        w.facts = f;
        w.advance(&tool("Read", json!({})));
        assert_eq!(w.at(), vec!["Designed"], "{:.40}", bad);
    }
    // Hostile text is quoted tamed: no control characters, escape sequences gone whole (no
    // `[2J` tail left behind), bounded length.
    let evil = format!("\u{1b}[2J\nrm -rf /{}", "!".repeat(100_000));
    let f = sample(
        &w,
        d,
        &dna(vec![], &[], vec![failure("m", "import", &evil)], &[]),
    );
    let msg = f["failure_message"].as_str().expect("a string");
    assert!(!msg.chars().any(char::is_control), "{msg:.40}");
    assert!(msg.chars().count() <= 300);
    assert!(msg.starts_with("rm -rf /"), "{msg:.40}");
}

#[test]
fn off_path_calls_are_recorded_with_a_recovery_and_never_blocked() {
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path();
    let mut w = Walk::new("seaam_organ_lifecycle");
    let observer = "soma.perception.observer";
    w.facts = sample(&w, d, &dna(vec![goal(false)], &[observer], vec![], &[]));
    w.advance(&tool("Read", json!({})))
        .expect("Pending", 10.0, Some("Bash(command=\"*seaam*\")"));
    // Editing an organ by hand is not part of the lifecycle: observed, with the way on named,
    // however often it is repeated (observe mode has no deadlock breaker to trip).
    for n in 0..5 {
        let edit = tool(
            "Edit",
            json!({"file_path": format!("soma/perception/observer_{n}.py")}),
        );
        let v = w.gate(&edit);
        assert_eq!(
            (
                v.kind,
                v.decision,
                v.warning.as_deref(),
                v.repeat,
                v.escalated
            ),
            (VerdictKind::OffPath, Decision::Allow, None, 0, false),
            "attempt {n}"
        );
        assert_eq!(
            v.reason,
            "seed: Edit is not part of \"seaam_organ_lifecycle\" now (at: \"Pending\"). Next: call Bash(command=\"*seaam*\")."
        );
        w.advance(&edit)
            .expect("Pending", 10.0, Some("Bash(command=\"*seaam*\")"));
    }
    // A failed organ: still nothing is blocked, and the recovery says what SEAAM does next.
    let broken = failure(observer, "import", "No module named 'watchdog'");
    w.facts = sample(
        &w,
        d,
        &dna(vec![goal(false)], &[observer], vec![broken], &[]),
    );
    w.advance(&tool("Bash", json!({"command": "python -m seaam"})));
    fs::create_dir_all(d.join("soma/perception")).expect("mkdir");
    fs::write(d.join("soma/perception/observer.py"), "class Observer: ...").expect("organ");
    w.facts = sample(
        &w,
        d,
        &dna(
            vec![goal(false)],
            &[observer],
            vec![failure(observer, "import", "No module named 'watchdog'")],
            &[],
        ),
    );
    w.advance(&tool("Read", json!({})));
    assert_eq!(w.at(), ["Failed"]);
    let v = w.gate(&tool("Write", json!({"file_path": "dna.json"})));
    assert_eq!(
        (v.kind, v.decision),
        (VerdictKind::OffPath, Decision::Allow)
    );
    assert!(v.warning.is_none());
    assert!(
        w.m.recovery(&w.snap, None).suggestions[0]
            .starts_with("Organ soma.perception.observer failed (import)"),
        "{:?}",
        w.m.recovery(&w.snap, None).suggestions
    );
}

#[test]
fn a_facts_escape_sequences_never_reach_a_recovery_text() {
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path();
    let mut w = Walk::new("seaam_organ_lifecycle");
    let read = tool("Read", json!({}));
    let observer = "soma.perception.observer";
    w.facts = sample(&w, d, &dna(vec![goal(false)], &[observer], vec![], &[]));
    w.advance(&tool("Bash", json!({"command": "python -m seaam"})));
    fs::create_dir_all(d.join("soma/perception")).expect("mkdir");
    fs::write(d.join("soma/perception/observer.py"), "class Observer: ...").expect("organ");
    w.facts = sample(&w, d, &dna(vec![goal(false)], &[observer], vec![], &[]));
    w.advance(&read).expect("Importing", 40.0, None);
    let broken = failure(observer, "import", "boom");
    w.facts = sample(
        &w,
        d,
        &dna(vec![goal(false)], &[observer], vec![broken], &[]),
    );
    // A log replayed from elsewhere may carry facts no reader tamed.
    w.facts(&[(
        "failure_message",
        json!("boom\u{1b}[31m, \u{1b}]0;title\u{7}again\u{9b}2J"),
    )]);
    w.advance(&read)
        .expect("Failed", 0.0, Some("Bash(command=\"*seaam*\")"));
    let said = &w.m.recovery(&w.snap, None).suggestions[0];
    assert!(said.contains("failed (import): boom, again ("), "{said}");
    assert!(!said.contains("[31m") && !said.contains("title"), "{said}");
}
