//! A small MCP server over streamable HTTP (served by the model stand-in under `/mcp/`) with
//! one tool, `odyssean_anchor(stage)`, as the odyssean anchor's server offers it. Each call
//! answers `anchored: <stage>`; the request log keeps the calls.

use serde_json::{Value, json};
use tiny_http::Method;

/// The `--mcp-config` entry that points Claude Code at this server.
pub fn config(base_url: &str) -> Value {
    json!({"type": "http", "url": format!("{base_url}/mcp/anchor")})
}

/// The HTTP status and JSON-RPC answer (none for a notification) to one request.
pub fn answer(method: &Method, req: &Value) -> (u16, Option<Value>) {
    if *method != Method::Post {
        // No server-initiated stream.
        return (405, None);
    }
    let Some(id) = req.get("id").cloned() else {
        return (202, None);
    };
    let result = match req["method"].as_str().unwrap_or_default() {
        "initialize" => json!({
            "protocolVersion": req["params"]["protocolVersion"].as_str().unwrap_or("2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "anchor", "version": "0.0.1"},
        }),
        "tools/list" => json!({"tools": [{
            "name": "odyssean_anchor",
            "description": "Anchor the agent: stage init, identify, contextualize, bind.",
            "inputSchema": {
                "type": "object",
                "properties": {"stage": {"type": "string"}},
                "required": ["stage"],
            },
        }]}),
        "tools/call" => {
            let stage = req["params"]["arguments"]["stage"].as_str().unwrap_or("?");
            json!({"content": [{"type": "text", "text": format!("anchored: {stage}")}]})
        }
        "ping" => json!({}),
        other => {
            let error = json!({"code": -32601, "message": format!("unknown method {other}")});
            return (
                200,
                Some(json!({"jsonrpc": "2.0", "id": id, "error": error})),
            );
        }
    };
    (
        200,
        Some(json!({"jsonrpc": "2.0", "id": id, "result": result})),
    )
}
