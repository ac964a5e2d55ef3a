//! A small MCP server over streamable HTTP (served by the model stand-in under `/mcp/`) with
//! one tool, `odyssean_anchor(stage)`, as the odyssean anchor's server offers it. Each call
//! answers `anchored: <stage>`, except `bind`: it grants the permit (seed 001: "Returns:
//! SUCCESS + WORK_PERMIT") when its payload has a COMMIT section, and rejects it otherwise.
//! The request log keeps the calls.

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
            let args = &req["params"]["arguments"];
            json!({"content": [{"type": "text", "text": stage_answer(args)}]})
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

/// What the server answers a call with `args`.
pub fn stage_answer(args: &Value) -> String {
    let stage = args["stage"].as_str().unwrap_or("?");
    let payload = args["payload"].as_str().unwrap_or("");
    match stage {
        "bind" if payload.contains("COMMIT") => BIND_GRANTED.to_string(),
        "bind" => BIND_REJECTED.to_string(),
        _ => format!("anchored: {stage}"),
    }
}

pub const BIND_GRANTED: &str = "SUCCESS\nWORK_PERMIT: granted for this session";
pub const BIND_REJECTED: &str = "REJECTED: the binding proof has no COMMIT section; bind again with BIND, ARM, TENSIONS and COMMIT";
