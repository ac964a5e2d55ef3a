//! A scripted turn as the Messages API sends it: one JSON message, or Server-Sent Events
//! (`message_start`, each block's start / delta / stop, `message_delta`, `message_stop`).
//! Every answer needs an id of its own: Claude Code joins the blocks of answers that share one
//! into a single assistant message.

use serde_json::{Value, json};

use super::model::{Block, Turn};

fn usage() -> Value {
    json!({"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

fn block_json(b: &Block) -> Value {
    match b {
        Block::Text(t) => json!({"type": "text", "text": t}),
        Block::Tool { id, name, input } => {
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
    }
}

/// The whole answer as one JSON message (`"stream": false`).
pub fn message(id: &str, model: &str, t: &Turn) -> Value {
    json!({
        "id": id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": t.blocks.iter().map(block_json).collect::<Vec<_>>(),
        "stop_reason": stop_reason(t),
        "stop_sequence": null,
        "usage": usage(),
    })
}

fn stop_reason(t: &Turn) -> &'static str {
    if t.blocks.iter().any(|b| matches!(b, Block::Tool { .. })) {
        "tool_use"
    } else {
        "end_turn"
    }
}

/// The answer as an event stream (`"stream": true`).
pub fn stream(id: &str, model: &str, t: &Turn) -> Vec<u8> {
    let mut out = String::new();
    let mut event = |name: &str, data: Value| {
        out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    let mut start = message(id, model, t);
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    event(
        "message_start",
        json!({"type": "message_start", "message": start}),
    );
    for (index, b) in t.blocks.iter().enumerate() {
        let (opening, delta) = match b {
            Block::Text(text) => (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": text}),
            ),
            Block::Tool { id, name, input } => (
                json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            ),
        };
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": opening}),
        );
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        );
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
    }
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason(t), "stop_sequence": null}, "usage": {"output_tokens": 20}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    out.into_bytes()
}
