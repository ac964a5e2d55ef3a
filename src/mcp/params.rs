//! Requests rmcp could not type. rmcp parses a request whose params do not fit its method
//! (`tools/call` with `"arguments": 5`) as a custom request, which would answer -32601 "method
//! not found"; a method MCP defines with the wrong params is -32602 "invalid params", with a
//! message that names the field.

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolRequestParams, ErrorCode};
use serde_json::Value;

/// Methods of the MCP specification a client may send to a server.
const MCP_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
    "logging/setLevel",
];

/// A JSON type in a message: "a number", "an array"…
pub use crate::protocol::input::kind_name as kind;

fn tools_call(params: Option<&Value>) -> String {
    let Some(Value::Object(p)) = params else {
        let got = params.map_or("nothing", kind);
        return format!(
            "tools/call: `params` must be an object with `name` and `arguments`, got {got}"
        );
    };
    let name = match p.get("name") {
        Some(Value::String(n)) => n.as_str(),
        other => {
            let got = other.map_or("nothing", kind);
            return format!("tools/call: `name` must be a string naming the tool, got {got}");
        }
    };
    match p.get("arguments") {
        Some(a @ (Value::Bool(_) | Value::Number(_) | Value::String(_) | Value::Array(_))) => {
            format!(
                "tools/call `{name}`: `arguments` must be an object, got {}",
                kind(a)
            )
        }
        _ => match serde_json::from_value::<CallToolRequestParams>(Value::Object(p.clone())) {
            Err(e) => format!("tools/call `{name}`: {e}"),
            Ok(_) => format!("tools/call `{name}`: invalid params"),
        },
    }
}

/// The error for a request rmcp handed over as custom.
pub fn custom_request_error(method: &str, params: Option<&Value>) -> McpError {
    match method {
        "tools/call" => McpError::invalid_params(tools_call(params), None),
        "initialize" => {
            McpError::invalid_params(super::lifecycle::initialize_params_error(params), None)
        }
        m if MCP_METHODS.contains(&m) => {
            let got = params.map_or("nothing", kind);
            McpError::invalid_params(
                format!("{m}: invalid params ({got}); see the MCP specification for its fields"),
                None,
            )
        }
        m => McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: `{m}`"),
            None,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(method: &str, params: Value) -> (i32, String) {
        let e = custom_request_error(method, Some(&params));
        (e.code.0, e.message.to_string())
    }

    #[test]
    fn tools_call_with_bad_params_is_invalid_params_naming_the_field() {
        assert_eq!(
            message("tools/call", json!({"name": "status", "arguments": 5})),
            (
                -32602,
                "tools/call `status`: `arguments` must be an object, got a number".into()
            )
        );
        assert_eq!(
            message("tools/call", json!({"name": "status", "arguments": [1]})).1,
            "tools/call `status`: `arguments` must be an object, got an array"
        );
        assert_eq!(
            message("tools/call", json!({"name": 3})).1,
            "tools/call: `name` must be a string naming the tool, got a number"
        );
        assert_eq!(
            message("tools/call", json!([1])).1,
            "tools/call: `params` must be an object with `name` and `arguments`, got an array"
        );
    }

    #[test]
    fn an_unknown_method_is_method_not_found() {
        assert_eq!(message("launch/rockets", json!({})).0, -32601);
        assert_eq!(message("tools/list", json!(5)).0, -32602);
    }
}
