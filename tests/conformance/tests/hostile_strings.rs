//! 1 MiB strings in every string field of the main methods' params, through the real
//! `agent-bridge serve`: each request gets its answer or the contract's error (with a message
//! of bounded size), a session opened before keeps completing turns, and memory stays bounded.

mod common;
use common::hostile::*;
use common::*;

const MIB: usize = 1 << 20;

/// 1 MiB and a bit, ASCII and not; `tag` makes each distinct.
fn big(tag: &str) -> String {
    format!("{tag}-{}-é", "x".repeat(MIB))
}

fn assert_short_error<T: std::fmt::Debug>(
    result: Result<T, agent_bridge_conformance::RpcError>,
    code: i64,
    what: &str,
) {
    let err = refusal(result);
    assert_eq!(err.code, code, "{what}: {}", &err.message);
    assert!(
        err.message.len() < 4096,
        "{what}: a {} byte message",
        err.message.len()
    );
}

#[tokio::test]
async fn one_mib_strings_in_the_bridge_methods_are_answered() {
    let d = with_bystander().await;
    let host = &d.host;
    assert_short_error(
        host.request(&big("method"), json!({})).await,
        -32601,
        "method",
    );
    let id = Value::from(big("id"));
    let answer = raw_answer(
        host,
        &id.to_string(),
        "initialize",
        r#"{"apiVersion":1,"host":{"name":"t","version":"0"}}"#,
    )
    .await;
    assert_eq!(answer["result"]["apiVersion"], 1);
    let init = json!({"apiVersion": 1, "host": {"name": big("name"), "version": big("version")},
        "plugin": {"id": big("plugin"), "dir": big("dir"), "dataDir": host.data_dir()}});
    host.request("initialize", init).await.expect("initialize");
    let options = json!({"cwd": big("cwd"), "providerOptions": {big("k"): big("v")},
        "settings": {big("sk"): big("sv")}});
    for method in ["provider/availability", "provider/catalogCacheKey"] {
        let r = host
            .request(method, json!({"providerId": big("p"), "options": {}}))
            .await;
        assert_short_error(r, -32602, method);
        host.request(method, json!({"providerId": DEMO, "options": options}))
            .await
            .unwrap_or_else(|e| panic!("{method}: {e:?}"));
    }
    let request = json!({"versions": [1], "capabilities": [big("cap")]});
    let r = host
        .request(
            "provider/connect",
            json!({"providerId": big("p"), "request": request}),
        )
        .await;
    assert_short_error(r, -32602, "connect to a 1 MiB provider id");
    let launch =
        json!({"command": big("cmd"), "args": [big("arg")], "env": {big("ek"): big("ev")}});
    let (conn, caps) = host
        .connect(DEMO, &["prompt.message", &big("cap")], Some(launch))
        .await
        .expect("connect with 1 MiB strings");
    assert_eq!(caps, vec!["prompt.message"]);
    host.close_connection(&conn).await.expect("close it");
    assert_short_error(
        host.send(&big("conn"), input::catalog("c")).await,
        -32602,
        "send",
    );
    assert_short_error(host.close_connection(&big("conn")).await, -32602, "close");
    bystander_completes_a_turn(&d, "1 MiB strings in the bridge methods").await;
    assert!(host.rss_bytes().is_some_and(|rss| rss < RSS_BOUND));
    host.assert_invariants();
}

#[tokio::test]
async fn one_mib_strings_in_provider_inputs_are_answered() {
    let d = with_bystander().await;
    let host = &d.host;
    let mut catalog = input::catalog(&big("rid-catalog"));
    catalog["cwd"] = json!(big("cwd"));
    catalog["providerOptions"] = json!({big("k"): big("v")});
    catalog["settings"] = json!({big("sk"): big("sv")});
    d.ask(catalog).await;
    let mut sessions = input::sessions(&big("rid-sessions"));
    sessions["query"] = json!(big("query"));
    sessions["cwd"] = json!(big("cwd"));
    d.ask(sessions).await;
    // Every config string at 1 MiB (two opens: one line must stay under 16 MiB).
    let config = d.config(
        json!({"env": {big("ek"): big("ev")}, "systemPrompt": big("sp"),
        "title": big("title"), "model": big("model"), "mode": big("mode"),
        "thinkingOption": big("thinking")}),
    );
    let answer = d
        .ask(input::open(&big("rid-open-1"), &big("sid-1"), config))
        .await;
    assert_eq!(
        answer.kind(),
        "request.failed",
        "an unknown model: {answer}"
    );
    let config = d.config(
        json!({"deniedTools": [big("tool")], "mcpServers": {big("mcp"):
        {"type": "stdio", "command": big("mcp-cmd"), "args": [big("mcp-arg")],
         "env": {big("mcp-ek"): big("mcp-ev")}}},
        "settings": {big("sk"): big("sv")}, "providerOptions": {"style": big("style")}}),
    );
    let answer = d
        .ask(input::open(&big("rid-open-2"), &big("sid-2"), config))
        .await;
    assert_eq!(
        answer.kind(),
        "request.failed",
        "an unknown style: {answer}"
    );
    let mut config = d.config(json!({}));
    config["cwd"] = json!(big("cwd"));
    let answer = d.ask(input::open("open-big-cwd", "big-cwd", config)).await;
    assert_eq!(
        answer.kind(),
        "request.failed",
        "a cwd that is not a folder: {answer}"
    );
    // A session that opens with 1 MiB strings, and 1 MiB prompts in it.
    let config = d.config(json!({"env": {"BIG": big("ev")}, "systemPrompt": big("sp"),
        "title": big("title"), "deniedTools": [big("tool")], "mode": "auto"}));
    let answer = d.ask(input::open(&big("rid-open-3"), "big", config)).await;
    assert_eq!(answer.kind(), "session.ready", "{answer}");
    let cmid = big("cmid");
    d.send(input::message("big", &cmid, &big("text"))).await;
    let result = host
        .prompt_result("big", &cmid, T)
        .await
        .expect("prompt result");
    let turn = result["turnId"].as_str().expect("a turn").to_string();
    host.wait_turn_end("big", &turn, T).await.expect("turn end");
    // The 1 MiB variable cannot reach a process (an argument is at most 128 KiB): the tool
    // fails, the turn ends.
    let run = host
        .run_turn(&d.conn, "big", "run `echo hi`", T)
        .await
        .expect("a tool turn");
    assert!(!run.end.turn_state().unwrap_or_default().is_empty());
    let changes = json!({"model": big("model"), "mode": big("mode"),
        "thinkingOption": big("thinking"), "providerOptions": {big("k"): big("v")}});
    let answer = d
        .ask(input::configure(&big("rid-conf"), "big", changes))
        .await;
    assert_eq!(answer.kind(), "request.failed", "{answer}");
    for (what, bad) in [
        ("interrupt", input::interrupt(&big("rid"), &big("sid"))),
        ("close", input::close(&big("rid"), &big("sid"))),
        (
            "prompt",
            input::message(&big("sid"), &big("cm"), &big("text")),
        ),
        (
            "permission",
            input::permission(
                "big",
                &big("perm"),
                json!({"behavior": "deny", "message": big("why")}),
            ),
        ),
    ] {
        assert_short_error(host.send(&d.conn, bad).await, -32602, what);
    }
    let answer = d
        .ask(input::can_stop_runtime(&big("rid-stop"), BYSTANDER))
        .await;
    assert_eq!(answer.kind(), "session.can_stop_runtime", "{answer}");
    let answer = d.ask(input::close(&big("rid-close"), "big")).await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    bystander_completes_a_turn(&d, "1 MiB strings in provider inputs").await;
    let rss = host.rss_bytes().expect("the bridge runs");
    eprintln!(
        "bridge RSS after the 1 MiB inputs: {:.1} MB",
        rss as f64 / 1e6
    );
    assert!(rss < RSS_BOUND, "{rss} bytes");
    host.assert_invariants();
}
