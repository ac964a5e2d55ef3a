//! Records whose tool names are spelled as Claude Code spells them (written by an older seed,
//! another tool or by hand) step exactly like the hook's normalized ones, for every reader of
//! records: `seed status --events`, `seed recovery --events` and `seed replay`.

use crate::support::mcp as mcp_common;

use mcp_common::{seed, stdout_of};
use serde_json::{Value, json};

fn write_records(dir: &std::path::Path, name: &str, events: &[Value]) -> std::path::PathBuf {
    let lines: Vec<String> = events
        .iter()
        .map(|e| {
            json!({"session": "s", "hook": "PostToolUse", "phase": "advance", "event": e, "sequences": ["compound_intelligence"]})
                .to_string()
        })
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn status(home: &std::path::Path, file: &std::path::Path) -> Value {
    serde_json::from_str(&stdout_of(
        seed(home)
            .arg("status")
            .arg("--json")
            .arg("--events")
            .arg(file),
    ))
    .unwrap()
}

#[test]
fn claude_code_spellings_in_records_advance_like_normalized_ones() {
    let home = tempfile::tempdir().unwrap();
    let normalized = write_records(
        home.path(),
        "normalized.jsonl",
        &[
            json!({"kind": "tool", "name": "seed.who_am_i"}),
            json!({"kind": "tool", "name": "seed.what_do_i_do"}),
        ],
    );
    let want = status(home.path(), &normalized);
    assert_eq!(want["progress"]["overall"], 50.0, "{want}");
    for (file, events) in [
        (
            "plain.jsonl",
            [
                json!({"kind": "tool", "name": "mcp__seed__who_am_i"}),
                json!({"kind": "tool", "name": "mcp__seed__what_do_i_do"}),
            ],
        ),
        (
            "plugin.jsonl",
            [
                json!({"kind": "tool", "name": "mcp__plugin_seed_seed__who_am_i"}),
                json!({"kind": "tool", "name": "mcp__plugin_seed_seed__what_do_i_do"}),
            ],
        ),
    ] {
        let path = write_records(home.path(), file, &events);
        let got = status(home.path(), &path);
        assert_eq!(got["progress"], want["progress"], "{file}: {got}");
        assert_eq!(got["current"], want["current"], "{file}");
        let recovery = stdout_of(seed(home.path()).arg("recovery").arg("--events").arg(&path));
        assert!(
            recovery.contains("mcp__starlog__check"),
            "{file}: {recovery}"
        );
        let replay: Value = serde_json::from_str(&stdout_of(
            seed(home.path()).arg("replay").arg("--json").arg(&path),
        ))
        .unwrap();
        assert_eq!(
            replay["final"]["progress"], 50.0,
            "{file}: replay folds the same records: {replay}"
        );
    }
}

#[test]
fn a_raw_skill_tool_record_is_a_skill_event() {
    let home = tempfile::tempdir().unwrap();
    let raw = home.path().join("raw.jsonl");
    // hope starts with the intent skill; a record of the Skill tool itself must count as it.
    let skill = |name: &str| {
        json!({"session": "s", "hook": "PostToolUse", "phase": "advance", "sequences": ["hope"],
               "event": {"kind": "tool", "name": "Skill", "input": {"skill": name}}})
        .to_string()
    };
    let normalized = home.path().join("normalized.jsonl");
    std::fs::write(&raw, skill("hope:intent") + "\n").unwrap();
    std::fs::write(
        &normalized,
        json!({"session": "s", "hook": "PostToolUse", "phase": "advance", "sequences": ["hope"],
               "event": {"kind": "skill", "name": "hope:intent", "input": {"skill": "hope:intent"}}})
        .to_string()
            + "\n",
    )
    .unwrap();
    let (raw, normalized) = (status(home.path(), &raw), status(home.path(), &normalized));
    assert_eq!(raw["current"], normalized["current"], "{raw}");
    assert_ne!(raw["events"], 0);
    assert_ne!(
        raw["step"], "start",
        "the intent skill moved hope off its start: {raw}"
    );
}
