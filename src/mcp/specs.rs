//! The nine tools (seed 000's eight and `explain`) as `tools/list` shows them: names, descriptions, JSON schemas.

use serde_json::{Value, json};

pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Value,
}

pub const NAMES: [&str; 9] = [
    "status",
    "recovery",
    "explain",
    "sequences",
    "validate",
    "who_am_i",
    "what_do_i_do",
    "how_do_i",
    "add_to_seed",
];

fn session_args() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": { "type": "string", "description": "Session id (default: the calling session, else the most recent one)" },
            "sequence": { "type": "string", "description": "Sequence name or path (default: the session's)" }
        },
        "additionalProperties": false
    })
}

/// The server name seed's own tools are called under (`mcp__seed__status`).
pub const SERVER: &str = "seed";

/// One of seed's own tools for `how_do_i`: what it does and its arguments. `called` is the
/// tool as the agent calls it (`mcp__seed__status`, or the plugin's spelling). `json` is left
/// out: it is for programs, and the model reads text.
pub fn help(name: &str, called: &str) -> Option<String> {
    let spec = base_specs().into_iter().find(|s| s.name == name)?;
    let mut text = format!(
        "`{called}` is seed's own tool `{name}`: {}\n",
        spec.description
    );
    let args: Vec<String> = spec.schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(arg, p)| match p["description"].as_str() {
            Some(d) => format!("`{arg}` ({d})"),
            None => format!("`{arg}`"),
        })
        .collect();
    if args.is_empty() {
        text.push_str("It takes no arguments.\n");
    } else {
        text.push_str(&format!("Arguments: {}.\n", args.join(", ")));
    }
    Some(text)
}

/// The `json` argument every tool takes: the model reads text, a program may ask for the
/// object `--json` prints.
fn json_arg() -> Value {
    json!({ "type": "boolean", "description": "Answer with the JSON object the CLI's --json prints (as structuredContent and as the text) instead of the text (default false)" })
}

/// Every spec with the `json` argument added to its properties.
pub fn specs() -> Vec<ToolSpec> {
    let mut specs = base_specs();
    for s in &mut specs {
        if let Some(props) = s.schema["properties"].as_object_mut() {
            props.insert("json".into(), json_arg());
        }
    }
    specs
}

fn base_specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "status",
            description: "Show the layered progress bars, the current step, the allowed tools and the next step of the sequence.",
            schema: session_args(),
        },
        ToolSpec {
            name: "recovery",
            description: "Suggest the next steps when the sequence is stuck or a call was denied.",
            schema: session_args(),
        },
        ToolSpec {
            name: "explain",
            description: "Why a call would be allowed or refused now: the verdict in each sequence, every rule that decides it (with file:line:column) and the shortest way to make it legal.",
            schema: json!({
                "type": "object",
                "properties": {
                    "call": { "type": "string", "description": "The call as you make it: Bash(command=\"git push\"), mcp__starship__fly, Skill(skill=\"hope:intent\")" },
                    "session": { "type": "string", "description": "Session id (default: the calling session, else the most recent one)" },
                    "sequence": { "type": "string", "description": "Sequence name or path (default: each of the session's)" }
                },
                "required": ["call"],
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "sequences",
            description: "List the available workflow sequences with their dialect and description.",
            schema: json!({ "type": "object", "properties": {}, "additionalProperties": false }),
        },
        ToolSpec {
            name: "validate",
            description: "Check sequences: the named files, or all built-ins. An error result exactly when `seed validate` would exit 1.",
            schema: json!({
                "type": "object",
                "properties": { "paths": { "type": "array", "items": { "type": "string" }, "description": "Sequence files or directories" } },
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "who_am_i",
            description: "Identity activation: who you are in this workflow.",
            schema: session_args(),
        },
        ToolSpec {
            name: "what_do_i_do",
            description: "Workflow loading: what to do now and next.",
            schema: session_args(),
        },
        ToolSpec {
            name: "how_do_i",
            description: "Help for one component: a step, a tool or a whole MCP server (`starlog`, `starlog.orient` or `mcp__starlog__orient`, any case), or a section of how_do_i.seed; an unknown one lists the known ones.",
            schema: json!({
                "type": "object",
                "properties": {
                    "component": { "type": "string", "description": "The component to explain: a step, a tool or a server name" },
                    "session": { "type": "string" },
                    "sequence": { "type": "string" }
                },
                "required": ["component"],
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "add_to_seed",
            description: "Explain how to add a sequence or a content file; validate a proposed sequence given as text, writing it only when asked.",
            schema: json!({
                "type": "object",
                "properties": {
                    "file_name": { "type": "string", "description": "e.g. my_flow.json, my_flow.yaml, my_flow.mmd (the extension picks the dialect)" },
                    "text": { "type": "string", "description": "The proposed sequence (for Mermaid, the diagram)" },
                    "manifest": { "type": "string", "description": "A Mermaid diagram's TOML manifest, checked (and saved as <stem>.toml) with it; its `diagram` names file_name" },
                    "write": { "type": "boolean", "description": "Save it under the state directory's sequences/ when it validates (default false)" }
                },
                "additionalProperties": false
            }),
        },
    ]
}
