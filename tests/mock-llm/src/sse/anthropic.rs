//! Anthropic Messages API: `message_start` -> `content_block_start` -> `content_block_delta`*
//! -> `content_block_stop` -> `message_delta` (stop_reason, usage) -> `message_stop`.

use super::{text_deltas, Ctx, Frame, INPUT_TOKENS, OUTPUT_TOKENS};
use crate::reply::Reply;
use serde_json::{json, Value};

fn usage_start() -> Value {
    json!({
        "input_tokens": INPUT_TOKENS,
        "output_tokens": 1,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0
    })
}

fn stop_reason(reply: &Reply) -> &'static str {
    match reply {
        Reply::ToolCall { .. } => "tool_use",
        Reply::Text(_) | Reply::SlowText { .. } | Reply::Error { .. } => "end_turn",
    }
}

/// SSE frames of a streaming answer.
pub fn stream(reply: &Reply, ctx: &Ctx) -> Vec<Frame> {
    let mut frames = vec![Frame::event(
        "message_start",
        &json!({
            "type": "message_start",
            "message": {
                "id": ctx.id("msg"),
                "type": "message",
                "role": "assistant",
                "model": ctx.model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": usage_start()
            }
        }),
    )];
    let (block, deltas): (Value, Vec<(Value, std::time::Duration)>) = match reply {
        Reply::ToolCall {
            name, arguments, ..
        } => (
            json!({"type": "tool_use", "id": ctx.id("toolu"), "name": name, "input": {}}),
            vec![(
                json!({"type": "input_json_delta", "partial_json": arguments.to_string()}),
                std::time::Duration::ZERO,
            )],
        ),
        Reply::Text(_) | Reply::SlowText { .. } | Reply::Error { .. } => (
            json!({"type": "text", "text": ""}),
            text_deltas(reply)
                .into_iter()
                .map(|(t, d)| (json!({"type": "text_delta", "text": t}), d))
                .collect(),
        ),
    };
    frames.push(Frame::event(
        "content_block_start",
        &json!({"type": "content_block_start", "index": 0, "content_block": block}),
    ));
    for (delta, delay) in deltas {
        frames.push(
            Frame::event(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 0, "delta": delta}),
            )
            .after(delay),
        );
    }
    frames.push(Frame::event(
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": 0}),
    ));
    frames.push(Frame::event(
        "message_delta",
        &json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason(reply), "stop_sequence": null},
            "usage": {"output_tokens": OUTPUT_TOKENS}
        }),
    ));
    frames.push(Frame::event(
        "message_stop",
        &json!({"type": "message_stop"}),
    ));
    frames
}

/// JSON body of a non-streaming answer.
pub fn body(reply: &Reply, ctx: &Ctx) -> Value {
    let content = match reply {
        Reply::ToolCall {
            name, arguments, ..
        } => {
            json!([{"type": "tool_use", "id": ctx.id("toolu"), "name": name, "input": arguments}])
        }
        Reply::Text(_) | Reply::SlowText { .. } | Reply::Error { .. } => {
            json!([{"type": "text", "text": reply.text().unwrap_or_default()}])
        }
    };
    json!({
        "id": ctx.id("msg"),
        "type": "message",
        "role": "assistant",
        "model": ctx.model,
        "content": content,
        "stop_reason": stop_reason(reply),
        "stop_sequence": null,
        "usage": {
            "input_tokens": INPUT_TOKENS,
            "output_tokens": OUTPUT_TOKENS,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0
        }
    })
}

/// Error body.
pub fn error(message: &str) -> Value {
    json!({"type": "error", "error": {"type": "api_error", "message": message}})
}
