//! The mock over real TCP: routing, SSE framing, keep-alive, chunked bodies, the proxy trap,
//! disconnect detection and the control endpoints.

mod raw_http;

use mock_llm::{Family, MockLlm, ScriptReply};
use raw_http::{post, sse_data, Client};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

#[tokio::test]
async fn every_family_over_one_keep_alive_connection() {
    let mock = MockLlm::start().await.unwrap();
    let mut s = Client::connect(mock.port()).await;

    let r = post(
        &mut s,
        "/v1/messages?beta=true",
        &json!({"stream": true, "model": "claude-x",
        "messages": [{"role": "user", "content": "say hi"}]}),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(r.head.contains("text/event-stream"));
    assert!(r.body.contains("event: message_start") && r.body.contains("hi! (mock"));

    let r = post(
        &mut s,
        "/v1/responses",
        &json!({"stream": true, "input": "say hi",
        "tools": [{"type": "function", "name": "exec_command", "parameters": {"type": "object",
            "properties": {"cmd": {"type": "string"}}}}]}),
    )
    .await;
    assert!(r.body.contains("event: response.completed"));

    let r = post(
        &mut s,
        "/v1/chat/completions",
        &json!({"stream": true,
        "messages": [{"role": "user", "content": "run `echo hi`"}],
        "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object",
            "properties": {"command": {"type": "string"}}}}}]}),
    )
    .await;
    let data = sse_data(&r.body);
    assert_eq!(
        data[0]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"],
        "bash"
    );
    assert_eq!(data.last().unwrap(), &json!("[DONE]"));

    let r = post(
        &mut s,
        "/v1beta/models/gemini-3.5-flash-lite:generateContent",
        &json!({
        "contents": [{"role": "user", "parts": [{"text": "route"}]}],
        "generationConfig": {"responseJsonSchema": {"type": "object", "properties": {
            "complexity_reasoning": {"type": "string"},
            "complexity_score": {"type": "integer", "minimum": 1}}}}}),
    )
    .await;
    let answer: Value = serde_json::from_str(&r.body).unwrap();
    let text = answer["candidates"][0]["content"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap()["complexity_score"],
        1
    );
    assert_eq!(answer["modelVersion"], "gemini-3.5-flash-lite");

    let r = post(
        &mut s,
        "/v1beta/models/m:streamGenerateContent?alt=sse",
        &json!({
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
    )
    .await;
    assert_eq!(
        sse_data(&r.body).last().unwrap()["candidates"][0]["finishReason"],
        "STOP"
    );

    let r = post(
        &mut s,
        "/v1/messages",
        &json!({"messages": [{"role": "user", "content": "x"}]}),
    )
    .await;
    let answer: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(answer["type"], "message", "non-streaming answer");

    let families: Vec<Family> = mock.requests().iter().map(|r| r.family).collect();
    assert_eq!(
        families,
        [
            Family::Anthropic,
            Family::OpenaiResponses,
            Family::OpenaiChat,
            Family::Gemini,
            Family::Gemini,
            Family::Anthropic
        ]
    );
    let log = mock.requests();
    assert_eq!(log[0].path, "/v1/messages?beta=true");
    assert_eq!(log[0].header("content-type"), Some("application/json"));
    assert_eq!(log[2].reply, "tool-call:bash");
    assert_eq!(log[3].reply, "json");
    assert_eq!(log[1].tool_names(), ["exec_command"]);
    // Every answer was sent completely: each entry has its end, after its arrival and before
    // the next request's (one connection, one request at a time).
    for pair in log.windows(2) {
        let done = pair[0].done_unix_us.expect("answer end stamped");
        assert!(
            pair[0].at_unix_us <= done && done <= pair[1].at_unix_us,
            "{pair:?}"
        );
    }
    mock.shutdown().await;
}

#[tokio::test]
async fn chunked_request_bodies_and_expect_continue() {
    let mock = MockLlm::start().await.unwrap();
    let mut s = Client::connect(mock.port()).await;
    let body = json!({"messages": [{"role": "user", "content": "say hi"}]}).to_string();
    let (a, b) = body.split_at(10);
    let head = "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nexpect: 100-continue\r\ntransfer-encoding: chunked\r\n\r\n";
    s.send(head.as_bytes()).await;
    let cont = s.response().await;
    assert_eq!(cont.status, 100);
    let chunks = format!("{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n", a.len(), b.len());
    s.send(chunks.as_bytes()).await;
    let r = s.response().await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains("hi! (mock reply 1)"));
    assert_eq!(mock.requests()[0].prompt().as_deref(), Some("say hi"));
}

#[tokio::test]
async fn proxy_requests_are_refused_and_recorded() {
    let mock = MockLlm::start().await.unwrap();
    let mut s = Client::connect(mock.port()).await;
    s.send(b"CONNECT github.com:443 HTTP/1.1\r\nhost: github.com:443\r\n\r\n")
        .await;
    assert_eq!(s.response().await.status, 403);
    let mut s = Client::connect(mock.port()).await;
    s.send(b"GET http://example.com/x HTTP/1.1\r\nhost: example.com\r\n\r\n")
        .await;
    assert_eq!(s.response().await.status, 403);
    let mut s = Client::connect(mock.port()).await;
    s.send(b"GET /npm/@opencode-ai%2fplugin HTTP/1.1\r\nhost: x\r\n\r\n")
        .await;
    assert_eq!(s.response().await.status, 404);

    let refused: Vec<String> = mock.proxy_refused().into_iter().map(|r| r.path).collect();
    assert_eq!(refused, ["github.com:443", "http://example.com/x"]);
    assert_eq!(mock.requests_of(Family::NpmRegistry).len(), 1);
}

#[tokio::test]
async fn slow_stream_stops_when_the_client_disconnects() {
    let mock = MockLlm::start().await.unwrap();
    let mut s = Client::connect(mock.port()).await;
    let body =
        json!({"stream": true, "messages": [{"role": "user", "content": "be SLOW"}]}).to_string();
    let req = format!(
        "POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    s.send(req.as_bytes()).await;
    s.read_until("\r\n").await;
    assert!(s.pending().contains("200 OK"));
    let started = Instant::now();
    drop(s);
    let seen = mock
        .wait_for(Duration::from_secs(3), |log| {
            log.first().is_some_and(|r| r.client_disconnected)
        })
        .await;
    assert!(
        seen,
        "mock did not notice the disconnect: {:?}",
        mock.requests()
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "a full slow stream takes ~6 s"
    );
    assert_eq!(mock.requests()[0].reply, "slow-text");
}

#[tokio::test]
async fn scripts_via_api_and_control_endpoint() {
    let mock = MockLlm::start().await.unwrap();
    mock.push_steps([ScriptReply::Error {
        status: 529,
        message: "overloaded".into(),
    }]);
    let tools = json!([{"name": "Bash", "input_schema": {"type": "object"}}]);
    let mut s = Client::connect(mock.port()).await;
    let r = post(
        &mut s,
        "/v1/messages",
        &json!({"tools": tools, "messages": [{"role": "user", "content": "x"}]}),
    )
    .await;
    assert_eq!(r.status, 529);
    assert!(r.body.contains("overloaded"));

    let script = r#"{"rules": [{"match": "weather", "reply": {"text": "sunny"}}]}"#;
    let req = format!(
        "POST /_mock/script HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n{script}",
        script.len()
    );
    s.send(req.as_bytes()).await;
    assert_eq!(s.response().await.status, 200);
    let r = post(
        &mut s,
        "/v1/messages",
        &json!({"messages": [{"role": "user", "content": "weather?"}]}),
    )
    .await;
    assert!(r.body.contains("sunny"));

    s.send(b"GET /_mock/requests HTTP/1.1\r\nhost: x\r\n\r\n")
        .await;
    let log: Value = serde_json::from_str(&s.response().await.body).unwrap();
    assert_eq!(
        log.as_array().unwrap().len(),
        2,
        "control calls are not recorded"
    );
    assert_eq!(log[0]["family"], "anthropic");
    assert_eq!(log[0]["reply"], "error:529");

    s.send(b"POST /_mock/clear HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n")
        .await;
    assert_eq!(s.response().await.status, 200);
    assert!(mock.requests().is_empty(), "the log was cleared");
}
