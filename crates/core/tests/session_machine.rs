//! The core's turn state machine against a deterministic fake agent: whatever the agent does,
//! every prompt gets one result, every started turn ends, every request is answered.

mod support;

use agent_bridge_core::{AgentEvent, TurnOutcome};
use agent_bridge_protocol::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use support::{kinds, Behaviour, Host};

fn turn_id(events: &[serde_json::Value]) -> String {
    events
        .iter()
        .find(|e| e["type"] == "session.turn")
        .expect("turn event")["turnId"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_turn_runs_user_message_result_started_then_agent_end() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    host.prompt("s1", "m1", "hello", "auto").await;
    let events = host.until("session.turn").await;
    assert_eq!(
        kinds(&events),
        vec!["timeline.item", "session.prompt_result", "session.turn"]
    );
    assert_eq!(events[0]["item"]["clientMessageId"], "m1");
    let turn = turn_id(&events);
    assert_eq!(events[1]["result"], json!({"type": "turn", "turnId": turn}));
    sink.turn_ended(turn.clone(), TurnOutcome::Completed).await;
    let end = host.until("session.turn").await;
    assert_eq!(end.last().unwrap()["state"], "completed");
}

#[tokio::test]
async fn a_second_prompt_while_a_turn_runs_fails_and_steer_joins_the_turn() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    host.prompt("s1", "m1", "first", "auto").await;
    let turn = turn_id(&host.until("session.turn").await);
    host.prompt("s1", "m2", "second", "auto").await;
    let r = host.until("session.prompt_result").await;
    let r = r.last().unwrap();
    assert_eq!(
        (r["clientMessageId"].as_str(), r["result"]["type"].as_str()),
        (Some("m2"), Some("failed"))
    );
    host.prompt("s1", "m3", "steer me", "steer").await;
    let r = host.until("session.prompt_result").await;
    assert_eq!(
        r.last().unwrap()["result"],
        json!({"type": "steer", "turnId": turn})
    );
    sink.turn_ended(turn, TurnOutcome::Completed).await;
    host.until("session.turn").await;
    assert!(host
        .calls
        .lock()
        .unwrap()
        .contains(&"steer steer me".to_string()));
}

#[tokio::test]
async fn a_stale_turn_end_is_ignored() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    host.prompt("s1", "m1", "one", "auto").await;
    let turn = turn_id(&host.until("session.turn").await);
    sink.turn_ended(
        "not-this-turn",
        TurnOutcome::Failed(ProviderError::new("stale")),
    )
    .await;
    sink.turn_ended(turn.clone(), TurnOutcome::Completed).await;
    let end = host.until("session.turn").await;
    let end = end.last().unwrap();
    assert_eq!(
        (end["turnId"].as_str(), end["state"].as_str()),
        (Some(turn.as_str()), Some("completed"))
    );
}

#[tokio::test]
async fn an_agent_that_refuses_to_start_gets_a_failed_turn() {
    let mut host = Host::start(Behaviour::default()).await;
    host.open("s1").await;
    host.prompt("s1", "m1", "refuse", "auto").await;
    let started = host.until("session.turn").await;
    assert_eq!(started.last().unwrap()["state"], "started");
    let ended = host.until("session.turn").await;
    let end = ended.last().unwrap();
    assert_eq!(end["state"], "failed");
    assert_eq!(end["error"]["message"], "refused to start");
}

#[tokio::test(start_paused = true)]
async fn an_interrupt_the_agent_ignores_still_cancels_the_turn_and_its_running_tools() {
    let mut host = Host::start(Behaviour {
        ignore_interrupt: true,
        ..Default::default()
    })
    .await;
    let sink = host.open("s1").await;
    host.prompt("s1", "m1", "work", "auto").await;
    let turn = turn_id(&host.until("session.turn").await);
    let call = ToolCall::running(
        "t1",
        "shell",
        ToolCallDetail::Shell {
            command: "sleep 9".into(),
            cwd: None,
            output: None,
            exit_code: None,
        },
    );
    sink.item(TimelineItem::new("t1", ItemBody::ToolCall(call)))
        .await;
    host.until("timeline.item").await;
    let r = host
        .send(json!({"type": "session.interrupt", "requestId": "i1", "sessionId": "s1"}))
        .await;
    assert_eq!(r["result"], serde_json::Value::Null);
    let events = host.until("session.turn").await;
    let tool = events
        .iter()
        .find(|e| e["type"] == "timeline.item")
        .expect("tool settled");
    assert_eq!(
        (tool["item"]["status"].as_str(), &tool["item"]["error"]),
        (Some("canceled"), &serde_json::Value::Null)
    );
    let end = events.last().unwrap();
    assert_eq!(
        (end["turnId"].as_str(), end["state"].as_str()),
        (Some(turn.as_str()), Some("canceled"))
    );
    assert!(events
        .iter()
        .any(|e| e["type"] == "request.completed" && e["requestId"] == "i1"));
}

#[tokio::test]
async fn a_dying_runtime_fails_the_turn_and_later_prompts() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    host.prompt("s1", "m1", "work", "auto").await;
    host.until("session.turn").await;
    sink.send(AgentEvent::RuntimeFailed(
        ProviderError::new("cli exited with 137").with_diagnostic("Killed"),
    ))
    .await;
    let events = host.until("session.runtime_failed").await;
    assert_eq!(
        kinds(&events),
        vec!["session.turn", "session.runtime_failed"]
    );
    assert_eq!(events[0]["state"], "failed");
    assert_eq!(events[1]["error"]["diagnostic"], "Killed");
    host.prompt("s1", "m2", "again", "auto").await;
    let r = host.until("session.prompt_result").await;
    assert_eq!(r.last().unwrap()["result"]["type"], "failed");
}

#[tokio::test]
async fn an_agent_that_drops_its_sink_counts_as_a_dead_runtime() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    drop(sink);
    host.prompt("s1", "m1", "vanish", "auto").await;
    host.until("session.turn").await;
    let events = host.until("session.runtime_failed").await;
    assert_eq!(
        kinds(&events),
        vec!["session.turn", "session.runtime_failed"]
    );
    assert_eq!(events[0]["state"], "failed");
}

#[tokio::test]
async fn closing_a_session_mid_turn_cancels_the_turn_then_closes() {
    let mut host = Host::start(Behaviour::default()).await;
    let _sink = host.open("s1").await;
    host.prompt("s1", "m1", "work", "auto").await;
    host.until("session.turn").await;
    let r = host
        .send(json!({"type": "session.close", "requestId": "c1", "sessionId": "s1"}))
        .await;
    assert_eq!(r["result"], serde_json::Value::Null);
    let events = host.until("request.completed").await;
    assert_eq!(
        kinds(&events),
        vec!["session.turn", "session.closed", "request.completed"]
    );
    assert_eq!(events[0]["state"], "canceled");
    let again = host.prompt("s1", "m2", "x", "auto").await;
    assert_eq!(again["error"]["code"], -32602);
}

#[tokio::test]
async fn permissions_are_tracked_and_resolved_once() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    host.prompt("s1", "m1", "work", "auto").await;
    let turn = turn_id(&host.until("session.turn").await);
    let req = ProviderPermissionRequest {
        id: "p1".into(),
        name: "shell".into(),
        kind: PermissionKind::Tool,
        title: None,
        description: None,
        input: None,
        detail: None,
        suggestions: None,
        actions: None,
        metadata: None,
    };
    sink.send(AgentEvent::Permission(req.clone())).await;
    sink.send(AgentEvent::Permission(req)).await;
    host.until("session.permission").await;
    let unknown = host
        .send(
            json!({"type": "session.permission", "sessionId": "s1", "permissionId": "nope",
        "response": {"behavior": "allow"}}),
        )
        .await;
    assert_eq!(unknown["error"]["code"], -32602);
    let ok = host
        .send(
            json!({"type": "session.permission", "sessionId": "s1", "permissionId": "p1",
        "response": {"behavior": "deny", "message": "no"}}),
        )
        .await;
    assert_eq!(ok["result"], serde_json::Value::Null);
    host.until("session.permission_resolved").await;
    sink.send(AgentEvent::PermissionResolved {
        permission_id: "p1".into(),
    })
    .await;
    sink.turn_ended(turn, TurnOutcome::Completed).await;
    let tail = host.until("session.turn").await;
    assert_eq!(
        kinds(&tail),
        vec!["session.turn"],
        "no second permission_resolved and no duplicate request"
    );
    assert!(host
        .calls
        .lock()
        .unwrap()
        .contains(&"permission p1 deny".to_string()));
}

#[tokio::test]
async fn configure_publishes_config_before_completion_or_fails_cleanly() {
    let mut host = Host::start(Behaviour::default()).await;
    host.open("s1").await;
    host.send(json!({"type": "session.configure", "requestId": "k1", "sessionId": "s1", "changes": {"model": "m2"}})).await;
    let events = host.until("request.completed").await;
    assert_eq!(kinds(&events), vec!["session.config", "request.completed"]);
    assert_eq!(events[0]["config"]["model"], "m2");
    host.send(json!({"type": "session.configure", "requestId": "k2", "sessionId": "s1", "changes": {"model": "bad"}})).await;
    let events = host.until("request.failed").await;
    assert_eq!(kinds(&events), vec!["request.failed"]);
}

#[tokio::test(start_paused = true)]
async fn a_hung_agent_call_still_answers_the_request() {
    let mut host = Host::start(Behaviour {
        hang_configure: true,
        ..Default::default()
    })
    .await;
    host.open("s1").await;
    host.send(json!({"type": "session.configure", "requestId": "k1", "sessionId": "s1", "changes": {"model": "m2"}})).await;
    let events = host.until("request.failed").await;
    assert_eq!(events.last().unwrap()["error"]["code"], "timeout");
}

#[tokio::test]
async fn a_failed_open_answers_request_failed_and_frees_the_id() {
    let mut host = Host::start(Behaviour::default()).await;
    let open = json!({"type": "session.open", "requestId": "o1", "sessionId": "s1",
        "config": {"cwd": "/fail", "env": {}, "mcpServers": {}, "persist": false}, "history": "skip"});
    host.send(open.clone()).await;
    let events = host.until("request.failed").await;
    assert_eq!(kinds(&events), vec!["request.failed"]);
    // The id is free once the failure is read: reopening it at once is not a duplicate.
    host.open("s1").await;
}

#[tokio::test]
async fn duplicate_session_ids_are_refused() {
    let mut host = Host::start(Behaviour::default()).await;
    host.open("s1").await;
    let r = host
        .send(
            json!({"type": "session.open", "requestId": "o2", "sessionId": "s1",
        "config": {"cwd": "/", "env": {}, "mcpServers": {}, "persist": false}, "history": "skip"}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602);
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("already exists"));
}

#[tokio::test]
async fn an_agent_call_may_flood_the_sink_without_deadlock() {
    let mut host = Host::start(Behaviour::default()).await;
    host.open("s1").await;
    host.prompt("s1", "m1", "flood 1000", "auto").await;
    host.until("session.turn").await;
    let events = host.until("session.turn").await;
    let items = events
        .iter()
        .filter(|e| e["type"] == "timeline.item")
        .count();
    assert_eq!(items, 1000);
    assert_eq!(events.last().unwrap()["state"], "completed");
}

#[tokio::test]
async fn a_row_without_an_id_is_dropped_and_the_session_goes_on() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    let row = |id: &str, text: &str| {
        TimelineItem::new(
            id,
            ItemBody::AssistantMessage {
                text: text.into(),
                message_id: None,
            },
        )
    };
    sink.send(AgentEvent::Item(row("", "no id"))).await;
    sink.send(AgentEvent::Item(row("  ", "blank id"))).await;
    sink.send(AgentEvent::Item(row("r1", "kept"))).await;
    let events = host.until("timeline.item").await;
    let items: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["type"] == "timeline.item")
        .collect();
    assert_eq!(items.len(), 1, "{events:#?}");
    assert_eq!(items[0]["item"]["id"], "r1");
    assert_eq!(items[0]["item"]["text"], "kept");
}

#[tokio::test]
async fn a_deny_with_interrupt_answers_the_agent_then_interrupts_its_turn() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    host.prompt("s1", "m1", "work", "auto").await;
    let _turn = turn_id(&host.until("session.turn").await);
    let req = ProviderPermissionRequest {
        id: "p1".into(),
        name: "shell".into(),
        kind: PermissionKind::Tool,
        title: None,
        description: None,
        input: None,
        detail: None,
        suggestions: None,
        actions: None,
        metadata: None,
    };
    sink.send(AgentEvent::Permission(req)).await;
    host.until("session.permission").await;
    host.send(
        json!({"type": "session.permission", "sessionId": "s1", "permissionId": "p1",
        "response": {"behavior": "deny", "message": "stop", "interrupt": true}}),
    )
    .await;
    let end = host.until("session.turn").await;
    assert_eq!(end.last().unwrap()["state"], "canceled");
    let calls = host.calls.lock().unwrap().clone();
    let answered = calls.iter().position(|c| c == "permission p1 deny");
    let interrupted = calls.iter().position(|c| c == "interrupt");
    assert!(
        answered.is_some() && answered < interrupted,
        "the agent got the deny, then the interrupt: {calls:?}"
    );
}
