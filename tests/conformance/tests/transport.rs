//! Transport and error codes: JSON-RPC framing, every error code of docs/wire.md, and that
//! the bridge keeps serving after each of them.

mod common;
use common::*;

/// Waits for the error response with this `id` (`Value::Null` for `id: null`).
async fn error_for(host: &BridgeHost, id: Value) -> Value {
    host.wait_message(|m| m.get("id") == Some(&id) && m.get("error").is_some(), T)
        .await
        .unwrap_or_else(|e| panic!("no error response with id {id}: {e:#}"))
}

/// The bridge still answers a normal request.
async fn still_serving(host: &BridgeHost) {
    host.initialize().await.expect("the bridge keeps serving");
}

#[tokio::test]
async fn initialize_lists_the_demo_provider() {
    let host = BridgeHost::spawn().await.expect("spawn");
    let result = host.initialize().await.expect("initialize");
    let parsed: agent_bridge_protocol::wire::InitializeResponse =
        serde_json::from_value(result.clone()).expect("initialize result has the wire shape");
    assert_eq!(parsed.api_version, 1);
    assert_eq!(parsed.bridge.name, "agent-bridge");
    let demo = parsed
        .providers
        .iter()
        .find(|p| p.id == DEMO)
        .expect("demo provider listed");
    assert!(!demo.label.trim().is_empty());
    let caps: Vec<&str> = demo.capabilities.iter().map(|c| c.as_str()).collect();
    assert_eq!(caps, DEMO_CAPS.to_vec());
    host.assert_invariants();
}

#[tokio::test]
async fn non_json_line_is_a_parse_error_and_not_fatal() {
    let host = BridgeHost::spawn().await.expect("spawn");
    host.send_raw("this is not json {").await.expect("write");
    let err = error_for(&host, Value::Null).await;
    assert_eq!(err["error"]["code"], -32700, "{err}");
    still_serving(&host).await;
    host.assert_invariants();
}

#[tokio::test]
async fn non_object_and_missing_jsonrpc_are_invalid_requests() {
    let host = BridgeHost::spawn().await.expect("spawn");
    host.send_raw("[1, 2, 3]").await.expect("write");
    let err = error_for(&host, Value::Null).await;
    assert_eq!(err["error"]["code"], -32600, "array: {err}");
    host.send_raw(r#"{"id": "raw-1", "method": "initialize", "params": {"apiVersion": 1}}"#)
        .await
        .expect("write");
    let err = host
        .wait_message(|m| m["error"]["code"] == -32600 && m["id"] == "raw-1", T)
        .await
        .expect("-32600 answering the request id for a message without jsonrpc");
    assert_eq!(err["jsonrpc"], "2.0");
    host.send_raw(r#""just a string""#).await.expect("write");
    let invalid = || -> Vec<Value> {
        host.messages()
            .into_iter()
            .filter(|m| m["error"]["code"] == -32600)
            .collect()
    };
    let deadline = std::time::Instant::now() + T;
    while invalid().len() < 3 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    still_serving(&host).await;
    assert_eq!(
        invalid().len(),
        3,
        "one -32600 answer per invalid line: {:#?}",
        invalid()
    );
    assert!(
        invalid()[2]["id"].is_null(),
        "a JSON string has no id: {:#?}",
        invalid()
    );
    host.assert_invariants();
}

#[tokio::test]
async fn line_over_16_mib_is_rejected_and_the_bridge_keeps_serving() {
    let host = BridgeHost::spawn().await.expect("spawn");
    host.initialize().await.expect("initialize");
    let pad = "x".repeat(17 * 1024 * 1024);
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"big","method":"initialize","params":{{"pad":"{pad}"}}}}"#
    );
    host.send_raw(&line).await.expect("write 17 MiB");
    drop(line);
    let err = host
        .wait_message(|m| m["error"]["code"] == -32600, Duration::from_secs(10))
        .await
        .expect("-32600 for the oversize line");
    assert_eq!(
        err["id"],
        Value::Null,
        "an oversize line is answered with id null: {err}"
    );
    assert!(
        host.messages().iter().all(|m| m["id"] != "big"),
        "the oversize request must not be executed"
    );
    still_serving(&host).await;
    let (conn, _) = host
        .connect(DEMO, &DEMO_CAPS, None)
        .await
        .expect("connect after the big line");
    host.send(&conn, input::catalog("cat"))
        .await
        .expect("catalog admitted");
    host.wait_answer("cat", T).await.expect("catalog answered");
    host.assert_invariants();
}

#[tokio::test]
async fn unknown_method_is_method_not_found() {
    let host = BridgeHost::spawn().await.expect("spawn");
    host.initialize().await.expect("initialize");
    assert_code(
        host.request("provider/frobnicate", json!({})).await,
        -32601,
        "unknown method",
    );
    still_serving(&host).await;
    host.assert_invariants();
}

#[tokio::test]
async fn requests_before_initialize_are_unavailable() {
    let host = BridgeHost::spawn().await.expect("spawn");
    assert_code(
        host.connect(DEMO, &DEMO_CAPS, None).await,
        -32002,
        "connect before initialize",
    );
    assert_code(
        host.send("c-none", input::catalog("r")).await,
        -32002,
        "send before initialize",
    );
    host.initialize()
        .await
        .expect("initialize after the refusals");
    host.connect(DEMO, &DEMO_CAPS, None)
        .await
        .expect("connect after initialize");
    host.assert_invariants();
}

#[tokio::test]
async fn unknown_provider_connection_and_session_are_invalid_params() {
    let d = demo().await;
    assert_code(
        d.host.connect("no-such-provider", &DEMO_CAPS, None).await,
        -32602,
        "unknown provider",
    );
    assert_code(
        d.host
            .send("no-such-connection", input::catalog("r1"))
            .await,
        -32602,
        "unknown connection",
    );
    let prompt = input::message("no-such-session", "m1", "hello");
    assert_code(
        d.host.send(&d.conn, prompt).await,
        -32602,
        "prompt to an unknown session",
    );
    assert_code(
        d.host
            .send(&d.conn, input::interrupt("r2", "no-such-session"))
            .await,
        -32602,
        "interrupt",
    );
    assert_code(
        d.host
            .send(&d.conn, input::close("r3", "no-such-session"))
            .await,
        -32602,
        "close",
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn duplicate_session_id_is_invalid_params() {
    let d = demo().await;
    d.open("dup", json!({})).await;
    let again = input::open("open-again", "dup", d.config(json!({})));
    assert_code(
        d.host.send(&d.conn, again).await,
        -32602,
        "second open of the same session id",
    );
    d.host
        .run_turn(&d.conn, "dup", "still here", T)
        .await
        .expect("the first session still works");
    d.host.assert_invariants();
}

/// Malformed inputs are invalid params (unknown fields are not: `liberal_inputs.rs`).
#[tokio::test]
async fn malformed_inputs_are_invalid_params() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let cases = [
        (
            "unknown input type",
            json!({"type": "session.frobnicate", "requestId": "k2", "sessionId": "s"}),
        ),
        (
            "missing requestId",
            json!({"type": "session.interrupt", "sessionId": "s"}),
        ),
        ("prompt without delivery", {
            let mut p = input::message("s", "k3", "hi");
            p["prompt"].as_object_mut().map(|p| p.remove("delivery"));
            p
        }),
        ("config of the wrong type", {
            let mut o = input::open("k4", "s2", d.config(json!({})));
            o["config"]["env"] = json!("red");
            o
        }),
        (
            "wrong type",
            json!({"type": "session.configure", "requestId": "k5", "sessionId": "s", "changes": {"model": 7}}),
        ),
    ];
    for (what, bad) in cases {
        assert_code(d.host.send(&d.conn, bad).await, -32602, what);
    }
    assert_code(
        d.host
            .request("provider/send", json!({"connectionId": d.conn}))
            .await,
        -32602,
        "send without input",
    );
    assert_code(
        d.host
            .request(
                "provider/connect",
                json!({"providerId": DEMO, "request": {"versions": [1]}}),
            )
            .await,
        -32602,
        "connect without capabilities",
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    let stray: Vec<Event> = d
        .host
        .events()
        .into_iter()
        .filter(|e| e.request_id().is_some_and(|r| r.starts_with('k')))
        .collect();
    assert!(
        stray.is_empty(),
        "refused inputs must produce no events: {stray:#?}"
    );
    d.host
        .run_turn(&d.conn, "s", "after the refusals", T)
        .await
        .expect("session still works");
    d.host.assert_invariants();
}

#[tokio::test]
async fn inputs_needing_an_unnegotiated_capability_are_refused() {
    let host = BridgeHost::spawn().await.expect("spawn");
    host.initialize().await.expect("initialize");
    let (conn, caps) = host
        .connect(DEMO, &["prompt.message", "no.such.capability"], None)
        .await
        .expect("connect");
    assert_eq!(
        caps,
        vec!["prompt.message".to_string()],
        "offered ∩ implemented"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let config = input::session_config(dir.path(), json!({}));
    host.open_session(&conn, input::open("o1", "s", config.clone()))
        .await
        .expect("open");
    let cases = [
        ("sessions needs session.list", input::sessions("x1")),
        ("steer needs prompt.steer", input::steer("s", "x2", "more")),
        (
            "command needs prompt.command",
            input::command("s", "x3", "echo", "hi"),
        ),
        (
            "configure needs session.configure",
            input::configure("x4", "s", json!({"model": "demo-smart"})),
        ),
        (
            "permission needs permission",
            input::permission("s", "perm:x:1", json!({"behavior": "allow"})),
        ),
        (
            "can_stop_runtime needs its capability",
            input::can_stop_runtime("x5", "s"),
        ),
        (
            "persistence needs session.persistence",
            input::resume(
                "x6",
                "s2",
                config,
                json!({"version": 1, "data": {}}),
                "skip",
            ),
        ),
    ];
    for (what, bad) in cases {
        assert_code(host.send(&conn, bad).await, -32001, what);
    }
    host.run_turn(&conn, "s", "plain message still works", T)
        .await
        .expect("turn");
    host.assert_invariants();
}

#[tokio::test]
async fn availability_and_cache_key() {
    let host = BridgeHost::spawn().await.expect("spawn");
    host.initialize().await.expect("initialize");
    let options = json!({"scope": "global"});
    let avail = host
        .request(
            "provider/availability",
            json!({"providerId": DEMO, "options": options}),
        )
        .await
        .expect("availability");
    assert_eq!(avail["status"], "available", "{avail}");
    let key = host
        .request(
            "provider/catalogCacheKey",
            json!({"providerId": DEMO, "options": options}),
        )
        .await
        .expect("cache key");
    assert!(key["key"].is_string() || key["key"].is_null(), "{key}");
    assert_code(
        host.request(
            "provider/availability",
            json!({"providerId": "nope", "options": options}),
        )
        .await,
        -32602,
        "availability of an unknown provider",
    );
    host.assert_invariants();
}

#[tokio::test]
async fn stdout_stays_pure_json_rpc_with_verbose_logging() {
    let d = demo_with(HostOptions::default().env("AGENT_BRIDGE_LOG", "trace")).await;
    d.open("s", json!({"mode": "auto"})).await;
    let run = d
        .host
        .run_turn(&d.conn, "s", "run `echo to-stdout-of-the-tool`", T)
        .await
        .expect("turn");
    assert_eq!(run.state(), "completed");
    assert!(!d.host.stderr().is_empty(), "logs go to stderr");
    d.host.close_stdin().await;
    d.host.wait_exit(EXIT_LIMIT).await.expect("exit");
    let lines = d.host.stdout_lines();
    assert!(lines.len() > 5, "{lines:#?}");
    for line in &lines {
        let msg: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert_eq!(msg["jsonrpc"], "2.0", "{line}");
    }
    // The reader also checked every line as it came: non-JSON-RPC output is a violation.
    d.host.assert_invariants();
}

#[tokio::test]
async fn notifications_are_never_answered() {
    let host = BridgeHost::spawn().await.expect("spawn");
    host.initialize().await.expect("initialize");
    host.notify("no/such/notification", json!({}))
        .await
        .expect("write");
    host.notify("initialize", json!({"apiVersion": 1}))
        .await
        .expect("write");
    let before = host.messages().len();
    host.initialize().await.expect("initialize");
    let between: Vec<Value> = host.messages()[..before]
        .iter()
        .filter(|m| m.get("id").is_some_and(Value::is_null))
        .cloned()
        .collect();
    assert!(
        between.is_empty(),
        "a notification got an answer: {between:#?}"
    );
    assert_eq!(
        host.messages().len(),
        before + 1,
        "only the request was answered: {:#?}",
        host.messages()
    );
    host.assert_invariants();
}

#[tokio::test]
async fn request_ids_are_echoed_exactly() {
    let host = BridgeHost::spawn().await.expect("spawn");
    let params = json!({"apiVersion": 1, "host": {"name": "t", "version": "0"}});
    for id in [
        json!("abc-1"),
        json!(0),
        json!(9007199254740991_i64),
        json!(""),
    ] {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params})
            .to_string();
        host.send_raw(&line).await.expect("write");
        let answer = host
            .wait_message(|m| m.get("id") == Some(&id) && m.get("result").is_some(), T)
            .await
            .unwrap_or_else(|e| panic!("no result for id {id}: {e:#}"));
        assert_eq!(answer["result"]["apiVersion"], 1, "{answer}");
    }
    host.assert_invariants();
}

#[tokio::test]
async fn invalid_utf8_is_a_parse_error_and_not_fatal() {
    let host = BridgeHost::spawn().await.expect("spawn");
    host.send_raw_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":\"u\",\"method\":\"\xff\xfe\"}\n")
        .await
        .expect("write");
    let err = error_for(&host, Value::Null).await;
    assert_eq!(err["error"]["code"], -32700, "{err}");
    still_serving(&host).await;
    host.assert_invariants();
}

#[tokio::test]
async fn a_partial_last_line_does_not_block_exit() {
    let host = BridgeHost::spawn().await.expect("spawn");
    host.initialize().await.expect("initialize");
    host.send_raw_bytes(br#"{"jsonrpc":"2.0","id":"half","method":"initia"#)
        .await
        .expect("write");
    host.close_stdin().await;
    let status = host
        .wait_exit(EXIT_LIMIT)
        .await
        .expect("exit after stdin close");
    assert!(status.success(), "{status}");
    host.assert_invariants();
}
