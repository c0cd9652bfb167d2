//! When the core ends a turn itself, the agent is told (`abandon_turn`, with the turn's
//! pending permission ids) before the core settles the turn and resolves the permissions.

mod support;

use agent_bridge_core::{AgentEvent, SessionSink};
use agent_bridge_protocol::*;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use support::{kinds, Behaviour, Host};

fn turn_id(events: &[Value]) -> String {
    events
        .iter()
        .find(|e| e["type"] == "session.turn")
        .expect("turn event")["turnId"]
        .as_str()
        .unwrap()
        .to_string()
}

fn noticing() -> Behaviour {
    Behaviour {
        notice_on_abandon: true,
        ..Default::default()
    }
}

fn permission(id: &str) -> ProviderPermissionRequest {
    ProviderPermissionRequest {
        id: id.into(),
        name: "shell".into(),
        kind: PermissionKind::Tool,
        title: None,
        description: None,
        input: None,
        detail: None,
        suggestions: None,
        actions: None,
        metadata: None,
    }
}

/// Opens `s1`, starts a turn and raises permissions `p1` and `p2` in it.
async fn turn_with_permissions(host: &mut Host) -> (SessionSink, String) {
    let sink = host.open("s1").await;
    host.prompt("s1", "m1", "work", "auto").await;
    let turn = turn_id(&host.until("session.turn").await);
    sink.send(AgentEvent::Permission(permission("p1"))).await;
    sink.send(AgentEvent::Permission(permission("p2"))).await;
    host.until("session.permission").await;
    host.until("session.permission").await;
    (sink, turn)
}

/// The events from the agent's abandon notice to the end of the turn, checked in order.
fn assert_abandoned_then_settled(events: &[Value], turn: &str, state: &str) {
    let from = events
        .iter()
        .position(|e| e["type"] == "session.notice")
        .expect("abandon_turn was called (its notice is missing)");
    let tail = &events[from..];
    assert_eq!(tail[0]["notice"]["id"], "abandoned:p1,p2");
    let resolved: Vec<&str> = tail
        .iter()
        .filter(|e| e["type"] == "session.permission_resolved")
        .filter_map(|e| e["permissionId"].as_str())
        .collect();
    assert_eq!(resolved, vec!["p1", "p2"]);
    let end = tail
        .iter()
        .find(|e| e["type"] == "session.turn")
        .expect("turn ended after the abandon");
    assert_eq!(
        (end["turnId"].as_str(), end["state"].as_str()),
        (Some(turn), Some(state))
    );
}

fn abandon_calls(host: &Host) -> Vec<String> {
    host.calls
        .lock()
        .unwrap()
        .iter()
        .filter(|c| c.starts_with("abandon"))
        .cloned()
        .collect()
}

#[tokio::test(start_paused = true)]
async fn an_ignored_interrupt_abandons_the_turn_with_its_pending_permissions() {
    let mut host = Host::start(Behaviour {
        ignore_interrupt: true,
        notice_on_abandon: true,
        ..Default::default()
    })
    .await;
    let (_sink, turn) = turn_with_permissions(&mut host).await;
    host.send(json!({"type": "session.interrupt", "requestId": "i1", "sessionId": "s1"}))
        .await;
    let events = host.until("session.turn").await;
    assert_abandoned_then_settled(&events, &turn, "canceled");
    assert_eq!(abandon_calls(&host), vec![format!("abandon {turn} p1,p2")]);
}

#[tokio::test]
async fn closing_mid_turn_abandons_the_turn_before_closing() {
    let mut host = Host::start(noticing()).await;
    let (_sink, turn) = turn_with_permissions(&mut host).await;
    host.send(json!({"type": "session.close", "requestId": "x1", "sessionId": "s1"}))
        .await;
    let events = host.until("request.completed").await;
    assert_abandoned_then_settled(&events, &turn, "canceled");
    let calls = host.calls.lock().unwrap().clone();
    let abandon = calls.iter().position(|c| c.starts_with("abandon"));
    let close = calls.iter().position(|c| c == "close");
    assert!(abandon < close, "abandon before close: {calls:?}");
}

#[tokio::test]
async fn a_dead_runtime_abandons_the_turn() {
    let mut host = Host::start(noticing()).await;
    let (sink, turn) = turn_with_permissions(&mut host).await;
    sink.send(AgentEvent::RuntimeFailed(ProviderError::new("gone")))
        .await;
    let events = host.until("session.runtime_failed").await;
    assert_abandoned_then_settled(&events, &turn, "failed");
}

#[tokio::test]
async fn a_turn_that_fails_to_start_is_abandoned() {
    let mut host = Host::start(noticing()).await;
    host.open("s1").await;
    host.prompt("s1", "m1", "refuse", "auto").await;
    host.until("session.turn").await;
    let events = host.until("session.turn").await;
    assert_eq!(
        kinds(&events),
        vec!["session.notice", "session.turn"],
        "{events:?}"
    );
    assert_eq!(events[1]["state"], "failed");
    assert_eq!(abandon_calls(&host).len(), 1);
}

#[tokio::test]
async fn a_permission_raised_outside_a_turn_outlives_the_next_turn() {
    let mut host = Host::start(noticing()).await;
    let sink = host.open("s1").await;
    sink.send(AgentEvent::Permission(permission("p0"))).await;
    host.until("session.permission").await;
    host.prompt("s1", "m1", "work", "auto").await;
    let turn = turn_id(&host.until("session.turn").await);
    sink.turn_ended(turn, agent_bridge_core::TurnOutcome::Completed)
        .await;
    let events = host.until("session.turn").await;
    assert_eq!(
        kinds(&events),
        vec!["session.turn"],
        "p0 is not this turn's"
    );
    let ok = host
        .send(
            json!({"type": "session.permission", "sessionId": "s1", "permissionId": "p0",
            "response": {"behavior": "allow"}}),
        )
        .await;
    assert_eq!(ok["result"], Value::Null, "p0 is still pending: {ok}");
    host.until("session.permission_resolved").await;
}
