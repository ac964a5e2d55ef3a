//! `seed validate PATH…`: each sequence is checked once, and a Mermaid diagram that a manifest
//! among the paths nests is checked through that manifest, as a directory walk does — so
//! `seed validate sequences/*` says what `seed validate sequences` says.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn shipped() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sequences")
}

/// `seed validate --json` over `paths`: (source, sequence, lint codes) per report.
fn validate(paths: &[PathBuf]) -> Vec<(String, String, Vec<String>)> {
    let home = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("seed")
        .unwrap()
        .arg("validate")
        .arg("--json")
        .args(paths)
        .env("SEED_HOME", home.path())
        // Where the HEAVEN systems keep their state, as their users have it set (unset, the
        // master sequences are told their deep state cannot apply: `deep_state_unset.rs`).
        .env("HEAVEN_DATA_DIR", home.path())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let reports: Value = serde_json::from_slice(&out).expect("json");
    reports
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| {
            let codes = r["lints"]
                .as_array()
                .expect("lints")
                .iter()
                .map(|l| l["code"].as_str().unwrap_or_default().to_string())
                .collect();
            (
                r["source"].as_str().unwrap_or_default().to_string(),
                r["sequence"].as_str().unwrap_or_default().to_string(),
                codes,
            )
        })
        .collect()
}

fn file_names(reports: &[(String, String, Vec<String>)]) -> Vec<String> {
    reports
        .iter()
        .map(|(src, _, _)| {
            Path::new(src)
                .strip_prefix(shipped())
                .map_or(src.clone(), |p| p.display().to_string())
        })
        .collect()
}

#[test]
fn every_entry_of_the_sequences_folder_checks_each_sequence_once() {
    // What the shell hands over for `seed validate sequences/*`.
    let mut entries: Vec<PathBuf> = std::fs::read_dir(shipped())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let by_entries = validate(&entries);
    assert_eq!(
        file_names(&by_entries),
        [
            "compound_intelligence.json",
            "giint_workflow.json",
            "hiivmind_add_source.yaml",
            "hope.toml",
            "odyssean_anchor.toml",
            "plan_then_build.toml",
            "research_first.toml",
            "safe_git.toml",
            "seaam_organ_lifecycle.toml",
            "starlog_initialization.json",
            "tdd.toml",
            "verify_before_done.toml",
            "waypoint_journey.json",
        ]
    );
    let mut names: Vec<&str> = by_entries.iter().map(|(_, n, _)| n.as_str()).collect();
    names.dedup();
    assert_eq!(names.len(), by_entries.len(), "one report per sequence");
    for (src, _, codes) in &by_entries {
        let expected: &[&str] = if src.ends_with("hope.toml") {
            &["unreachable", "unreachable", "unreachable"]
        } else {
            &[]
        };
        assert_eq!(codes, expected, "{src}");
    }
    // The same as walking the folder.
    assert_eq!(by_entries, validate(&[shipped()]));
}

#[test]
fn a_diagram_named_alone_is_checked_on_its_own() {
    let diagram = shipped().join("odyssean_anchor.mmd");
    let reports = validate(std::slice::from_ref(&diagram));
    assert_eq!(file_names(&reports), ["odyssean_anchor.mmd"]);
}

#[test]
fn a_file_named_twice_is_checked_once() {
    let file = shipped().join("giint_workflow.json");
    let reports = validate(&[
        file.clone(),
        file,
        shipped().join(".").join("giint_workflow.json"),
    ]);
    assert_eq!(file_names(&reports), ["giint_workflow.json"]);
}
