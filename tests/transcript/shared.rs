//! The real transcripts in `../shared/fixtures`, read in place when they are there.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use seed::protocol::transcript::read_transcript;

/// Distinct `tool_use` block ids, counted independently of the reader.
fn distinct_tool_use_ids(path: &Path) -> usize {
    let bytes = std::fs::read(path).expect("fixture readable");
    let mut ids = HashSet::new();
    for line in bytes.split(|&b| b == b'\n') {
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        let Some(blocks) = value.pointer("/message/content").and_then(|c| c.as_array()) else {
            continue;
        };
        for block in blocks {
            if block["type"] == "tool_use"
                && let Some(id) = block["id"].as_str()
            {
                ids.insert(id.to_string());
            }
        }
    }
    ids.len()
}

#[test]
fn shared_real_transcripts_read_and_count_every_tool_call_once() {
    // `SEED_SHARED_FIXTURES` points elsewhere, e.g. from a worktree that is not beside `shared`.
    let root = std::env::var_os("SEED_SHARED_FIXTURES").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures"),
        PathBuf::from,
    );
    let dir = root.join("claude-code/transcripts");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!(
            "skipped: no shared fixtures at {} (set SEED_SHARED_FIXTURES)",
            dir.display()
        );
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "the shared transcripts folder is empty");
    for path in paths {
        let t = read_transcript(&path).unwrap_or_else(|e| panic!("{e}"));
        let files =
            std::iter::once(path.as_path()).chain(t.subagent_files.iter().map(PathBuf::as_path));
        let expected: usize = files.map(distinct_tool_use_ids).sum();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        assert_eq!(t.tool_use_ids, expected, "{name}");
        let count = |hook: &str| t.records.iter().filter(|r| r.hook == hook).count();
        assert_eq!(
            count("PreToolUse"),
            expected,
            "{name}: one PreToolUse per call"
        );
        assert!(
            count("PostToolUse") + count("PostToolUseFailure") <= expected,
            "{name}"
        );
        assert_eq!(
            t.records.first().map(|r| r.hook.as_str()),
            Some("SessionStart"),
            "{name}"
        );
        assert_eq!(
            t.records.last().map(|r| r.hook.as_str()),
            Some("SessionEnd"),
            "{name}"
        );
        assert!(
            t.records.iter().all(|r| !r.ts.is_empty()),
            "{name}: every record has a time"
        );
        println!(
            "{name}: {} records, {} calls, {} prompts, {} stops, {} skipped",
            t.records.len(),
            t.tool_use_ids,
            count("UserPromptSubmit"),
            count("Stop"),
            t.skipped_lines
        );
    }
}
