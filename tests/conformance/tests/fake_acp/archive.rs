//! Archive and unarchive through the HTTP server an OpenCode-like agent runs beside ACP: the
//! fake borrows the `opencode` profile (`"options": {"profile": "opencode"}`), which starts it
//! with `--port P --hostname 127.0.0.1` and a server password; its server is the store.

use super::FakeRig;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

async fn listed(rig: &FakeRig) -> Vec<Value> {
    let cwd = rig.cwd().display().to_string();
    let answer = rig
        .ask(
            "list",
            |rid| json!({"type": "sessions", "requestId": rid, "cwd": cwd}),
        )
        .await;
    assert!(answer.is("sessions"), "{answer}");
    answer
        .at("/sessions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|s| s["persistence"]["data"]["sessionId"].clone())
        .collect()
}

async fn archive(rig: &FakeRig, kind: &str, persistence: Value) -> agent_bridge_conformance::Event {
    rig.ask(
        "arch",
        move |rid| json!({"type": kind, "requestId": rid, "persistence": persistence}),
    )
    .await
}

/// An archived session leaves the session list (the agent's `session/list` still has it) and
/// comes back when unarchived; an unknown session is `session_not_found`. Every HTTP call
/// carried the run's password (the fake answers 401 otherwise).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archived_session_leaves_the_list_until_unarchived() {
    let rig = FakeRig::start_with(
        json!({"capabilities": {"loadSession": true, "list": true, "resume": true, "close": true}}),
        json!({"profile": "opencode"}),
    )
    .await;
    for cap in ["session.archive", "session.unarchive"] {
        assert!(rig.caps().iter().any(|c| c == cap), "{:?}", rig.caps());
    }
    let opened = rig.open("s", json!({})).await;
    let persistence = opened
        .iter()
        .find(|e| e.is("session.opened"))
        .and_then(|e| e.at("/persistence").cloned())
        .expect("persistence");
    let run = rig.run_turn("s", "hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s").await;
    let ours = persistence["data"]["sessionId"].clone();
    assert_eq!(listed(&rig).await, vec![ours.clone()], "listed before");

    let done = archive(&rig, "session.archive", persistence.clone()).await;
    assert!(done.is("request.completed"), "{done}");
    assert_eq!(
        listed(&rig).await,
        Vec::<Value>::new(),
        "archived: not listed"
    );
    assert_eq!(
        rig.calls("session/list").len(),
        2,
        "the agent's own list still had it"
    );

    let done = archive(&rig, "session.unarchive", persistence.clone()).await;
    assert!(done.is("request.completed"), "{done}");
    assert_eq!(listed(&rig).await, vec![ours], "unarchived: listed again");

    let mut unknown = persistence;
    unknown["data"]["sessionId"] = json!("fake-404");
    let refused = archive(&rig, "session.archive", unknown).await;
    assert_eq!(
        refused.at("/error/code"),
        Some(&json!("session_not_found")),
        "{refused}"
    );
    rig.host.assert_invariants();
}
