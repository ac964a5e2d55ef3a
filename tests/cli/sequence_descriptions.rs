//! `seed sequences` (and the list `seed init` shows) describes each built-in for someone choosing
//! one: a sentence or two on what it asks of the agent, no notes on how the file was made; a
//! sequence made for one ecosystem's tools says so first ("For the hope plugin: …"), so nobody
//! installs one whose MCP servers they do not have.

const EVERYDAY: &[&str] = &[
    "plan_then_build",
    "tdd",
    "safe_git",
    "research_first",
    "verify_before_done",
];

#[test]
fn every_built_in_is_described_for_the_person_choosing_it() {
    let out = assert_cmd::Command::cargo_bin("seed")
        .unwrap()
        .args(["sequences", "--json"])
        .env("SEED_HOME", tempfile::tempdir().unwrap().path())
        .current_dir(tempfile::tempdir().unwrap().path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let list: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let built_in: Vec<_> = list
        .iter()
        .filter(|s| s["source"].as_str().unwrap_or("").starts_with("builtin:"))
        .collect();
    assert!(built_in.len() >= 13, "{}", built_in.len());
    for s in built_in {
        let name = s["name"].as_str().unwrap();
        let d = s["description"].as_str().unwrap_or("");
        assert!(!d.is_empty() && d.chars().count() <= 240, "{name}: {d}");
        for internal in [
            "SKETCH",
            "this file",
            "Seed 0",
            "seed 0",
            "tier 1",
            "∩",
            "->",
        ] {
            assert!(!d.contains(internal), "{name} says {internal:?}: {d}");
        }
        assert_eq!(
            d.starts_with("For "),
            !EVERYDAY.contains(&name),
            "{name}: an ecosystem's sequence names what it needs first, an everyday one needs nothing: {d}"
        );
    }
}
