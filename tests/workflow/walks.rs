//! Walks through the shipped `hiivmind_add_source` workflow (seed 003), one per source type,
//! with the hook events an agent following the workflow produces: for each call, the
//! PreToolUse verdict, then the node, progress and next expected call after its PostToolUse.

use crate::support::workflow as workflow_common;

use serde_json::json;
use workflow_common::walk::*;

#[test]
fn starts_by_reading_the_config_when_it_exists() {
    let r = start();
    assert_eq!(r.here(), "locate_corpus");
    assert_eq!(r.progress(), 0.0);
    assert_eq!(
        r.next_tool().as_deref(),
        Some("Read(file_path=\"data/config.yaml\")")
    );
    let status = r.m.status(&r.snap);
    assert!(
        status.allowed.calls().iter().any(|a| a == "Grep"),
        "looking around is always allowed: {:?}",
        status.allowed
    );
}

#[test]
fn git_path() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_config(8),
            ask("Git repository", "collect_git_url", 50, ASK),
            ask("https://github.com/acme/docs", "name_source", 58, ASK),
            ask(
                "docs",
                "clone_source.create_directory",
                67,
                Some("Bash(command=\"mkdir -p .source\")"),
            ),
            call(
                "Bash",
                json!({"command": "mkdir -p .source"}),
                "clone_source.clone_repo",
                69,
                Some(
                    "Bash(command=\"git clone --depth 1 https://github.com/acme/docs .source/docs\")",
                ),
            ),
            call(
                "Bash",
                json!({"command": "git clone --depth 1 https://github.com/acme/docs .source/docs"}),
                "clone_source.get_sha",
                72,
                Some("Bash(command=\"git -C .source/docs rev-parse HEAD\")"),
            ),
            call_returning(
                "Bash",
                json!({"command": "git -C .source/docs rev-parse HEAD"}),
                json!({"stdout": "9b1f0c2d7e\n", "stderr": "", "interrupted": false}),
                "write_source_entry",
                75,
                WRITE_CONFIG,
            ),
            call(
                "Edit",
                json!({"file_path": CONFIG, "old_string": "sources: []", "new_string": "sources: [docs]"}),
                "prompt_build_index",
                83,
                ASK,
            ),
            ask("Later", "success", 100, AGAIN),
        ],
    );
    ended(&r, "success", true);
    assert_eq!(r.var("source_type"), json!("git"));
    assert_eq!(r.flag("source_type_git"), Some(true));
    assert_eq!(r.flag("is_first_source"), Some(true));
    assert_eq!(r.var("source_url"), json!("https://github.com/acme/docs"));
    assert_eq!(r.var("source_sha"), json!("9b1f0c2d7e"));
    assert_eq!(r.var("source_id"), json!("docs"), "the id the user typed");
}

#[test]
fn a_corpus_that_has_sources_is_not_asked_about_its_first_build() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_corpus(CORPUS_WITH_SOURCES, 8),
            ask("Git repository", "collect_git_url", 50, ASK),
            ask("https://github.com/acme/api-docs", "name_source", 58, ASK),
            ask(
                "api",
                "clone_source.create_directory",
                67,
                Some("Bash(command=\"mkdir -p .source\")"),
            ),
            call(
                "Bash",
                json!({"command": "mkdir -p .source"}),
                "clone_source.clone_repo",
                69,
                Some(
                    "Bash(command=\"git clone --depth 1 https://github.com/acme/api-docs .source/api\")",
                ),
            ),
            call(
                "Bash",
                json!({"command": "git clone --depth 1 https://github.com/acme/api-docs .source/api"}),
                "clone_source.get_sha",
                72,
                Some("Bash(command=\"git -C .source/api rev-parse HEAD\")"),
            ),
            call(
                "Bash",
                json!({"command": "git -C .source/api rev-parse HEAD"}),
                "write_source_entry",
                75,
                WRITE_CONFIG,
            ),
            // The second source: check_first_source goes straight to the ending.
            call(
                "Edit",
                json!({"file_path": CONFIG, "old_string": "sources:\n", "new_string": "sources:\n  - id: api\n"}),
                "success",
                100,
                AGAIN,
            ),
        ],
    );
    ended(&r, "success", true);
    assert_eq!(r.flag("is_first_source"), Some(false));
    assert_eq!(r.var("config")["sources"][0]["id"], json!("handbook"));
}

#[test]
fn a_local_source_added_to_a_corpus_with_sources_ends_after_the_config_write() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_corpus(CORPUS_WITH_SOURCES, 8),
            ask("Local files", "ask_local_placement", 17, ASK),
            ask("Files are in place", "name_source", 58, ASK),
            ask("notes", "write_source_entry", 75, WRITE_CONFIG),
            call(
                "Write",
                json!({"file_path": CONFIG, "content": "sources:\n  - id: handbook\n  - id: notes\n"}),
                "success",
                100,
                AGAIN,
            ),
        ],
    );
    ended(&r, "success", true);
}

#[test]
fn local_path() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_config(8),
            ask("Local files", "ask_local_placement", 17, ASK),
            ask("Files are in place", "name_source", 58, ASK),
            ask("notes", "write_source_entry", 75, WRITE_CONFIG),
            call(
                "Write",
                json!({"file_path": CONFIG, "content": "sources:\n  - id: notes\n"}),
                "prompt_build_index",
                83,
                ASK,
            ),
            ask("Later", "success", 100, AGAIN),
        ],
    );
    ended(&r, "success", true);
    assert_eq!(r.var("source_type"), json!("local"));
    // record_source ran on the way: checkpoint, phase, history, merged source.
    assert_eq!(r.var("phase"), json!("writing"));
    assert_eq!(
        r.var("added_types"),
        json!(["local"]),
        "`${{source_type}}` reads the variable when the action runs"
    );
    assert!(r.snap.checkpoints.contains_key("before_config_write"));
}

#[test]
fn web_path() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_config(8),
            ask("Web pages", "collect_web_url", 17, ASK),
            ask("https://blog.example.com/post", "name_source", 58, ASK),
            ask(
                "blog",
                "fetch_web_pages.web_fetch",
                67,
                Some("WebFetch(url=\"https://blog.example.com/post\")"),
            ),
            call_returning(
                "WebFetch",
                json!({"url": "https://blog.example.com/post", "prompt": "the article as markdown"}),
                fetched("https://blog.example.com/post", 200, "# Post"),
                "fetch_web_pages.write_file",
                71,
                Some("Write(file_path=\"data/web/blog/page.md\")"),
            ),
            call(
                "Write",
                json!({"file_path": "/home/me/corpus/data/web/blog/page.md", "content": "# Post"}),
                "write_source_entry",
                75,
                WRITE_CONFIG,
            ),
            call(
                "Edit",
                json!({"file_path": CONFIG, "old_string": "a", "new_string": "b"}),
                "prompt_build_index",
                83,
                ASK,
            ),
            ask(
                "Build now",
                "load_build_guide",
                92,
                Some(
                    "Read(file_path=\"${CLAUDE_PLUGIN_ROOT}/lib/corpus/patterns/index-generation.md\")",
                ),
            ),
            call(
                "Read",
                json!({"file_path": "/plugins/hiivmind-corpus/lib/corpus/patterns/index-generation.md"}),
                "success_build_next",
                100,
                AGAIN,
            ),
        ],
    );
    ended(&r, "success_build_next", true);
    assert_eq!(r.var("page")["status"], json!(200));
}

#[test]
fn llms_txt_path() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_config(8),
            ask("llms.txt site", "collect_site_url", 17, ASK),
            ask(
                "https://docs.example.dev",
                "try_llms_txt_detection",
                25,
                Some("WebFetch(url=\"https://docs.example.dev/llms.txt\")"),
            ),
            call_returning(
                "WebFetch",
                json!({"url": "https://docs.example.dev/llms.txt", "prompt": "list the sections"}),
                fetched(
                    "https://docs.example.dev/llms.txt",
                    200,
                    "# Docs\n- [Intro](intro.md)",
                ),
                "present_manifest_option",
                33,
                ASK,
            ),
            ask("Yes, use llms-txt", "collect_llms_details", 42, ASK),
            ask("All pages", "name_source", 58, ASK),
            ask(
                "docs",
                "cache_manifest",
                67,
                Some("Write(file_path=\"data/llms/docs/llms.txt\")"),
            ),
            call(
                "Write",
                json!({"file_path": "/home/me/corpus/data/llms/docs/llms.txt", "content": "# Docs"}),
                "write_source_entry",
                75,
                WRITE_CONFIG,
            ),
            call(
                "Edit",
                json!({"file_path": CONFIG, "old_string": "a", "new_string": "b"}),
                "prompt_build_index",
                83,
                ASK,
            ),
            ask("Later", "success", 100, AGAIN),
        ],
    );
    ended(&r, "success", true);
    assert_eq!(r.flag("manifest_detected"), Some(true));
    assert_eq!(
        (r.var("source_type"), r.var("llms_scope")),
        (json!("llms-txt"), json!("all"))
    );
    assert_eq!(r.var("manifest_check")["status"], json!(200));
}

#[test]
fn llms_txt_without_a_manifest_falls_back_to_choosing_a_type() {
    let mut r = start();
    walk(
        &mut r,
        &[
            read_config(8),
            ask("llms.txt site", "collect_site_url", 17, ASK),
            ask(
                "https://plain.example.org",
                "try_llms_txt_detection",
                25,
                Some("WebFetch(url=\"https://plain.example.org/llms.txt\")"),
            ),
            Step {
                ok: false,
                ..call(
                    "WebFetch",
                    json!({"url": "https://plain.example.org/llms.txt"}),
                    "ask_source_type",
                    42,
                    ASK,
                )
            },
            ask("Git repository", "collect_git_url", 50, ASK),
        ],
    );
    assert_eq!(
        r.var("manifest_check")["status"],
        json!(0),
        "allow_failure recorded the failed fetch"
    );
}
