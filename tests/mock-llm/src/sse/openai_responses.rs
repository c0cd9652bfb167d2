//! OpenAI Responses API: `response.created` -> `response.output_item.added` ->
//! (`response.output_text.delta`* | `response.function_call_arguments.delta`) ->
//! `response.output_item.done` -> `response.completed` (with usage).

use super::{text_deltas, Ctx, Frame, INPUT_TOKENS, OUTPUT_TOKENS};
use crate::reply::Reply;
use serde_json::{json, Value};

fn usage() -> Value {
    json!({
        "input_tokens": INPUT_TOKENS,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": OUTPUT_TOKENS,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS
    })
}

fn response(ctx: &Ctx, status: &str, output: Value, usage: Value) -> Value {
    json!({
        "id": ctx.id("resp"),
        "object": "response",
        "created_at": ctx.created,
        "status": status,
        "model": ctx.model,
        "output": output,
        "usage": usage
    })
}

/// The completed output item of a reply.
fn output_item(reply: &Reply, ctx: &Ctx) -> Value {
    match reply {
        Reply::ToolCall {
            name,
            arguments,
            namespace,
        } => {
            let mut item = json!({
                "id": ctx.id("fc"),
                "type": "function_call",
                "status": "completed",
                "call_id": ctx.id("call"),
                "name": name,
                "arguments": arguments.to_string()
            });
            if let Some(ns) = namespace {
                item["namespace"] = json!(ns);
            }
            item
        }
        Reply::Text(_) | Reply::SlowText { .. } | Reply::Error { .. } => json!({
            "id": ctx.id("msg"),
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": reply.text().unwrap_or_default(), "annotations": []}]
        }),
    }
}

/// SSE frames of a streaming answer.
pub fn stream(reply: &Reply, ctx: &Ctx) -> Vec<Frame> {
    let mut seq = 0u64;
    let mut ev = |name: &str, mut data: Value| {
        data["type"] = json!(name);
        data["sequence_number"] = json!(seq);
        seq += 1;
        Frame::event(name, &data)
    };
    let done = output_item(reply, ctx);
    let item_id = done["id"].clone();
    let mut frames = vec![ev(
        "response.created",
        json!({"response": response(ctx, "in_progress", json!([]), Value::Null)}),
    )];
    match reply {
        Reply::ToolCall { .. } => {
            let mut added = done.clone();
            added["status"] = json!("in_progress");
            added["arguments"] = json!("");
            frames.push(ev(
                "response.output_item.added",
                json!({"output_index": 0, "item": added}),
            ));
            frames.push(ev(
                "response.function_call_arguments.delta",
                json!({"item_id": item_id, "output_index": 0, "delta": done["arguments"]}),
            ));
            frames.push(ev(
                "response.function_call_arguments.done",
                json!({"item_id": item_id, "output_index": 0, "arguments": done["arguments"]}),
            ));
        }
        Reply::Text(_) | Reply::SlowText { .. } | Reply::Error { .. } => {
            let mut added = done.clone();
            added["status"] = json!("in_progress");
            added["content"] = json!([]);
            frames.push(ev(
                "response.output_item.added",
                json!({"output_index": 0, "item": added}),
            ));
            frames.push(ev(
                "response.content_part.added",
                json!({"item_id": item_id, "output_index": 0, "content_index": 0,
                       "part": {"type": "output_text", "text": "", "annotations": []}}),
            ));
            for (delta, delay) in text_deltas(reply) {
                let f = ev(
                    "response.output_text.delta",
                    json!({"item_id": item_id, "output_index": 0, "content_index": 0, "delta": delta}),
                );
                frames.push(f.after(delay));
            }
            let text = reply.text().unwrap_or_default();
            frames.push(ev(
                "response.output_text.done",
                json!({"item_id": item_id, "output_index": 0, "content_index": 0, "text": text}),
            ));
            frames.push(ev(
                "response.content_part.done",
                json!({"item_id": item_id, "output_index": 0, "content_index": 0,
                       "part": {"type": "output_text", "text": text, "annotations": []}}),
            ));
        }
    }
    frames.push(ev(
        "response.output_item.done",
        json!({"output_index": 0, "item": done.clone()}),
    ));
    frames.push(ev(
        "response.completed",
        json!({"response": response(ctx, "completed", json!([done]), usage())}),
    ));
    frames
}

/// JSON body of a non-streaming answer.
pub fn body(reply: &Reply, ctx: &Ctx) -> Value {
    response(ctx, "completed", json!([output_item(reply, ctx)]), usage())
}

/// Error body.
pub fn error(message: &str) -> Value {
    json!({"error": {"message": message, "type": "server_error", "code": null}})
}
