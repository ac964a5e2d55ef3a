//! Claude Code hands the model a tool result's `structuredContent` (as JSON) instead of its text
//! whenever there is one. So every tool answers with the text the CLI prints, and only a call
//! that asks for it (`json: true`) gets the object `--json` prints, as structured content and
//! as its text.

use crate::support::mcp as mcp_common;

use mcp_common::{Client, SESSION, cli_view, hook_call, seed, stdout_of, text, without_session};
use serde_json::{Value, json};

fn args_for(tool: &str) -> Value {
    match tool {
        "how_do_i" => json!({"component": "starlog.check"}),
        "explain" => json!({"call": "Bash(command=\"git push\")"}),
        "add_to_seed" => json!({"file_name": "mine.json",
            "text": r#"{"name": "mine", "tool_transitions": {"a": {"next_allowed": ["b"]}}}"#}),
        _ => json!({}),
    }
}

#[test]
fn every_tool_answers_the_model_with_text_and_no_structured_content() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    let mut c = Client::start(home.path(), Some(SESSION));
    for tool in seed::mcp::specs::NAMES {
        for args in [args_for(tool), {
            let mut a = args_for(tool);
            a["json"] = json!(false);
            a
        }] {
            let answer = c.call(tool, args.clone());
            let result = &answer["result"];
            assert_eq!(result["isError"], false, "{tool} {args}: {answer}");
            assert_eq!(
                result.get("structuredContent"),
                None,
                "{tool} {args}: Claude Code would show the model this instead of the text"
            );
            let t = text(&answer);
            assert!(!t.trim().is_empty(), "{tool}");
            assert!(
                serde_json::from_str::<Value>(&t).is_err(),
                "{tool}: the text is prose, not JSON: {t}"
            );
        }
    }
    // The model reads exactly what the CLI prints (after the CLI's line naming the session,
    // which the tools answering for the calling session leave out).
    let status = text(&c.call("status", json!({})));
    let cli = cli_view(seed(home.path()).args(["status", "--session", SESSION]));
    assert_eq!(status.trim_end(), cli.trim_end());
}

#[test]
fn json_true_answers_with_the_clis_json_object_as_structured_content_and_text() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    let mut c = Client::start(home.path(), Some(SESSION));
    for tool in ["status", "recovery"] {
        let answer = c.call_json(tool, json!({}));
        let cli: Value = without_session(
            serde_json::from_str(&stdout_of(seed(home.path()).args([
                tool,
                "--session",
                SESSION,
                "--json",
            ])))
            .unwrap(),
        );
        assert_eq!(answer["result"]["structuredContent"], cli, "{tool}");
        let as_text: Value = serde_json::from_str(&text(&answer)).expect("the text is the JSON");
        assert_eq!(as_text, cli, "{tool}");
    }
    for tool in seed::mcp::specs::NAMES {
        let answer = c.call_json(tool, args_for(tool));
        let structured = &answer["result"]["structuredContent"];
        assert!(structured.is_object(), "{tool}: {answer}");
        let as_text: Value = serde_json::from_str(&text(&answer)).expect("the text is the JSON");
        assert_eq!(&as_text, structured, "{tool}");
    }
    let who = c.structured("who_am_i", json!({}));
    assert_eq!(who["source"], "session");
    assert!(
        who["text"]
            .as_str()
            .unwrap()
            .contains("\"compound_intelligence\"")
    );
}

#[test]
fn every_listed_tool_offers_json_as_a_boolean_argument() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start(home.path(), None);
    let list = c.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), seed::mcp::specs::NAMES.len());
    for t in tools {
        assert_eq!(
            t["inputSchema"]["properties"]["json"]["type"], "boolean",
            "{t}"
        );
    }
}
