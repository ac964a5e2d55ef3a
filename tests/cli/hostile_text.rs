//! Text from sequence files, logs and paths reaches a terminal only cleaned: no escape
//! sequence (colours, window titles, screen clears), no bidi override, no forged line. JSON
//! output keeps the exact values (serde escapes control characters).

use assert_cmd::Command;
use serde_json::Value;

const ESC: &str = "\u{1b}[31m";
const TITLE: &str = "\u{1b}]0;pwned\u{7}";
const RLO: &str = "\u{202e}";

/// A sequence whose name, description and tools carry escapes, and one of whose tools is
/// never allowed (so `validate` quotes it in a lint).
fn hostile_sequence() -> String {
    serde_json::json!({
        "name": format!("red{ESC}name"),
        "description": format!("title{TITLE} and{RLO}txt.exe\nok   forged.json: \"x\""),
        "neutral_tools": ["Read"],
        "tool_transitions": {
            format!("evil{ESC}.first"): { "next_allowed": [format!("evil.{RLO}second")] },
        },
        "state_constraints": {
            format!("c{TITLE}"): {
                "when": { "flag": format!("f{ESC}lag") },
                "disallowed_tools": [format!("evil.{RLO}second")]
            }
        }
    })
    .to_string()
}

fn seed(dir: &std::path::Path, args: &[&str]) -> (String, String) {
    let out = Command::cargo_bin("seed")
        .unwrap()
        .current_dir(dir)
        .env("SEED_HOME", dir.join("state"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_clean(what: &str, out: &str) {
    for (i, c) in out.char_indices() {
        let unsafe_char = (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        assert!(!unsafe_char, "{what}: {c:?} at byte {i} of {out:?}");
    }
    // An escape's printable tail may show only after its escaped introducer (error texts
    // spell control characters out as `\u{1b}`).
    let unescaped = out.replace("\\u{1b}[31m", "").replace("\\u{1b}]0;", "");
    assert!(
        !unescaped.contains("[31m") && !unescaped.contains("]0;"),
        "{what}: {out}"
    );
    assert!(
        !out.lines().any(|l| l.starts_with("ok   forged")),
        "{what}: a description forged a line: {out}"
    );
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let seqs = dir.path().join(".seed/sequences");
    std::fs::create_dir_all(&seqs).unwrap();
    std::fs::write(seqs.join("hostile.json"), hostile_sequence()).unwrap();
    // A path is untrusted too: a file name may carry an escape.
    std::fs::write(dir.path().join(format!("bad{ESC}.json")), "{\"name\": ").unwrap();
    std::fs::write(
        dir.path().join("events.jsonl"),
        format!(
            "{}\n",
            serde_json::json!({"v": 1, "hook": "PreToolUse", "phase": "gate",
                "event": {"kind": "tool", "name": format!("x{TITLE}.y{RLO}z")}})
        ),
    )
    .unwrap();
    dir
}

#[test]
fn validate_cleans_names_messages_and_paths() {
    let dir = project();
    let (out, err) = seed(
        dir.path(),
        &[
            "validate",
            ".seed/sequences/hostile.json",
            &format!("bad{ESC}.json"),
        ],
    );
    assert!(
        out.contains("hostile.json") && out.contains("bad"),
        "{out}{err}"
    );
    assert!(
        out.contains("undefined-flag"),
        "a lint quotes the flag: {out}"
    );
    // Error texts show what the file holds: the escape spelled out, not dropped or run.
    assert!(out.contains("f\\u{1b}[31mlag"), "{out}");
    assert!(out.contains("bad\\u{1b}[31m.json:"), "{out}");
    assert_clean("validate", &out);
    assert_clean("validate stderr", &err);
}

#[test]
fn sequences_cleans_names_and_descriptions_but_json_keeps_them() {
    let dir = project();
    let (out, _) = seed(dir.path(), &["sequences"]);
    assert!(out.contains("redname"), "{out}");
    assert_clean("sequences", &out);

    let (json, _) = seed(dir.path(), &["sequences", "--json"]);
    let list: Vec<Value> = serde_json::from_str(&json).unwrap();
    let ours = list
        .iter()
        .find(|s| {
            s["source"]
                .as_str()
                .is_some_and(|p| p.ends_with("hostile.json"))
        })
        .expect("the project sequence is listed");
    assert_eq!(ours["name"], format!("red{ESC}name"), "exact in JSON");
    assert!(!json.contains('\u{1b}'), "serde escapes control characters");
}

#[test]
fn status_and_recovery_clean_what_they_quote() {
    let dir = project();
    for cmd in ["status", "recovery"] {
        let (out, err) = seed(
            dir.path(),
            &[
                cmd,
                "--sequence",
                ".seed/sequences/hostile.json",
                "--events",
                "events.jsonl",
            ],
        );
        assert!(out.contains("redname"), "{cmd}: {out}{err}");
        assert_clean(cmd, &out);
        assert_clean(cmd, &err);
    }
    // A load error quotes the file as well.
    let (_, err) = seed(
        dir.path(),
        &[
            "status",
            "--sequence",
            &format!("bad{ESC}.json"),
            "--events",
            "events.jsonl",
        ],
    );
    assert!(err.starts_with("seed: "), "{err}");
    assert_clean("status error", &err);
}
