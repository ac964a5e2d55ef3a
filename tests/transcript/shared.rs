//! The real transcripts in `../shared/fixtures`, read in place when they are there.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use seed::engine::Machine;
use seed::protocol::transcript::read_transcript;
use seed::replay::{frame, summary};
use seed::session::source;
use seed::tui::{Seq, SessionInfo};

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
        replays(&path, expected);
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

/// The transcript replays as `seed replay` and `seed tui --replay` do: the summary counts each
/// call once, and a what-if replay through a shipped sequence folds every record, judges every
/// call and lists exactly the calls it would not have allowed as differing.
fn replays(path: &Path, calls: usize) {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let loaded = source::resolve(&path.display().to_string(), None).expect("resolves");
    let plain = summary::summarize(&loaded, None, false);
    assert_eq!(plain.tool_calls, calls, "{name}");
    assert_eq!(plain.tools.values().sum::<usize>(), calls, "{name}");

    let chart = seed::dialects::builtin("compound_intelligence")
        .expect("built-in")
        .expect("loads");
    let seq = Seq::new(Machine::new(chart.chart), false);
    let s = summary::summarize(&loaded, Some(&seq), true);
    assert_eq!(
        s.verdicts.values().sum::<usize>(),
        calls,
        "{name}: every call judged"
    );
    let denied: Vec<usize> = s.denied.iter().map(|d| d.index).collect();
    let differing: Vec<usize> = s.differing.iter().map(|d| d.index).collect();
    assert_eq!(
        differing, denied,
        "{name}: the calls ran, so each refusal differs"
    );
    assert!(s.r#final.is_some(), "{name}");

    let records = loaded.records.clone();
    let n = records.len();
    let mut m = frame::replay_at(SessionInfo::default(), vec![seq], records, "default", n);
    let rp = m.replay.as_ref().expect("a replay");
    assert_eq!(rp.len(), n, "{name}");
    assert_eq!(
        rp.diffs.len(),
        s.differing.len(),
        "{name}: the dashboard marks the same calls"
    );
    m.jump(n / 2);
    assert_eq!(m.cursor(), n / 2, "{name}");
}
