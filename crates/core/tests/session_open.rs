//! `session.open`: events the agent streams while it opens reach the host in order before
//! `session.ready`, and a close during an open cancels it and waits for its processes.

mod support;

use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::time::Duration;
use support::{kinds, Behaviour, Host};

fn open_input(session_id: &str) -> Value {
    json!({"type": "session.open", "requestId": format!("open-{session_id}"), "sessionId": session_id,
        "config": {"cwd": "/", "env": {}, "mcpServers": {}, "persist": false}, "history": "replay"})
}

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// The pid the fake logged when it spawned its process during open.
async fn spawned_pid(host: &Host) -> u32 {
    for _ in 0..500 {
        let pid = host
            .calls
            .lock()
            .unwrap()
            .iter()
            .find_map(|c| c.strip_prefix("spawned ").and_then(|p| p.parse().ok()));
        if let Some(pid) = pid {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the fake never spawned its process");
}

#[tokio::test]
async fn items_streamed_during_open_all_arrive_in_order_before_ready() {
    const N: usize = 10_000;
    let mut host = Host::start(Behaviour {
        open_items: N,
        ..Default::default()
    })
    .await;
    let r = host.send(open_input("s1")).await;
    assert_eq!(r["result"], Value::Null);
    let events = host.until("session.ready").await;
    assert_eq!(
        kinds(&events[..2]),
        vec!["session.opened", "session.config"]
    );
    assert_eq!(events.len(), N + 3, "opened, config, {N} items, ready");
    for (i, e) in events[2..N + 2].iter().enumerate() {
        assert_eq!(e["type"], "timeline.item");
        assert_eq!(e["item"]["id"], format!("h{i}"), "item {i} out of order");
    }
    assert_eq!(events[N + 2]["requestId"], "open-s1");
}

#[tokio::test]
async fn a_close_during_a_hung_open_cancels_it() {
    let mut host = Host::start(Behaviour {
        hang_open: true,
        ..Default::default()
    })
    .await;
    host.send(open_input("s1")).await;
    let r = host
        .send(json!({"type": "session.close", "requestId": "x1", "sessionId": "s1"}))
        .await;
    assert_eq!(r["result"], Value::Null);
    let events = tokio::time::timeout(Duration::from_secs(10), host.until("request.completed"))
        .await
        .expect("the close is answered without waiting for the open's time limit");
    // The session was never announced: no session.closed for it.
    assert_eq!(kinds(&events), vec!["request.failed", "request.completed"]);
    assert_eq!(events[0]["requestId"], "open-s1");
    assert_eq!(events[0]["error"]["code"], "canceled");
    assert_eq!(events[1]["requestId"], "x1");
}

#[tokio::test]
async fn a_close_during_open_is_answered_after_the_process_is_gone() {
    let mut host = Host::start(Behaviour {
        spawn_in_open: true,
        ..Default::default()
    })
    .await;
    host.send(open_input("s1")).await;
    let pid = spawned_pid(&host).await;
    assert!(alive(pid));
    host.send(json!({"type": "session.close", "requestId": "x1", "sessionId": "s1"}))
        .await;
    let events = tokio::time::timeout(Duration::from_secs(10), host.until("request.completed"))
        .await
        .expect("the close is answered");
    assert!(!alive(pid), "sleep {pid} outlived the answered close");
    assert_eq!(kinds(&events), vec!["request.failed", "request.completed"]);
}

#[tokio::test]
async fn closing_the_connection_during_open_waits_for_the_process() {
    let mut host = Host::start(Behaviour {
        spawn_in_open: true,
        ..Default::default()
    })
    .await;
    host.send(open_input("s1")).await;
    let pid = spawned_pid(&host).await;
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        host.request("provider/close", json!({"connectionId": "c1"})),
    )
    .await
    .expect("provider/close is answered");
    assert_eq!(r["result"], Value::Null, "{r}");
    assert!(
        !alive(pid),
        "sleep {pid} outlived the answered provider/close"
    );
    // The open is answered (canceled); a session never announced gets no session.closed.
    let failed = host.seen.iter().any(|v| {
        v["params"]["event"]["type"] == "request.failed"
            && v["params"]["event"]["requestId"] == "open-s1"
    });
    assert!(failed, "{:?}", host.seen);
    let closed = host.seen.iter().any(|v| {
        v["params"]["event"]["type"] == "session.closed"
            && v["params"]["event"]["sessionId"] == "s1"
    });
    assert!(!closed, "{:?}", host.seen);
}

#[tokio::test]
async fn a_close_cancels_a_hung_agent_call() {
    let mut host = Host::start(Behaviour {
        hang_configure: true,
        ..Default::default()
    })
    .await;
    host.open("s1").await;
    host.send(
        json!({"type": "session.configure", "requestId": "k1", "sessionId": "s1",
        "changes": {"model": "m2"}}),
    )
    .await;
    // The actor is inside the call before the close is admitted.
    host.reached("configure hangs").await;
    host.send(json!({"type": "session.close", "requestId": "x1", "sessionId": "s1"}))
        .await;
    let events = tokio::time::timeout(Duration::from_secs(10), host.until("request.completed"))
        .await
        .expect("the close does not wait for the call's time limit");
    assert_eq!(
        kinds(&events),
        vec!["request.failed", "session.closed", "request.completed"]
    );
    assert_eq!(events[0]["requestId"], "k1");
    assert_eq!(events[0]["error"]["code"], "session_closed");
}
