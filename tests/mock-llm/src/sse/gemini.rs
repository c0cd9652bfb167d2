//! Gemini `generateContent` / `streamGenerateContent?alt=sse`: one `GenerateContentResponse`
//! per chunk (`candidates[0].content.parts`), `finishReason: STOP` and usage on the last.

use super::{text_deltas, Ctx, Frame, INPUT_TOKENS, OUTPUT_TOKENS};
use crate::reply::Reply;
use serde_json::{json, Value};

fn usage() -> Value {
    json!({
        "promptTokenCount": INPUT_TOKENS,
        "candidatesTokenCount": OUTPUT_TOKENS,
        "totalTokenCount": INPUT_TOKENS + OUTPUT_TOKENS
    })
}

fn response(ctx: &Ctx, parts: Value, last: bool) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if last {
        candidate["finishReason"] = json!("STOP");
    }
    json!({
        "candidates": [candidate],
        "usageMetadata": usage(),
        "modelVersion": ctx.model,
        "responseId": ctx.id("resp")
    })
}

fn call_part(name: &str, arguments: &Value) -> Value {
    json!({"functionCall": {"name": name, "args": arguments}})
}

/// SSE frames of a streaming answer (`alt=sse`).
pub fn stream(reply: &Reply, ctx: &Ctx) -> Vec<Frame> {
    match reply {
        Reply::ToolCall {
            name, arguments, ..
        } => {
            vec![Frame::data(response(
                ctx,
                json!([call_part(name, arguments)]),
                true,
            ))]
        }
        Reply::Text(_) | Reply::SlowText { .. } | Reply::Error { .. } => {
            let deltas = text_deltas(reply);
            let n = deltas.len();
            deltas
                .into_iter()
                .enumerate()
                .map(|(i, (text, delay))| {
                    Frame::data(response(ctx, json!([{"text": text}]), i + 1 == n)).after(delay)
                })
                .collect()
        }
    }
}

/// JSON body of a non-streaming answer (`generateContent`).
pub fn body(reply: &Reply, ctx: &Ctx) -> Value {
    let parts = match reply {
        Reply::ToolCall {
            name, arguments, ..
        } => json!([call_part(name, arguments)]),
        Reply::Text(_) | Reply::SlowText { .. } | Reply::Error { .. } => {
            json!([{"text": reply.text().unwrap_or_default()}])
        }
    };
    response(ctx, parts, true)
}

/// The whole stream as one JSON array (`streamGenerateContent` without `alt=sse`).
pub fn array_body(reply: &Reply, ctx: &Ctx) -> Value {
    Value::Array(
        stream(reply, ctx)
            .into_iter()
            .filter_map(|f| {
                let payload = f.data.strip_prefix("data: ")?.trim_end();
                serde_json::from_str(payload).ok()
            })
            .collect(),
    )
}

/// Error body.
pub fn error(status: u16, message: &str) -> Value {
    json!({"error": {"code": status, "message": message, "status": "INTERNAL"}})
}
