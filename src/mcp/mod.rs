//! `seed mcp`: seed's tools for the agent itself, over MCP on stdio (the official `rmcp` SDK).
//! The server only translates: every tool calls the same functions as the CLI.
#![warn(clippy::too_many_lines)] // Past 80 lines (clippy.toml) a function is split or says why.

mod add;
pub mod content;
mod guide;
pub mod howto;
mod in_flight;
mod lifecycle;
mod params;
pub mod specs;
pub mod tools;
pub mod transport;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, ServerInitializeError};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};

pub use tools::{McpContext, ToolError, ToolOutput};

pub struct SeedServer {
    ctx: McpContext,
}

impl SeedServer {
    pub fn new(ctx: McpContext) -> SeedServer {
        SeedServer { ctx }
    }
}

fn tool_list() -> Vec<Tool> {
    specs::specs()
        .into_iter()
        .map(|s| {
            let schema = match s.schema {
                serde_json::Value::Object(m) => m,
                _ => serde_json::Map::new(),
            };
            Tool::new(s.name, s.description, Arc::new(schema))
        })
        .collect()
}

impl ServerHandler for SeedServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions("seed keeps you on your workflow sequence: call `what_do_i_do` to know the next step, `status` for progress, `recovery` when a call was denied.");
        info.server_info = Implementation::new("seed", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult {
            tools: tool_list(),
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.clone().unwrap_or_default();
        match tools::call(&self.ctx, &request.name, &args) {
            Ok(out) => {
                let content = vec![ContentBlock::text(out.text)];
                let mut result = if out.is_error {
                    CallToolResult::error(content)
                } else {
                    CallToolResult::success(content)
                };
                result.structured_content = out.structured;
                Ok(result.into())
            }
            // An unknown tool is a protocol error; arguments that do not fit a known tool are
            // a tool execution error the model reads and corrects (MCP 2025-11-25, SEP-1303).
            Err(e @ ToolError::UnknownTool(_)) => {
                Err(McpError::invalid_params(e.to_string(), None))
            }
            Err(ToolError::InvalidParams(msg)) => {
                Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "seed: invalid arguments for `{}`: {msg}",
                    request.name
                ))])
                .into())
            }
            // A failure the model should read (no session yet, no state directory…).
            Err(ToolError::Failed(msg)) => {
                Ok(CallToolResult::error(vec![ContentBlock::text(format!("seed: {msg}"))]).into())
            }
        }
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        Err(params::custom_request_error(
            &request.method,
            request.params.as_ref(),
        ))
    }
}

/// Serve on stdin/stdout until the client closes the stream. Closing it is the normal end,
/// even before `initialize` (a client that checks the command starts and stops it); a failed
/// read of stdin is an error.
pub fn serve(ctx: McpContext) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let transport = transport::LineTransport::new(tokio::io::stdin(), tokio::io::stdout());
        let read_error = transport.read_error();
        match SeedServer::new(ctx).serve(transport).await {
            Ok(service) => {
                service.waiting().await?;
            }
            Err(ServerInitializeError::ConnectionClosed(_)) => {}
            Err(e) => return Err(e.into()),
        }
        match read_error.lock().ok().and_then(|mut e| e.take()) {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    })
}
