//! Messages that arrive before the lifecycle has started.
//!
//! rmcp 3.9 also serves the 2026-07-28 lifecycle, where every request carries its protocol
//! version and client capabilities in `_meta` instead of an `initialize` handshake. Before
//! either has started, it answers every other request — and an `initialize` whose params it
//! could not type — with "request _meta is missing or has malformed required fields", which
//! sends a client that forgot `initialize`, or sent a broken one, after the wrong fix. And a
//! notification before `initialize` (an early `notifications/initialized`) ends its service.
//! The transport asks `gate` about each message until the lifecycle starts:
//!
//! - a well-formed `initialize` starts it; a broken one is `-32602` naming its fields;
//! - `ping` is answered by rmcp (the specification allows it before `initialize`);
//! - a request whose `_meta` names a protocol version belongs to the per-request lifecycle and
//!   goes to rmcp, whose words about `_meta` are then the right ones;
//! - any other request is `-32600` "server not initialized". The handshake seed speaks is MCP
//!   2025-11-25, which defines no code of its own for this, and `-32002` (LSP's "server not
//!   initialized") is MCP's "resource not found": a request that comes too early is an
//!   invalid request;
//! - notifications and responses are never answered; before the lifecycle they are dropped,
//!   with a line on stderr (the server's log).

use rmcp::RoleServer;
use rmcp::model::{
    ClientRequest, ErrorCode, GetMeta, JsonRpcMessage, ProtocolVersion, RequestMetaObject,
};
use rmcp::service::RxJsonRpcMessage;
use serde_json::Value;

/// The `_meta` key of the per-request lifecycle (2026-07-28) that names the protocol version.
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// What to do with a message that arrived before the lifecycle started.
#[derive(Debug, PartialEq)]
pub enum Gate {
    /// Hand it to rmcp; the lifecycle has not started yet.
    Pass,
    /// Hand it to rmcp: it starts the lifecycle, so later messages are not gated.
    Start,
    /// Answer it with this error, by its id.
    Refuse {
        id: Value,
        code: ErrorCode,
        message: String,
    },
    /// Drop it, with this line for the log.
    Drop(String),
}

pub fn gate(msg: &RxJsonRpcMessage<RoleServer>) -> Gate {
    let req = match msg {
        JsonRpcMessage::Request(r) => r,
        JsonRpcMessage::Notification(n) => {
            let method = serde_json::to_value(&n.notification)
                .ok()
                .and_then(|v| v.get("method").and_then(Value::as_str).map(String::from))
                .unwrap_or_else(|| "a notification".into());
            return Gate::Drop(format!("seed mcp: ignored `{method}` before `initialize`"));
        }
        JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => {
            return Gate::Drop("seed mcp: ignored a response before `initialize`".into());
        }
    };
    let id = serde_json::to_value(&req.id).unwrap_or(Value::Null);
    match &req.request {
        ClientRequest::InitializeRequest(_) => Gate::Start,
        ClientRequest::PingRequest(_) => Gate::Pass,
        // rmcp types a method it knows with params that do not fit as a custom request.
        ClientRequest::CustomRequest(c) if c.method == "initialize" => {
            let e = super::params::custom_request_error(&c.method, c.params.as_ref());
            Gate::Refuse {
                id,
                code: e.code,
                message: e.message.into_owned(),
            }
        }
        other => {
            let meta = other.get_meta();
            if meta.0.0.contains_key(META_PROTOCOL_VERSION) {
                return if starts_per_request_lifecycle(other, meta) {
                    Gate::Start
                } else {
                    Gate::Pass
                };
            }
            Gate::Refuse {
                id,
                code: ErrorCode::INVALID_REQUEST,
                message: format!(
                    "server not initialized: send `initialize` first (got `{}` before it)",
                    other.method()
                ),
            }
        }
    }
}

/// Whether rmcp serves this request in the per-request lifecycle (and so leaves its
/// pre-initialize loop): complete `_meta`, a version it knows, and not the `server/discover`
/// probe, which leaves the choice open.
fn starts_per_request_lifecycle(req: &ClientRequest, meta: &RequestMetaObject) -> bool {
    !matches!(req, ClientRequest::DiscoverRequest(_))
        && meta
            .missing_required_keys(&ProtocolVersion::V_2026_07_28)
            .is_empty()
        && meta
            .protocol_version()
            .is_some_and(|v| ProtocolVersion::KNOWN_VERSIONS.contains(&v))
}

/// What an `initialize` rmcp could not type lacks, field by field: `initialize: …; …`.
pub fn initialize_params_error(params: Option<&Value>) -> String {
    let version = ProtocolVersion::LATEST_WITH_INITIALIZE;
    let kind = super::params::kind;
    let Some(Value::Object(p)) = params else {
        return format!(
            "initialize: `params` must be an object with `protocolVersion`, `capabilities` and `clientInfo`, got {}",
            params.map_or("nothing", kind)
        );
    };
    let mut problems = Vec::new();
    match p.get("protocolVersion") {
        Some(Value::String(_)) => {}
        None => problems.push(format!(
            "`protocolVersion` is missing (a string such as \"{version}\")"
        )),
        Some(v) => problems.push(format!(
            "`protocolVersion` must be a string such as \"{version}\", got {}",
            kind(v)
        )),
    }
    match p.get("capabilities") {
        Some(Value::Object(_)) => {}
        None => problems.push("`capabilities` is missing (an object; `{}` for none)".into()),
        Some(v) => problems.push(format!("`capabilities` must be an object, got {}", kind(v))),
    }
    match p.get("clientInfo") {
        Some(Value::Object(info)) => {
            for key in ["name", "version"] {
                match info.get(key) {
                    Some(Value::String(_)) => {}
                    None => problems.push(format!("`clientInfo.{key}` is missing (a string)")),
                    Some(v) => problems.push(format!(
                        "`clientInfo.{key}` must be a string, got {}",
                        kind(v)
                    )),
                }
            }
        }
        None => {
            problems.push("`clientInfo` is missing (an object with `name` and `version`)".into())
        }
        Some(v) => problems.push(format!(
            "`clientInfo` must be an object with `name` and `version`, got {}",
            kind(v)
        )),
    }
    if problems.is_empty() {
        // Deeper than the top fields (a capability of the wrong shape): serde's own words.
        problems.push(
            match serde_json::from_value::<rmcp::model::InitializeRequestParams>(Value::Object(
                p.clone(),
            )) {
                Err(e) => e.to_string(),
                Ok(_) => "invalid params".into(),
            },
        );
    }
    format!("initialize: {}", problems.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn gate_of(v: Value) -> Gate {
        gate(&serde_json::from_value(v).unwrap())
    }

    #[test]
    fn initialize_and_ping_pass_anything_else_is_not_initialized() {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}});
        assert_eq!(gate_of(init), Gate::Start);
        assert_eq!(
            gate_of(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})),
            Gate::Pass
        );
        assert_eq!(
            gate_of(json!({"jsonrpc": "2.0", "id": "a", "method": "tools/list"})),
            Gate::Refuse {
                id: json!("a"),
                code: ErrorCode::INVALID_REQUEST,
                message:
                    "server not initialized: send `initialize` first (got `tools/list` before it)"
                        .into()
            }
        );
        assert!(matches!(
            gate_of(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            Gate::Drop(line) if line.contains("`notifications/initialized`")
        ));
        assert!(matches!(
            gate_of(json!({"jsonrpc": "2.0", "id": 9, "result": {}})),
            Gate::Drop(_)
        ));
    }

    #[test]
    fn a_request_with_per_request_metadata_goes_to_rmcp() {
        let meta = |m: Value| json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": m}});
        let full = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        assert_eq!(gate_of(meta(full)), Gate::Start);
        // Incomplete: rmcp names what is missing, and the lifecycle has not started.
        let partial = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        assert_eq!(gate_of(meta(partial)), Gate::Pass);
    }

    #[test]
    fn a_broken_initialize_names_its_fields() {
        let refuse = |params: Value| match gate_of(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}),
        ) {
            Gate::Refuse { code, message, .. } => (code.0, message),
            other => panic!("{other:?}"),
        };
        let (code, message) = refuse(json!({}));
        assert_eq!(code, -32602);
        assert_eq!(
            message,
            "initialize: `protocolVersion` is missing (a string such as \"2025-11-25\"); \
             `capabilities` is missing (an object; `{}` for none); \
             `clientInfo` is missing (an object with `name` and `version`)"
        );
        let (_, message) = refuse(json!({"protocolVersion": 5, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}));
        assert_eq!(
            message,
            "initialize: `protocolVersion` must be a string such as \"2025-11-25\", got a number"
        );
        let (_, message) = refuse(json!({"protocolVersion": "2025-11-25",
            "clientInfo": {"name": "t"}}));
        assert!(
            message.contains("`capabilities` is missing")
                && message.contains("`clientInfo.version` is missing"),
            "{message}"
        );
        assert_eq!(
            initialize_params_error(Some(&json!([1]))),
            "initialize: `params` must be an object with `protocolVersion`, `capabilities` and `clientInfo`, got an array"
        );
        assert!(initialize_params_error(None).ends_with("got nothing"));
    }
}
