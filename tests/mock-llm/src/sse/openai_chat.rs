//! OpenAI Chat Completions: `chat.completion.chunk`s with `delta.content` or
//! `delta.tool_calls`, a `finish_reason` chunk, a final usage chunk, then `data: [DONE]`.

use super::{text_deltas, Ctx, Frame, INPUT_TOKENS, OUTPUT_TOKENS};
use crate::reply::Reply;
use serde_json::{json, Value};

fn usage() -> Value {
    json!({
        "prompt_tokens": INPUT_TOKENS,
        "completion_tokens": OUTPUT_TOKENS,
        "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS
    })
}

fn chunk(ctx: &Ctx, delta: Value, finish_reason: Value) -> Frame {
    Frame::data(json!({
        "id": ctx.id("chatcmpl"),
        "object": "chat.completion.chunk",
        "created": ctx.created,
        "model": ctx.model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    }))
}

fn finish_reason(reply: &Reply) -> &'static str {
    match reply {
        Reply::ToolCall { .. } => "tool_calls",
        Reply::Text(_) | Reply::SlowText { .. } | Reply::Error { .. } => "stop",
    }
}

/// SSE frames of a streaming answer.
pub fn stream(reply: &Reply, ctx: &Ctx) -> Vec<Frame> {
    let mut frames = Vec::new();
    match reply {
        Reply::ToolCall {
            name, arguments, ..
        } => {
            frames.push(chunk(
                ctx,
                json!({"role": "assistant", "content": null, "tool_calls": [{
                    "index": 0, "id": ctx.id("call"), "type": "function",
                    "function": {"name": name, "arguments": ""}
                }]}),
                Value::Null,
            ));
            frames.push(chunk(
                ctx,
                json!({"tool_calls": [{"index": 0, "function": {"arguments": arguments.to_string()}}]}),
                Value::Null,
            ));
        }
        Reply::Text(_) | Reply::SlowText { .. } | Reply::Error { .. } => {
            frames.push(chunk(
                ctx,
                json!({"role": "assistant", "content": ""}),
                Value::Null,
            ));
            for (text, delay) in text_deltas(reply) {
                frames.push(chunk(ctx, json!({"content": text}), Value::Null).after(delay));
            }
        }
    }
    frames.push(chunk(ctx, json!({}), json!(finish_reason(reply))));
    frames.push(Frame::data(json!({
        "id": ctx.id("chatcmpl"),
        "object": "chat.completion.chunk",
        "created": ctx.created,
        "model": ctx.model,
        "choices": [],
        "usage": usage()
    })));
    frames.push(Frame::data("[DONE]"));
    frames
}

/// JSON body of a non-streaming answer.
pub fn body(reply: &Reply, ctx: &Ctx) -> Value {
    let message = match reply {
        Reply::ToolCall {
            name, arguments, ..
        } => json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [{"id": ctx.id("call"), "type": "function",
                            "function": {"name": name, "arguments": arguments.to_string()}}]
        }),
        Reply::Text(_) | Reply::SlowText { .. } | Reply::Error { .. } => {
            json!({"role": "assistant", "content": reply.text().unwrap_or_default()})
        }
    };
    json!({
        "id": ctx.id("chatcmpl"),
        "object": "chat.completion",
        "created": ctx.created,
        "model": ctx.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(reply)}],
        "usage": usage()
    })
}

/// Error body.
pub fn error(message: &str) -> Value {
    json!({"error": {"message": message, "type": "server_error", "code": null}})
}
