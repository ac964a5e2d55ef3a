//! `seed mcp` spoken to over stdio like an MCP client would, checked against the CLI's output
//! for the same state: one truth, two faces.

use crate::support::mcp as mcp_common;

use std::path::Path;

use mcp_common::{
    Client, SESSION, cli_view, hook_call, output_of, seed, stdout_of, text, without_session,
};
use serde_json::{Value, json};

fn cli_json(cmd: &mut assert_cmd::Command) -> Value {
    serde_json::from_str(&stdout_of(cmd)).unwrap()
}

#[test]
fn tools_answer_exactly_what_the_cli_answers() {
    let home = tempfile::tempdir().unwrap();
    // Calling seed's own tools moves compound_intelligence: who_am_i → what_do_i_do.
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    hook_call(home.path(), "mcp__seed__what_do_i_do", "toolu_2");

    let mut c = Client::start(home.path(), Some(SESSION));
    let list = c.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "status",
            "recovery",
            "explain",
            "sequences",
            "validate",
            "who_am_i",
            "what_do_i_do",
            "how_do_i",
            "add_to_seed"
        ]
    );
    for t in list["result"]["tools"].as_array().unwrap() {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
    }

    let status = c.call("status", json!({}));
    let cli = cli_view(seed(home.path()).args(["status", "--session", SESSION]));
    assert_eq!(text(&status).trim_end(), cli.trim_end());
    assert_eq!(status["result"]["isError"], false);
    assert!(
        cli.contains("base") && cli.contains("100%"),
        "who_am_i → what_do_i_do filled the base layer:\n{cli}"
    );
    let json = without_session(cli_json(seed(home.path()).args([
        "status",
        "--session",
        SESSION,
        "--json",
    ])));
    assert_eq!(c.structured("status", json!({})), json);
    assert_eq!(json["next"]["tool"], "mcp__starlog__check");

    let recovery = c.call("recovery", json!({}));
    let cli = cli_view(seed(home.path()).args(["recovery", "--session", SESSION]));
    assert_eq!(text(&recovery).trim_end(), cli.trim_end());
    let json = without_session(cli_json(seed(home.path()).args([
        "recovery",
        "--session",
        SESSION,
        "--json",
    ])));
    assert_eq!(c.structured("recovery", json!({})), json);

    let sequences = c.call("sequences", json!({}));
    assert_eq!(
        text(&sequences),
        stdout_of(seed(home.path()).arg("sequences"))
    );
    let json = cli_json(seed(home.path()).args(["sequences", "--json"]));
    assert_eq!(c.structured("sequences", json!({}))["sequences"], json);

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sequences");
    let validate = c.call("validate", json!({"paths": [dir]}));
    assert_eq!(
        text(&validate),
        stdout_of(seed(home.path()).arg("validate").arg(&dir))
    );
    assert_eq!(validate["result"]["isError"], false);
}

#[test]
fn validate_is_an_error_exactly_when_the_cli_exits_1() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("proposals");
    std::fs::create_dir(&dir).unwrap();
    let good = dir.join("good.json");
    std::fs::write(
        &good,
        r#"{"name": "good", "tool_transitions": {"a": {"next_allowed": ["b"]}}}"#,
    )
    .unwrap();
    // A load error (the name is not a string) and a lint error (a layer names no step).
    let unloadable = dir.join("unloadable.json");
    std::fs::write(&unloadable, r#"{"name": 1}"#).unwrap();
    let linted = dir.join("linted.json");
    std::fs::write(
        &linted,
        r#"{"name": "linted", "tool_transitions": {"a": {"next_allowed": ["b"]}},
            "progress_layers": {"base": {"range": [0, 50], "steps": ["nowhere"]}}}"#,
    )
    .unwrap();
    let mut c = Client::start(home.path(), None);

    for (paths, code) in [
        (vec![&good], 0),
        (vec![&unloadable], 1),
        (vec![&linted], 1),
        (vec![&good, &unloadable], 1),
        (vec![&dir], 1),
    ] {
        let (cli, exit) = output_of(seed(home.path()).arg("validate").args(&paths));
        assert_eq!(exit, code, "the CLI's verdict on {paths:?}:\n{cli}");
        let answer = c.call("validate", json!({ "paths": paths }));
        assert_eq!(text(&answer), cli, "same text for {paths:?}");
        assert_eq!(
            answer["result"]["isError"],
            code == 1,
            "isError exactly when `seed validate` exits 1: {paths:?}\n{answer}"
        );
    }
    let (cli, exit) = output_of(seed(home.path()).arg("validate"));
    let builtins = c.call("validate", json!({}));
    assert_eq!(
        (text(&builtins), builtins["result"]["isError"].clone()),
        (cli, json!(exit == 1))
    );
}

/// Each tool `tools/list` shows is called through the stdio client and its result checked
/// against what it must say for this state; a tool added to the list without a case here
/// fails the test.
#[test]
fn every_listed_tool_answers_over_stdio() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    std::fs::write(
        home.path().join("how_do_i.seed"),
        "## carton\nAdd concepts.\n",
    )
    .unwrap();
    let mut c = Client::start(home.path(), Some(SESSION));
    let cli_status = without_session(cli_json(seed(home.path()).args([
        "status",
        "--session",
        SESSION,
        "--json",
    ])));
    let next = cli_status["next"]["tool"].as_str().unwrap().to_string();
    assert_eq!(next, "mcp__seed__what_do_i_do");

    let list = c.request("tools/list", json!({}));
    let names: Vec<String> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 9);
    for name in &names {
        let args = match name.as_str() {
            "how_do_i" => json!({"component": "carton"}),
            "explain" => json!({"call": "mcp__seed__what_do_i_do"}),
            "add_to_seed" => json!({"file_name": "mine.json",
                "text": r#"{"name": "mine", "tool_transitions": {"a": {"next_allowed": ["b"]}}}"#}),
            _ => json!({}),
        };
        let answer = c.call(name, args.clone());
        assert_eq!(answer["result"]["isError"], false, "{name}: {answer}");
        let (t, s) = (text(&answer), &c.structured(name, args));
        match name.as_str() {
            "status" => assert_eq!(s, &cli_status),
            "recovery" => assert_eq!(
                t.trim_end(),
                cli_view(seed(home.path()).args(["recovery", "--session", SESSION])).trim_end()
            ),
            "sequences" => assert_eq!(t, stdout_of(seed(home.path()).arg("sequences"))),
            "validate" => assert_eq!(t, stdout_of(seed(home.path()).arg("validate"))),
            "who_am_i" => {
                assert!(t.contains("\"compound_intelligence\""), "{t}");
                assert_eq!(s["source"], "session");
            }
            // The next step `status` names, in the agent's spelling.
            "what_do_i_do" => assert!(t.contains(&format!("Do next: call {next}")), "{t}"),
            // The section, then the server's steps in the session's sequence.
            "how_do_i" => {
                assert!(
                    t.starts_with("Add concepts.\n\"carton\" in \"compound_intelligence\""),
                    "{t}"
                );
                assert_eq!(s["source"], "file+session");
            }
            "add_to_seed" => {
                assert_eq!(s["valid"], true, "{answer}");
                assert!(!home.path().join("sequences/mine.json").exists());
            }
            // The railroad's next call: the step that takes it decides.
            "explain" => {
                assert!(t.contains("mcp__seed__what_do_i_do: allow"), "{t}");
                assert_eq!(s["sequences"][0]["rules"][0]["kind"], "step", "{s}");
            }
            other => panic!("`{other}` is listed but has no case here"),
        }
    }
}

/// A waypoint journey that became active between hook events: the MCP `status` says what the
/// hook would decide now, marked as moved by files, in the words `seed status` prints.
#[test]
fn status_shows_what_the_files_moved_as_the_cli_does() {
    let home = tempfile::tempdir().unwrap();
    let heaven = home.path().join("heaven");
    let heaven_s = heaven.display().to_string();
    for (i, tool) in [
        "mcp__seed__who_am_i",
        "mcp__seed__what_do_i_do",
        "mcp__starlog__check",
        "mcp__starlog__orient",
        "mcp__starship__fly",
        "mcp__waypoint__start_waypoint_journey",
    ]
    .iter()
    .enumerate()
    {
        let payload = json!({
            "session_id": SESSION, "transcript_path": "", "cwd": home.path(),
            "hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": {},
            "tool_use_id": format!("toolu_{i}"), "tool_response": "ok"
        });
        stdout_of(
            seed(home.path())
                .env("HEAVEN_DATA_DIR", &heaven)
                .arg("hook")
                .write_stdin(payload.to_string()),
        );
    }
    std::fs::create_dir_all(heaven.join("waypoints")).unwrap();
    std::fs::write(
        heaven.join("waypoints/parser.json"),
        r#"{"status":"active"}"#,
    )
    .unwrap();

    let mut c = Client::start_with(
        home.path(),
        Some(SESSION),
        &[("HEAVEN_DATA_DIR", Some(&heaven_s))],
    );
    let mcp = text(&c.call("status", json!({})));
    let cli = cli_view(seed(home.path()).env("HEAVEN_DATA_DIR", &heaven).args([
        "status",
        "--session",
        SESSION,
    ]));
    // The first line says when the file changed, in whole seconds: the rest is the same.
    let (mcp_moved, mcp_rest) = mcp.split_once('\n').unwrap();
    let (cli_moved, cli_rest) = cli.split_once('\n').unwrap();
    for line in [mcp_moved, cli_moved] {
        assert!(
            line.starts_with("moved by files: parser.json changed "),
            "{line}\n{mcp}"
        );
    }
    assert_eq!(mcp_rest.trim_end(), cli_rest.trim_end());
    assert!(cli_rest.contains("waypoint_active_learning"), "{cli}");
    let json = c.structured("status", json!({}));
    assert_eq!(
        json["moved_by_files"]["files"][0]["readers"],
        json!(["waypoint_status"])
    );
}
