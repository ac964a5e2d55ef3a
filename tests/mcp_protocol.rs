//! `seed mcp` under bad input: each gets a clear JSON-RPC error, and the server keeps answering.

mod mcp_common;

use mcp_common::{Client, error_message, text};
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
