//! The fixture files: split messages, errors, compaction, and each subagent layout.

use seed::engine::Phase;
use seed::store::tail::parse_record_line;

use crate::{find, read, timeline};

#[test]
fn split_assistant_messages_give_each_call_once_with_its_outcome() {
    let t = read("split-and-errors.jsonl");
    assert_eq!(
        timeline(&t),
        [
            "SessionStart",
            "UserPromptSubmit prompt:add a cache to the loader",
            "PreToolUse tool:Read",
            "PreToolUse tool:Bash",
            "PostToolUse tool:Read",
            "PostToolUseFailure error.tool:Bash",
            "PreToolUse tool:Edit",
            "PostToolUse tool:Edit",
            "Stop",
            "SessionEnd",
        ]
    );
    assert_eq!(
        t.tool_use_ids, 3,
        "a repeated line and a retried block count once"
    );
    assert_eq!(
        t.tools
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>(),
        ["Bash=1", "Edit=1", "Read=1"]
    );
    assert_eq!((t.skipped_lines, t.unmatched_results), (0, 0));
    assert_eq!(t.session, "5c0ffee0-1111-4aaa-8bbb-000000000001");
    assert!(t.records.iter().all(|r| r.session == t.session));
}

#[test]
fn records_carry_phase_ids_times_and_context() {
    let t = read("split-and-errors.jsonl");
    let start = &t.records[0];
    assert_eq!(start.extra["source"], "startup");
    assert_eq!(
        start.ts, "2026-03-02T10:00:01.000Z",
        "a first line without a time takes the next one"
    );

    let pre = find(&t, "PreToolUse");
    assert_eq!(pre.phase, Some(Phase::Gate));
    assert_eq!(pre.tool_use_id.as_deref(), Some("toolu_01A1"));
    assert_eq!(
        pre.event.as_ref().map(|e| e.input["file_path"].clone()),
        Some("src/loader.rs".into())
    );
    assert_eq!(pre.ts, "2026-03-02T10:00:09.000Z");

    let post = find(&t, "PostToolUse");
    assert_eq!(post.phase, Some(Phase::Advance));
    let response = post
        .response
        .as_ref()
        .expect("the structured result is kept");
    assert_eq!(response.value["file"]["filePath"], "src/loader.rs");

    let failure = find(&t, "PostToolUseFailure");
    assert_eq!(failure.phase, Some(Phase::Advance));
    assert_eq!(failure.tool_use_id.as_deref(), Some("toolu_01A2"));
    assert_eq!(failure.extra["is_error"], true);
    assert_eq!(failure.extra["error"], "Error: Exit code 101");

    let prompt = find(&t, "UserPromptSubmit");
    assert_eq!(prompt.extra["prompt"], "add a cache to the loader");

    let stop = find(&t, "Stop");
    assert_eq!(stop.phase, Some(Phase::Stop));
    assert_eq!(
        stop.extra["last_assistant_message"],
        "Added the cache; the loader test passes."
    );
    assert_eq!(stop.extra["stop_hook_active"], false);
}

#[test]
fn records_are_valid_session_log_lines() {
    for record in read("split-and-errors.jsonl").records {
        let line = serde_json::to_string(&record).expect("serializes");
        assert_eq!(parse_record_line(line.as_bytes()), Ok(record));
    }
}

#[test]
fn a_compaction_is_pre_compact_then_a_compact_session_start() {
    let t = read("compaction.jsonl");
    assert_eq!(
        timeline(&t),
        [
            "SessionStart",
            "UserPromptSubmit prompt:summarise the plan",
            "Stop",
            "PreCompact",
            "SessionStart",
            "UserPromptSubmit prompt:continue with step two",
            "PreToolUse tool:Grep",
            "PostToolUse tool:Grep",
            "Stop",
            // The older layout marks a compaction with only the summary line.
            "PreCompact",
            "SessionStart",
            "SessionEnd",
        ]
    );
    assert_eq!(t.records[3].extra["trigger"], "manual");
    assert_eq!(t.records[4].extra["source"], "compact");
    assert_eq!(t.records[10].extra["source"], "compact");
}

#[test]
fn inline_sidechains_become_subagent_lanes_closed_by_their_task_result() {
    let t = read("inline-sidechain.jsonl");
    assert_eq!(
        timeline(&t),
        [
            "SessionStart",
            "UserPromptSubmit prompt:find the config loader",
            "PreToolUse tool:Task",
            "SubagentStart @sidechain-1",
            "PreToolUse tool:Grep @sidechain-1",
            "PostToolUse tool:Grep @sidechain-1",
            "SubagentStop @sidechain-1",
            "PostToolUse tool:Task",
            // No stop_reason in this layout: the turn ended when the next prompt came.
            "Stop",
            "UserPromptSubmit prompt:thanks",
            "Stop",
            "SessionEnd",
        ]
    );
    // As the hook steps it: an event a sequence may react to, never a stop gate.
    assert_eq!(find(&t, "SubagentStop").phase, Some(Phase::Advance));
    assert_eq!(t.tool_use_ids, 2);
}

#[test]
fn subagent_files_of_the_2_1_layout_are_found_and_placed_in_the_timeline() {
    let t = read("v2.1/5c0ffee0-4444-4aaa-8bbb-000000000004.jsonl");
    let names: Vec<String> = t
        .subagent_files
        .iter()
        .map(|p| {
            p.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        names,
        [
            "agent-a1b2c3d4e5f60718.jsonl",
            "agent-a9f8e7d6c5b4a392.jsonl"
        ]
    );
    assert_eq!(
        timeline(&t),
        [
            "SessionStart",
            "UserPromptSubmit prompt:review the parser",
            "PreToolUse tool:Agent",
            // Linked by the Agent result's agentId: just before that result.
            "SubagentStart @a1b2c3d4e5f60718",
            "PreToolUse tool:Glob @a1b2c3d4e5f60718",
            "PostToolUse tool:Glob @a1b2c3d4e5f60718",
            "PreToolUse tool:Read @a1b2c3d4e5f60718",
            "PostToolUse tool:Read @a1b2c3d4e5f60718",
            "SubagentStop @a1b2c3d4e5f60718",
            // Not linked to any call: placed by time.
            "SubagentStart @a9f8e7d6c5b4a392",
            "PreToolUse tool:Bash @a9f8e7d6c5b4a392",
            "PostToolUse tool:Bash @a9f8e7d6c5b4a392",
            "SubagentStop @a9f8e7d6c5b4a392",
            "PostToolUse tool:Agent",
            "Stop",
            "SessionEnd",
        ]
    );
    assert_eq!(t.tool_use_ids, 4, "main file and both subagent files");
    assert!(
        t.records
            .iter()
            .all(|r| r.session == "5c0ffee0-4444-4aaa-8bbb-000000000004")
    );
}

#[test]
fn flat_agent_files_of_the_2_0_layout_are_taken_only_for_their_session() {
    let t = read("v2.0/5c0ffee0-5555-4aaa-8bbb-000000000005.jsonl");
    assert_eq!(
        t.subagent_files.len(),
        1,
        "agent-0c0c0c0c belongs to another session"
    );
    assert_eq!(
        timeline(&t),
        [
            "SessionStart",
            "UserPromptSubmit prompt:audit the dependencies",
            "PreToolUse tool:Task",
            "SubagentStart @5e6f7a8b",
            "PreToolUse tool:Bash @5e6f7a8b",
            "PostToolUse tool:Bash @5e6f7a8b",
            "SubagentStop @5e6f7a8b",
            "PostToolUse tool:Task",
            // From the stop-hook summary; the end of the file does not repeat it.
            "Stop",
            "SessionEnd",
        ]
    );
    assert_eq!(t.tool_use_ids, 2);
}
