//! The handshake: a broken `initialize` is told which field is wrong, a request before
//! `initialize` is told to initialize first, a notification before it is ignored, and after all
//! of that a valid client is served as if nothing had happened. A client of the per-request
//! lifecycle (its `_meta` names the protocol version) is served without `initialize`.

use crate::support::mcp as mcp_common;

use mcp_common::{Client, error_message, text};
use serde_json::{Value, json};

const CLIENT_INFO: &str = r#"{"name": "t", "version": "1"}"#;

fn send(c: &mut Client, id: u64, method: &str, params: &str) -> Value {
    c.send_line(&format!(
        r#"{{"jsonrpc": "2.0", "id": {id}, "method": "{method}", "params": {params}}}"#
    ));
    loop {
        let reply = c.read_message();
        if reply["id"] == json!(id) {
            return reply;
        }
    }
}

#[test]
fn a_broken_initialize_names_the_field_and_a_good_one_still_works() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::spawn(home.path(), None, &[]);
    let cases = [
        (
            "{}".to_string(),
            "initialize: `protocolVersion` is missing (a string such as \"2025-11-25\"); \
             `capabilities` is missing (an object; `{}` for none); \
             `clientInfo` is missing (an object with `name` and `version`)",
        ),
        (
            format!(r#"{{"protocolVersion": "2025-06-18", "clientInfo": {CLIENT_INFO}}}"#),
            "initialize: `capabilities` is missing (an object; `{}` for none)",
        ),
        (
            format!(
                r#"{{"protocolVersion": 5, "capabilities": {{}}, "clientInfo": {CLIENT_INFO}}}"#
            ),
            "initialize: `protocolVersion` must be a string such as \"2025-11-25\", got a number",
        ),
        (
            r#"{"protocolVersion": "2025-06-18", "capabilities": [], "clientInfo": {"name": 1}}"#
                .to_string(),
            "initialize: `capabilities` must be an object, got an array; \
             `clientInfo.name` must be a string, got a number; \
             `clientInfo.version` is missing (a string)",
        ),
    ];
    for (i, (params, want)) in cases.iter().enumerate() {
        let reply = send(&mut c, i as u64 + 1, "initialize", params);
        assert_eq!(reply["error"]["code"], -32602, "{params}: {reply}");
        assert_eq!(error_message(&reply), *want, "{params}");
        assert!(
            !error_message(&reply).contains("_meta"),
            "not rmcp's words about per-request metadata: {reply}"
        );
    }
    // No params at all.
    c.send_line(r#"{"jsonrpc": "2.0", "id": 9, "method": "initialize"}"#);
    let reply = c.read_message();
    assert_eq!(
        (reply["id"].clone(), reply["error"]["code"].clone()),
        (json!(9), json!(-32602))
    );
    assert!(error_message(&reply).ends_with("got nothing"), "{reply}");

    c.initialize();
    assert!(text(&c.call("sequences", json!({}))).contains("compound_intelligence"));
    // After the handshake, a broken `initialize` is answered in the same words.
    let again = send(&mut c, 99, "initialize", "{}");
    assert_eq!(error_message(&again), cases[0].1);
}

#[test]
fn a_request_before_initialize_is_told_to_initialize_first() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::spawn(home.path(), None, &[]);
    for (id, method, params) in [
        (1, "tools/list", "{}"),
        (2, "tools/call", r#"{"name": "status", "arguments": {}}"#),
        (3, "tools/call", r#"{"name": "status", "arguments": 5}"#),
        (4, "resources/list", "{}"),
    ] {
        let reply = send(&mut c, id, method, params);
        // MCP's own code for this is none: -32002 is "resource not found" there, so a request
        // that comes too early is an invalid request.
        assert_eq!(reply["error"]["code"], -32600, "{method}: {reply}");
        assert_eq!(
            error_message(&reply),
            format!("server not initialized: send `initialize` first (got `{method}` before it)")
        );
    }
    // `ping` is allowed before initialize.
    let pong = send(&mut c, 5, "ping", "{}");
    assert_eq!(pong["result"], json!({}), "{pong}");
    c.initialize();
    let list = c.request("tools/list", json!({}));
    assert_eq!(
        list["result"]["tools"].as_array().map(Vec::len),
        Some(seed::mcp::specs::NAMES.len())
    );
}

/// A notification (or a stray response) before `initialize` is never answered and does not
/// end the server: rmcp alone would stop serving on it.
#[test]
fn a_notification_before_initialize_is_ignored_and_the_server_lives_on() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::spawn(home.path(), None, &[]);
    for line in [
        r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#,
        r#"{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}"#,
        r#"{"jsonrpc": "2.0", "id": 70, "result": {}}"#,
    ] {
        c.send_line(line);
    }
    let pong = send(&mut c, 1, "ping", "{}");
    assert_eq!(
        pong["result"],
        json!({}),
        "nothing else was answered first: {pong}"
    );
    assert!(c.running());
    c.initialize();
    assert!(text(&c.call("sequences", json!({}))).contains("compound_intelligence"));
}

/// A client of the per-request lifecycle sends no `initialize`: its requests carry the
/// protocol version and capabilities in `_meta`, and are served. Incomplete metadata is
/// answered with what is missing from it.
#[test]
fn a_per_request_lifecycle_client_is_served_without_initialize() {
    let home = tempfile::tempdir().unwrap();
    let mut c = Client::spawn(home.path(), None, &[]);
    let partial = send(
        &mut c,
        1,
        "tools/list",
        r#"{"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}"#,
    );
    assert_eq!(partial["error"]["code"], -32602, "{partial}");
    assert!(
        error_message(&partial).contains("io.modelcontextprotocol/clientCapabilities"),
        "{partial}"
    );
    let meta = concat!(
        r#""_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "#,
        r#""io.modelcontextprotocol/clientCapabilities": {}}"#
    );
    for id in [2, 3] {
        let reply = send(
            &mut c,
            id,
            "tools/call",
            &format!(r#"{{"name": "sequences", "arguments": {{}}, {meta}}}"#),
        );
        assert!(
            text(&reply).contains("compound_intelligence"),
            "request {id}: {reply}"
        );
    }
}
