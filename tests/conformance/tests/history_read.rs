//! `provider/readSessionHistory` over the demo: the stored history of a closed session, read
//! without a connection or a live session, equals what a reopen replays; the read announces
//! nothing and leaves no process. And `provider/catalogCacheKey` with a `launch` in its options:
//! two launches of one provider never share a key.

mod common;
use common::*;
use pretty_assertions::assert_eq;

/// Opens a persisted session, runs one turn, closes it; returns its persistence handle.
async fn closed_conversation(d: &Demo, sid: &str, text: &str) -> Value {
    let events = d.open(sid, json!({"persist": true})).await;
    let persistence = events[0]
        .event
        .get("persistence")
        .cloned()
        .expect("session.opened carries persistence");
    let run = d.host.run_turn(&d.conn, sid, text, T).await.expect("turn");
    assert_eq!(run.state(), "completed");
    let rid = d.host.unique("close");
    let answer = d.ask(input::close(&rid, sid)).await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    persistence
}

/// The items of a replay or a read, without `clientMessageId` (it reconciles Paseo's optimistic
/// row of a live prompt only).
fn comparable(items: impl IntoIterator<Item = Value>) -> Vec<Value> {
    items
        .into_iter()
        .map(|mut item| {
            if let Some(obj) = item.as_object_mut() {
                obj.remove("clientMessageId");
            }
            item
        })
        .collect()
}

fn read_params(persistence: &Value, cwd: &std::path::Path) -> Value {
    json!({
        "providerId": DEMO,
        "persistence": persistence,
        "cwd": cwd.display().to_string(),
    })
}

#[tokio::test]
async fn a_history_read_returns_what_a_reopen_replays_and_announces_nothing() {
    let d = demo().await;
    let persistence = closed_conversation(&d, "first", "remember the tide").await;
    let before = d.host.events().len();
    let read = d
        .host
        .request(
            "provider/readSessionHistory",
            read_params(&persistence, d.cwd()),
        )
        .await
        .expect("history read");
    assert_eq!(read["coverage"], json!({"kind": "complete"}), "{read}");
    let items = read["items"].as_array().cloned().unwrap_or_default();
    assert!(
        items
            .iter()
            .any(|i| i["type"] == "user_message" && i["text"] == "remember the tide"),
        "the prompt is in the history: {read:#}"
    );
    assert!(
        items.iter().any(|i| i["type"] == "assistant_message"),
        "the reply is in the history: {read:#}"
    );
    assert_eq!(
        d.host.events().len(),
        before,
        "a read opens no session the host sees: no event"
    );
    assert_eq!(d.host.descendants(), Vec::<ProcInfo>::new());

    // The same rows a reopen with replay publishes before session.ready.
    let rid = d.host.unique("resume");
    let open = input::resume(
        &rid,
        "second",
        d.config(json!({"persist": true})),
        persistence,
        "replay",
    );
    let events = d.host.open_session(&d.conn, open).await.expect("resume");
    let replayed = events
        .iter()
        .filter(|e| e.is("timeline.item"))
        .filter_map(|e| e.item().cloned());
    assert_eq!(comparable(items), comparable(replayed));
    d.host.assert_invariants();
}

/// Paseo reads an archived agent's history with no connection open, after a restart.
#[tokio::test]
async fn a_new_bridge_reads_the_history_without_any_connection() {
    let data = tempfile::Builder::new()
        .prefix("conformance-data-")
        .tempdir()
        .expect("data dir");
    let first = demo_with(HostOptions::default().data_dir(data.path())).await;
    let persistence = closed_conversation(&first, "s", "remember the tide").await;
    let cwd = first.cwd().to_path_buf();
    first.host.close_stdin().await;
    first
        .host
        .wait_exit(EXIT_LIMIT)
        .await
        .expect("first bridge exits");

    let host = BridgeHost::spawn_with(HostOptions::default().data_dir(data.path()))
        .await
        .expect("spawn");
    host.initialize().await.expect("initialize");
    let read = host
        .request(
            "provider/readSessionHistory",
            read_params(&persistence, &cwd),
        )
        .await
        .expect("history read");
    let texts: Vec<&str> = read["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["type"] == "user_message")
        .filter_map(|i| i["text"].as_str())
        .collect();
    assert_eq!(texts, vec!["remember the tide"], "{read:#}");
    assert_eq!(host.descendants(), Vec::<ProcInfo>::new());
    host.assert_invariants();
}

#[tokio::test]
async fn a_history_read_of_an_unknown_handle_is_an_error() {
    let d = demo().await;
    let bogus = json!({"version": 1, "data": {"sessionId": "never-existed", "cwd": d.cwd().display().to_string()}});
    let err = d
        .host
        .request("provider/readSessionHistory", read_params(&bogus, d.cwd()))
        .await
        .expect_err("no such session");
    assert_eq!(err.code, -32002, "{err:?}");
    assert!(
        err.message.contains("could not read the session's history"),
        "{err:?}"
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn a_history_read_needs_its_params() {
    let d = demo().await;
    let err = d
        .host
        .request(
            "provider/readSessionHistory",
            json!({"providerId": DEMO, "cwd": "/tmp"}),
        )
        .await
        .expect_err("no persistence");
    assert_eq!(err.code, -32602, "{err:?}");
    assert!(err.message.contains("persistence"), "{err:?}");
}

/// The catalog cache key of the request's launch: another binary or another environment is
/// another key; the same launch, the same key.
#[tokio::test]
async fn the_catalog_cache_key_is_the_launch_s() {
    let host = BridgeHost::spawn().await.expect("spawn");
    host.initialize().await.expect("initialize");
    let key = |launch: Option<Value>| {
        let mut options = json!({"scope": "global"});
        if let Some(launch) = launch {
            options["launch"] = launch;
        }
        let host = &host;
        async move {
            let answer = host
                .request(
                    "provider/catalogCacheKey",
                    json!({"providerId": DEMO, "options": options}),
                )
                .await
                .expect("catalog cache key");
            answer["key"].as_str().map(str::to_string).expect("a key")
        }
    };
    let launch = |command: &str, home: &str| json!({"command": command, "args": [], "env": {"HOME": home, "PATH": "/usr/bin:/bin"}});
    let a = key(Some(launch("demo", "/home/a"))).await;
    assert_eq!(a, key(Some(launch("demo", "/home/a"))).await, "same launch");
    assert_ne!(a, key(Some(launch("demo", "/home/b"))).await, "other env");
    assert_ne!(
        a,
        key(Some(launch("demo-2", "/home/a"))).await,
        "other binary"
    );
    assert_ne!(a, key(None).await, "the default launch");
    host.assert_invariants();
}
