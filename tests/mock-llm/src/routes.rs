//! Routing: classify each request, record it, answer it.

use crate::conversation::{extract, Conversation};
use crate::http::{closing, event_stream, respond, respond_with, Answer, Request};
use crate::record::{body_value, header_map, unix_micros, Family, RecordedRequest};
use crate::reply::Reply;
use crate::script::Script;
use crate::server::{lock, Shared};
use crate::sse::{self, Ctx};
use hyper::body::Bytes;
use hyper::Response;
use serde_json::{json, Value};
use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Which family a request belongs to (by method and target).
pub fn classify(method: &str, target: &str) -> Family {
    if method == "CONNECT" || target.starts_with("http://") || target.starts_with("https://") {
        return Family::ProxyRefused;
    }
    let path = target.split('?').next().unwrap_or("");
    if path == "/npm" || path.starts_with("/npm/") {
        return Family::NpmRegistry;
    }
    if method != "POST" {
        return Family::Unknown;
    }
    if path.ends_with("/messages") || path.ends_with("/messages/count_tokens") {
        Family::Anthropic
    } else if path.ends_with("/responses") {
        Family::OpenaiResponses
    } else if path.ends_with("/chat/completions") {
        Family::OpenaiChat
    } else if path.contains("/models/") && path.rsplit('/').next().is_some_and(|s| s.contains(':'))
    {
        Family::Gemini
    } else {
        Family::Unknown
    }
}

/// Answers one request. `connection: close` from the client is hyper's to honour.
pub(crate) fn handle(shared: &Arc<Shared>, req: Request) -> Response<Answer> {
    let family = classify(&req.method, &req.target);
    if family == Family::Unknown {
        if let Some(response) = control(shared, &req) {
            return response;
        }
    }
    let seq = record(shared, &req, family);
    match family {
        Family::ProxyRefused => {
            finish(shared, seq, "status:403".into(), false);
            closing(respond(
                403,
                "text/plain",
                &b"mock-llm: outbound proxy request refused (hermetic test)\n"[..],
            ))
        }
        Family::NpmRegistry | Family::Unknown => {
            finish(shared, seq, "status:404".into(), false);
            respond(404, "application/json", &br#"{"error":"Not found"}"#[..])
        }
        Family::Anthropic | Family::OpenaiResponses | Family::OpenaiChat | Family::Gemini => {
            model_call(shared, &req, family, seq)
        }
    }
}

/// `GET /_mock/requests` (the log as JSON), `POST /_mock/clear` (empty the log: a long run
/// against a hand-started mock would otherwise keep every request body) and `POST
/// /_mock/script` (push a script), for driving a hand-started mock. Not recorded.
fn control(shared: &Arc<Shared>, req: &Request) -> Option<Response<Answer>> {
    let (status, body) = match (req.method.as_str(), req.path()) {
        ("GET", "/_mock/requests") => {
            let log = lock(&shared.requests).clone();
            (200, serde_json::to_vec(&log).unwrap_or_default())
        }
        ("POST", "/_mock/clear") => {
            lock(&shared.requests).clear();
            (200, br#"{"ok":true}"#.to_vec())
        }
        ("POST", "/_mock/script") => match Script::from_json(&String::from_utf8_lossy(&req.body)) {
            Ok(script) => {
                lock(&shared.script).push(script);
                (200, br#"{"ok":true}"#.to_vec())
            }
            Err(e) => (
                400,
                json!({"error": e.to_string()}).to_string().into_bytes(),
            ),
        },
        _ => return None,
    };
    Some(respond(status, "application/json", body))
}

fn record(shared: &Shared, req: &Request, family: Family) -> usize {
    let mut log = lock(&shared.requests);
    let seq = log.len();
    log.push(RecordedRequest {
        seq,
        at_ms: shared.started.elapsed().as_millis() as u64,
        at_unix_us: unix_micros(),
        done_unix_us: None,
        method: req.method.clone(),
        path: req.target.clone(),
        headers: header_map(&req.headers),
        body: body_value(&req.body),
        family,
        reply: String::new(),
        client_disconnected: false,
    });
    drop(log);
    shared.changed.notify_waiters();
    seq
}

/// Stores the answer label, appends the entry to the request log file, logs it.
fn finish(shared: &Shared, seq: usize, reply: String, disconnected: bool) {
    let mut log = lock(&shared.requests);
    // The log may have been cleared meanwhile; then there is nothing to update.
    if let Some(entry) = log.get_mut(seq).filter(|e| e.seq == seq) {
        entry.reply = reply;
        entry.client_disconnected = disconnected;
        entry.done_unix_us = Some(unix_micros());
        tracing::info!(
            family = %entry.family,
            method = %entry.method,
            path = %entry.path,
            reply = %entry.reply,
            disconnected,
            "request"
        );
        if let Some(file) = &shared.request_log {
            if let Ok(line) = serde_json::to_string(&*entry) {
                let _ = writeln!(lock(file), "{line}");
            }
        }
    }
    drop(log);
    shared.changed.notify_waiters();
}

/// How a model request is answered.
enum Mode {
    Sse,
    Json,
    /// Gemini `streamGenerateContent` without `alt=sse`: a JSON array of chunks.
    JsonArray,
}

fn model_call(shared: &Arc<Shared>, req: &Request, family: Family, seq: usize) -> Response<Answer> {
    let body = body_value(&req.body);
    if !body.is_object() {
        finish(shared, seq, "status:400".into(), false);
        let msg = json!({"error": {"message": "mock-llm: request body is not a JSON object"}});
        return respond(400, "application/json", msg.to_string());
    }
    let path = req.path();
    let (gemini_model, gemini_action) = match family {
        Family::Gemini => {
            let last = path.rsplit('/').next().unwrap_or("");
            let (m, a) = last.split_once(':').unwrap_or((last, ""));
            (Some(m.to_string()), a.to_string())
        }
        _ => (None, String::new()),
    };
    // Token counting side calls.
    let count = match (family, gemini_action.as_str()) {
        (Family::Anthropic, _) if path.ends_with("/count_tokens") => {
            Some(json!({"input_tokens": sse::INPUT_TOKENS}))
        }
        (Family::Gemini, "countTokens") => Some(json!({"totalTokens": sse::INPUT_TOKENS})),
        _ => None,
    };
    if let Some(answer) = count {
        finish(shared, seq, "count-tokens".into(), false);
        return respond(200, "application/json", answer.to_string());
    }
    let conv: Conversation = extract(family, &body);
    let n = shared.model_calls.fetch_add(1, Ordering::SeqCst) + 1;
    let reply = lock(&shared.script).decide(&conv, n);
    let is_json =
        conv.json_schema.is_some() && (conv.tools.is_empty() || conv.strict_schema.is_some());
    let label = match &reply {
        Reply::Text(_) if is_json => "json".to_string(),
        other => other.label(),
    };
    let model = gemini_model.or_else(|| conv.model.clone());
    let ctx = Ctx::new(model.as_deref(), n);
    let mode = match family {
        Family::Gemini if gemini_action == "streamGenerateContent" => {
            if req
                .query()
                .is_some_and(|q| q.split('&').any(|kv| kv == "alt=sse"))
            {
                Mode::Sse
            } else {
                Mode::JsonArray
            }
        }
        Family::Gemini => Mode::Json,
        _ if conv.stream => Mode::Sse,
        _ => Mode::Json,
    };
    if let Reply::Error { status, message } = &reply {
        let body = match family {
            Family::Anthropic => sse::anthropic::error(message),
            Family::Gemini => sse::gemini::error(*status, message),
            _ => sse::openai_chat::error(message),
        };
        finish(shared, seq, label, false);
        return respond(*status, "application/json", body.to_string());
    }
    // The entry is finished once the answer is sent (or the client hung up on it).
    let shared = shared.clone();
    let on_done = move |complete: bool| finish(&shared, seq, label, !complete);
    match mode {
        Mode::Sse => {
            let frames = match family {
                Family::Anthropic => sse::anthropic::stream(&reply, &ctx),
                Family::OpenaiResponses => sse::openai_responses::stream(&reply, &ctx),
                Family::OpenaiChat => sse::openai_chat::stream(&reply, &ctx),
                _ => sse::gemini::stream(&reply, &ctx),
            };
            let chunks = frames
                .into_iter()
                .map(|frame| (frame.delay, Bytes::from(frame.data)));
            event_stream(Answer::streamed(chunks).on_done(on_done))
        }
        Mode::Json | Mode::JsonArray => {
            let answer: Value = match (family, mode) {
                (Family::Gemini, Mode::JsonArray) => sse::gemini::array_body(&reply, &ctx),
                (Family::Anthropic, _) => sse::anthropic::body(&reply, &ctx),
                (Family::OpenaiResponses, _) => sse::openai_responses::body(&reply, &ctx),
                (Family::OpenaiChat, _) => sse::openai_chat::body(&reply, &ctx),
                _ => sse::gemini::body(&reply, &ctx),
            };
            let answer = Answer::full(answer.to_string())
                .after(unstreamed_delay(&reply, &conv))
                .on_done(on_done);
            respond_with(200, "application/json", answer)
        }
    }
}

/// How long a non-streamed answer waits before it is sent: a slow text to a request that
/// offers tools takes as long as its stream would have (OpenHands never streams over ACP, and
/// an interrupt must be able to land during the request); anything else goes at once. A
/// tool-less request (a title, a summary) is never held.
fn unstreamed_delay(reply: &Reply, conv: &Conversation) -> std::time::Duration {
    match reply {
        Reply::SlowText { .. } if !conv.tools.is_empty() => sse::text_deltas(reply)
            .iter()
            .map(|(_, pause)| *pause)
            .sum(),
        _ => std::time::Duration::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_unstreamed_reply_with_tools_waits_as_long_as_its_stream() {
        let slow = Reply::slow(4, std::time::Duration::from_millis(150));
        let with_tools = extract(
            Family::OpenaiChat,
            &json!({"messages": [{"role": "user", "content": "slow"}],
                    "tools": [{"type": "function", "function": {"name": "terminal", "parameters": {}}}]}),
        );
        let without = extract(
            Family::OpenaiChat,
            &json!({"messages": [{"role": "user", "content": "slow"}]}),
        );
        assert_eq!(
            unstreamed_delay(&slow, &with_tools),
            std::time::Duration::from_millis(450)
        );
        assert_eq!(unstreamed_delay(&slow, &without), std::time::Duration::ZERO);
        assert_eq!(
            unstreamed_delay(&Reply::Text("hi".into()), &with_tools),
            std::time::Duration::ZERO
        );
    }

    #[test]
    fn classifies_every_family() {
        assert_eq!(
            classify("POST", "/v1/messages?beta=true"),
            Family::Anthropic
        );
        assert_eq!(
            classify("POST", "/v1/messages/count_tokens?beta=true"),
            Family::Anthropic
        );
        assert_eq!(classify("POST", "/v1/responses"), Family::OpenaiResponses);
        assert_eq!(classify("POST", "/v1/chat/completions"), Family::OpenaiChat);
        assert_eq!(
            classify(
                "POST",
                "/v1beta/models/gemini-3.5-flash-lite:generateContent"
            ),
            Family::Gemini
        );
        assert_eq!(
            classify("POST", "/v1beta/models/m:streamGenerateContent?alt=sse"),
            Family::Gemini
        );
        assert_eq!(
            classify("GET", "/npm/@opencode-ai%2fplugin"),
            Family::NpmRegistry
        );
        assert_eq!(classify("CONNECT", "github.com:443"), Family::ProxyRefused);
        assert_eq!(
            classify("GET", "http://example.com/x"),
            Family::ProxyRefused
        );
        assert_eq!(classify("GET", "/v1/models"), Family::Unknown);
    }
}
