//! The mock's HTTP/1.1 layer over real loopback TCP, byte by byte: what the node clients
//! (undici/fetch) and the Rust ones rely on — chunked request bodies, keep-alive, pipelining,
//! `Expect: 100-continue`, large bodies, incremental SSE, and malformed requests.

mod raw_http;

use mock_llm::{MockLlm, Script, ScriptReply};
use raw_http::{post, post_request, Client};
use serde_json::json;
use std::time::Duration;

/// A safety net for reads that would otherwise hang on a regression; never an assertion.
const GUARD: Duration = Duration::from_secs(30);

fn chat(prompt: &str) -> serde_json::Value {
    json!({"messages": [{"role": "user", "content": prompt}]})
}

#[tokio::test]
async fn chunked_request_body_with_extensions_and_trailers() {
    let mock = MockLlm::start().await.unwrap();
    let mut s = Client::connect(mock.port()).await;
    let body = chat("chunked hello").to_string();
    let (a, rest) = body.split_at(1);
    let (b, c) = rest.split_at(rest.len() / 2);
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n\
         {:x}\r\n{a}\r\n{:X};name=value\r\n{b}\r\n{:x}\r\n{c}\r\n0\r\nx-trailer: t\r\n\r\n",
        a.len(),
        b.len(),
        c.len()
    );
    // Sent in two writes, split inside a chunk.
    let (first, second) = request.split_at(request.len() - 12);
    s.send(first.as_bytes()).await;
    s.send(second.as_bytes()).await;
    let r = s.response().await;
    assert_eq!(r.status, 200);
    let log = mock.requests();
    assert_eq!(log[0].body, chat("chunked hello"));
    assert_eq!(log[0].header("transfer-encoding"), Some("chunked"));
}

#[tokio::test]
async fn two_requests_on_one_keep_alive_connection() {
    let mock = MockLlm::start().await.unwrap();
    let mut s = Client::connect(mock.port()).await;
    let first = post(&mut s, "/v1/chat/completions", &chat("one")).await;
    assert_eq!(first.status, 200);
    assert_eq!(first.header("connection"), None, "{}", first.head);
    let second = post(&mut s, "/v1/chat/completions", &chat("two")).await;
    assert_eq!(second.status, 200);
    assert!(
        second.body.contains("hi! (mock reply 2)"),
        "{}",
        second.body
    );
    let prompts: Vec<_> = mock.requests().iter().map(|r| r.prompt()).collect();
    assert_eq!(prompts, [Some("one".into()), Some("two".into())]);

    // `connection: close` from the client: answered, then closed.
    s.send(b"GET /_mock/requests HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .await;
    assert_eq!(s.response().await.status, 200);
    assert!(s.closed().await, "connection: close must close");
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_order() {
    let mock = MockLlm::start().await.unwrap();
    let mut s = Client::connect(mock.port()).await;
    let mut batch = post_request("/v1/chat/completions", &chat("first"));
    batch.push_str(&post_request(
        "/v1/messages",
        &json!({"stream": true, "messages": [{"role": "user", "content": "second"}]}),
    ));
    batch.push_str("GET /nowhere HTTP/1.1\r\nhost: x\r\n\r\n");
    s.send(batch.as_bytes()).await;
    let (a, b, c) = (s.response().await, s.response().await, s.response().await);
    assert_eq!((a.status, b.status, c.status), (200, 200, 404));
    assert!(a.body.contains("hi! (mock reply 1)"));
    assert!(b.body.contains("event: message_stop"), "{}", b.body);
    let paths: Vec<_> = mock.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/v1/chat/completions", "/v1/messages", "/nowhere"]);
}

#[tokio::test]
async fn expect_100_continue_waits_for_the_go_ahead() {
    let mock = MockLlm::start().await.unwrap();
    let mut s = Client::connect(mock.port()).await;
    let body = chat("after continue").to_string();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nexpect: 100-continue\r\n\
         content-length: {}\r\n\r\n",
        body.len()
    );
    s.send(head.as_bytes()).await;
    assert_eq!(s.response().await.status, 100);
    s.send(body.as_bytes()).await;
    let r = s.response().await;
    assert_eq!(r.status, 200);
    assert_eq!(
        mock.requests()[0].prompt().as_deref(),
        Some("after continue")
    );

    // A body over the limit is refused before the client sends it: no 100, a closing 413.
    let mut s = Client::connect(mock.port()).await;
    s.send(
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\nexpect: 100-continue\r\n\
          content-length: 100000000\r\n\r\n",
    )
    .await;
    let r = s.response().await;
    assert_eq!(r.status, 413, "{}", r.head);
    assert!(s.closed().await);
}

#[tokio::test]
async fn large_uncompressed_bodies_arrive_whole() {
    let mock = MockLlm::start().await.unwrap();
    let mut s = Client::connect(mock.port()).await;
    let big = "x".repeat(8 * 1024 * 1024);
    let r = post(&mut s, "/v1/chat/completions", &chat(&big)).await;
    assert_eq!(r.status, 200);
    let recorded = mock.requests()[0].prompt().unwrap_or_default();
    assert_eq!(recorded.len(), big.len());
    assert!(recorded == big);
}

#[tokio::test]
async fn sse_events_arrive_before_the_stream_ends() {
    let mock = MockLlm::start().await.unwrap();
    // Three chunks a (test-)eternity apart: the stream cannot end while the test runs.
    let slow = ScriptReply::SlowText {
        text: "one two three".into(),
        chunks: 3,
        interval_ms: 3_600_000,
    };
    mock.push_script(Script::default().rule("drip", slow).unwrap());
    let mut s = Client::connect(mock.port()).await;
    let body = json!({"stream": true, "messages": [{"role": "user", "content": "drip"}]});
    s.send(post_request("/v1/messages", &body).as_bytes()).await;
    tokio::time::timeout(GUARD, s.read_until("event: content_block_delta"))
        .await
        .expect("the first text delta was held back");
    let seen = s.pending();
    assert!(seen.starts_with("HTTP/1.1 200 OK\r\n"), "{seen}");
    assert!(seen
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked"));
    assert!(seen.contains("event: message_start"));
    assert!(
        !seen.contains("event: message_stop"),
        "the stream went on: {seen}"
    );
    assert!(!seen.ends_with("\r\n0\r\n\r\n"), "the stream ended: {seen}");
    assert_eq!(mock.requests()[0].reply, "", "not finished yet");
    assert_eq!(mock.requests()[0].done_unix_us, None, "not finished yet");

    drop(s);
    let noticed = mock
        .wait_for(GUARD, |log| {
            log.first().is_some_and(|r| r.client_disconnected)
        })
        .await;
    assert!(noticed, "hang-up not recorded: {:?}", mock.requests());
    let entry = &mock.requests()[0];
    assert_eq!(entry.reply, "slow-text");
    let done = entry.done_unix_us.expect("when the answer ended");
    assert!(done >= entry.at_unix_us, "{entry:?}");
}

#[tokio::test]
async fn malformed_requests_get_400_and_the_server_keeps_serving() {
    let mock = MockLlm::start().await.unwrap();
    let garbage: [&[u8]; 3] = [
        b"THIS IS NOT HTTP\r\n\r\n",
        b"POST /v1/messages HTTP/1.1\r\nno colon here\r\n\r\n",
        // A chunk size that is not hex: the head is fine, the body is not.
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
    ];
    for bytes in garbage {
        let mut s = Client::connect(mock.port()).await;
        s.send(bytes).await;
        let r = s.response().await;
        assert_eq!(
            r.status,
            400,
            "{:?}: {}",
            String::from_utf8_lossy(bytes),
            r.head
        );
        assert!(s.closed().await, "a bad request closes its connection");
    }
    let mut s = Client::connect(mock.port()).await;
    let r = post(&mut s, "/v1/chat/completions", &chat("still there?")).await;
    assert_eq!(r.status, 200);
    assert_eq!(mock.model_requests().len(), 1, "{:?}", mock.requests());
}
