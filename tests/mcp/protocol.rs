//! `seed mcp` under bad input: malformed lines, malformed params, unknown tools and methods,
//! unknown sessions, a missing state directory. Each gets a clear JSON-RPC or tool error, and
//! the server keeps answering.

use crate::support::mcp as mcp_common;

use mcp_common::{Client, SESSION, error_message, hook_call, text};
use serde_json::{Value, json};

#[test]
fn a_line_that_is_not_json_gets_a_parse_error_with_a_null_id() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start(home.path(), None);

    for garbage in [
        "this is not json",
        "{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\":",
    ] {
        c.send_line(garbage);
        let reply = c.read_message();
        assert_eq!(reply["id"], Value::Null, "{reply}");
        assert_eq!(reply["error"]["code"], -32700, "{reply}");
        assert!(error_message(&reply).starts_with("parse error"), "{reply}");
    }
    // JSON of the wrong shape is an invalid request, answered by its id.
    c.send_line(r#"{"jsonrpc": "1.0", "id": 41, "method": "ping"}"#);
    let reply = c.read_message();
    assert_eq!(
        (reply["id"].clone(), reply["error"]["code"].clone()),
        (json!(41), json!(-32600))
    );

    let sequences = c.call("sequences", json!({}));
    assert!(
        text(&sequences).contains("compound_intelligence"),
        "still serving"
    );
}

#[test]
fn arguments_that_are_not_an_object_are_invalid_params() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start(home.path(), None);

    for (arguments, got) in [
        (json!(5), "a number"),
        (json!(["session"]), "an array"),
        (json!("{}"), "a string"),
    ] {
        let answer = c.request(
            "tools/call",
            json!({"name": "status", "arguments": arguments}),
        );
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        assert_eq!(
            error_message(&answer),
            format!("tools/call `status`: `arguments` must be an object, got {got}")
        );
    }
    let nameless = c.request("tools/call", json!({"name": 7}));
    assert_eq!(nameless["error"]["code"], -32602, "{nameless}");
    assert!(error_message(&nameless).contains("`name` must be a string"));

    let unknown = c.request("launch/rockets", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
}

#[test]
fn wrong_typed_arguments_are_error_results_naming_the_field() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start(home.path(), None);

    for (tool, args, message) in [
        (
            "how_do_i",
            json!({"component": 3}),
            "`component` must be a string, got a number",
        ),
        (
            "status",
            json!({"session": 5}),
            "`session` must be a string, got a number",
        ),
        (
            "who_am_i",
            json!({"sequence": ["x"]}),
            "`sequence` must be a string, got an array",
        ),
        (
            "validate",
            json!({"paths": "sequences"}),
            "`paths` must be an array of strings",
        ),
        (
            "validate",
            json!({"paths": [1]}),
            "`paths` must be an array of strings",
        ),
        (
            "add_to_seed",
            json!({"text": "{}", "write": "yes"}),
            "`write` must be a boolean, got a string",
        ),
        ("how_do_i", json!({}), "`component` is required"),
        (
            "sequences",
            json!({"colour": "red"}),
            "unknown argument `colour`: expected json",
        ),
        (
            "status",
            json!({"colour": "red"}),
            "unknown argument `colour`: expected session, sequence, json",
        ),
        (
            "status",
            json!({"json": "yes"}),
            "`json` must be a boolean, got a string",
        ),
    ] {
        // A tool execution error the model reads, not a protocol error (SEP-1303).
        let answer = c.call(tool, args.clone());
        assert_eq!(answer["result"]["isError"], true, "{tool} {args}: {answer}");
        assert_eq!(
            text(&answer),
            format!("seed: invalid arguments for `{tool}`: {message}"),
            "{tool} {args}"
        );
    }
    let unknown = c.call("launch_rockets", json!({}));
    assert_eq!(unknown["error"]["code"], -32602);
    assert!(
        error_message(&unknown)
            .starts_with("unknown tool `launch_rockets`: expected one of status, recovery"),
        "{unknown}"
    );
}

#[test]
fn an_unknown_session_or_a_missing_state_directory_is_a_tool_error_naming_it() {
    let home = tempfile::tempdir().unwrap();
    hook_call(home.path(), "mcp__seed__who_am_i", "toolu_1");
    let mut c = Client::start(home.path(), None);

    let nobody = c.call("status", json!({"session": "no-such-session"}));
    assert_eq!(nobody["result"]["isError"], true);
    assert!(
        text(&nobody).starts_with("seed: no session `no-such-session` in "),
        "{nobody}"
    );
    let recovery = c.call("recovery", json!({"session": "no-such-session"}));
    assert_eq!(recovery["result"]["isError"], true);
    // Without a session id the most recent session answers.
    assert!(text(&c.call("status", json!({}))).contains("seed.who_am_i"));
    // The calling session's id comes from CLAUDE_CODE_SESSION_ID.
    let mut caller = Client::start(home.path(), Some("5eed-unknown"));
    let r = caller.call("status", json!({}));
    assert!(text(&r).contains("no session `5eed-unknown`"), "{r}");
    // So does `seed mcp --session`: every tool that reads the session says it is unknown.
    let mut named = Client::spawn_args(home.path(), None, &[], &["--session", "nope"]);
    named.initialize();
    for tool in ["status", "recovery", "what_do_i_do", "who_am_i"] {
        let r = named.call(tool, json!({}));
        assert_eq!(r["result"]["isError"], true, "{tool}: {r}");
        assert!(text(&r).starts_with("seed: no session `nope` in "), "{r}");
    }
    let mut known = Client::start(home.path(), Some(SESSION));
    assert_eq!(known.call("status", json!({}))["result"]["isError"], false);

    let gone = home.path().join("missing");
    let mut c2 = Client::start(&gone, None);
    for tool in ["status", "recovery"] {
        let r = c2.call(tool, json!({}));
        assert_eq!(r["result"]["isError"], true);
        assert!(
            text(&r).contains(&format!(
                "state directory {} does not exist",
                gone.display()
            )),
            "{r}"
        );
    }
    assert!(
        text(&c2.call("sequences", json!({}))).contains("compound_intelligence"),
        "still serving"
    );
}

#[test]
fn a_state_directory_that_is_a_file_is_named_as_not_a_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("seed-home");
    std::fs::write(&file, "").unwrap();
    let mut c = Client::start(&file, None);
    let want = format!(
        "state directory {} is not a directory (check SEED_HOME)",
        file.display()
    );
    for tool in ["status", "recovery"] {
        let r = c.call(tool, json!({}));
        assert_eq!(r["result"]["isError"], true, "{r}");
        assert_eq!(text(&r), format!("seed: {want}"), "{tool}");
    }
    let (out, code) = mcp_common::output_of(mcp_common::seed(&file).arg("status"));
    assert_eq!((out.as_str(), code), ("", 1));
    let err = mcp_common::seed(&file)
        .arg("status")
        .output()
        .unwrap()
        .stderr;
    assert!(
        String::from_utf8_lossy(&err).contains(&want),
        "the CLI says the same"
    );
}

#[test]
fn closing_stdin_is_a_normal_end_even_before_initialize() {
    let home = tempfile::tempdir().unwrap();
    for input in [
        "",
        "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\n",
    ] {
        let out = mcp_common::seed(home.path())
            .arg("mcp")
            .write_stdin(input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{input:?}: {out:?}");
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A stdin that cannot be read is not an end but a failure, said in one line.
    #[cfg(unix)]
    {
        let out = mcp_common::seed_std(home.path())
            .arg("mcp")
            .stdin(std::fs::File::open(home.path()).unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("seed: cannot read stdin: "), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// `"params": 5` is a well-formed request whose params are not structured: invalid params
/// (-32602), answered by its id, and the server keeps answering.
#[test]
fn params_that_are_not_an_object_are_invalid_params() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start(home.path(), None);
    for (id, method, params, got) in [
        (51, "tools/list", "5", "a number"),
        (52, "tools/call", "\"status\"", "a string"),
        (53, "ping", "true", "a boolean"),
    ] {
        c.send_line(&format!(
            r#"{{"jsonrpc": "2.0", "id": {id}, "method": "{method}", "params": {params}}}"#
        ));
        let reply = c.read_message();
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone()),
            (json!(id), json!(-32602)),
            "{reply}"
        );
        assert_eq!(
            error_message(&reply),
            format!("invalid params: {method}: `params` must be an object, got {got}")
        );
    }
    assert!(text(&c.call("sequences", json!({}))).contains("compound_intelligence"));
}

/// The last request on stdin is answered even without a trailing newline (a client that
/// writes one request and closes its end).
#[test]
fn the_last_request_without_a_newline_is_answered() {
    let home = tempfile::tempdir().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    for (last, want) in [
        (
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "sequences", "arguments": {}}})
            .to_string(),
            "result",
        ),
        (
            "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\":".to_string(),
            "error",
        ),
    ] {
        let input = format!("{init}\n{initialized}\n{last}");
        let out = mcp_common::seed(home.path())
            .arg("mcp")
            .write_stdin(input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let replies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(replies.len(), 2, "{replies:?}");
        assert!(replies[1].get(want).is_some(), "{}", replies[1]);
    }
}

/// A line longer than the 16 MiB limit is not buffered: it is answered once with an invalid
/// request (`id: null`, the id is somewhere in the part that was thrown away), and the server
/// keeps answering. A line just under the limit is read as usual.
#[test]
fn an_over_long_line_is_an_invalid_request_and_the_server_keeps_answering() {
    const LIMIT: usize = 16 * 1024 * 1024;
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::start(home.path(), None);
    let call = |id: u64, pad: usize| {
        let head = format!(
            r#"{{"jsonrpc": "2.0", "id": {id}, "method": "tools/call", "params": {{"name": "sequences", "arguments": {{}}, "pad": ""#
        );
        let tail = r#""}}"#;
        format!("{head}{}{tail}", "x".repeat(pad - head.len() - tail.len()))
    };
    let long = call(31, LIMIT + 2);
    assert_eq!(long.len(), LIMIT + 2);
    c.send_line(&long);
    let reply = c.read_message();
    assert_eq!(reply["id"], Value::Null, "{reply}");
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert_eq!(
        error_message(&reply),
        format!("invalid request: longer than {LIMIT} bytes")
    );
    // The rest of that line was skipped, not read as a message of its own.
    let sequences = c.call("sequences", json!({}));
    assert!(
        text(&sequences).contains("compound_intelligence"),
        "{sequences}"
    );
    // Just under the limit: an ordinary request.
    c.send_line(&call(32, LIMIT - 1));
    let reply = c.read_message();
    assert_eq!(reply["id"], 32);
    assert!(text(&reply).contains("compound_intelligence"), "{reply}");
}
