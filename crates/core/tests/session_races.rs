//! Races between host inputs and what the agent already reported.

mod support;

use agent_bridge_core::{AgentEvent, SessionSink, TurnOutcome};
use agent_bridge_protocol::*;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use support::{prompt_input, Behaviour, Host};

fn turn_id(events: &[Value]) -> String {
    events
        .iter()
        .find(|e| e["type"] == "session.turn")
        .expect("turn event")["turnId"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_steer_that_arrives_after_the_turn_ended_starts_a_new_turn() {
    let mut host = Host::start(Behaviour {
        configure_ends_turn: true,
        ..Default::default()
    })
    .await;
    host.open("s1").await;
    host.prompt("s1", "m1", "first", "auto").await;
    let first = turn_id(&host.until("session.turn").await);
    // The agent ends the turn while it configures (its TurnEnded is queued, not yet read) and
    // the steer is queued right behind the configure.
    let configure = json!({"type": "session.configure", "requestId": "k1", "sessionId": "s1",
        "changes": {"model": "m2"}});
    let steer = prompt_input("s1", "m2", "late steer", "steer");
    let answers = host.send_all(&[configure, steer]).await;
    assert!(answers.iter().all(|a| a["result"].is_null()), "{answers:?}");
    let events = host.until("session.prompt_result").await;
    let result = events.last().unwrap();
    assert_eq!(result["clientMessageId"], "m2");
    assert_eq!(result["result"]["type"], "turn", "{result}");
    assert_ne!(result["result"]["turnId"], first.as_str());
    let ended = events
        .iter()
        .find(|e| e["type"] == "session.turn" && e["turnId"] == first.as_str())
        .expect("the first turn ended before the steer was handled");
    assert_eq!(ended["state"], "completed");
    let started = host.until("session.turn").await;
    let started = started.last().unwrap();
    assert_eq!(
        (started["turnId"].clone(), started["state"].as_str()),
        (result["result"]["turnId"].clone(), Some("started"))
    );
}

fn running_tool(id: &str) -> TimelineItem {
    let call = ToolCall::running(
        id,
        "shell",
        ToolCallDetail::Shell {
            command: "sleep 9".into(),
            cwd: None,
            output: None,
            exit_code: None,
        },
    );
    TimelineItem::new(id, ItemBody::ToolCall(call))
}

async fn child_item(sink: &SessionSink, child: &str, item: TimelineItem) {
    sink.send(AgentEvent::ChildItem {
        child_session_id: child.into(),
        item,
    })
    .await;
}

fn items_of<'a>(events: &'a [Value], session: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["type"] == "timeline.item" && e["sessionId"] == session)
        .collect()
}

#[tokio::test]
async fn child_items_are_deduplicated_and_settled_when_the_turn_is_canceled() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    host.prompt("s1", "m1", "work", "auto").await;
    let turn = turn_id(&host.until("session.turn").await);
    child_item(&sink, "k1", running_tool("kt1")).await;
    child_item(&sink, "k1", running_tool("kt1")).await;
    sink.turn_ended(turn.clone(), TurnOutcome::Canceled).await;
    let events = host.until("session.turn").await;
    let child = items_of(&events, "k1");
    assert_eq!(
        child.len(),
        2,
        "one running snapshot, one settled: {events:?}"
    );
    assert_eq!(child[0]["item"]["status"], "running");
    assert_eq!(child[1]["item"]["status"], "canceled");
    let end = events.last().unwrap();
    assert_eq!(
        (end["turnId"].as_str(), end["state"].as_str()),
        (Some(turn.as_str()), Some("canceled"))
    );
}

#[tokio::test]
async fn a_failed_turn_fails_running_child_tools_and_close_cancels_the_rest() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    host.prompt("s1", "m1", "work", "auto").await;
    let turn = turn_id(&host.until("session.turn").await);
    child_item(&sink, "k1", running_tool("kt1")).await;
    sink.turn_ended(turn, TurnOutcome::Failed(ProviderError::new("boom")))
        .await;
    let events = host.until("session.turn").await;
    let child = items_of(&events, "k1");
    assert_eq!(
        child.last().unwrap()["item"]["status"],
        "failed",
        "{events:?}"
    );
    // A sub-agent still running a tool between turns is settled when the session closes.
    child_item(&sink, "k2", running_tool("kt2")).await;
    host.until("timeline.item").await;
    host.send(json!({"type": "session.close", "requestId": "x1", "sessionId": "s1"}))
        .await;
    let events = host.until("request.completed").await;
    let settled = items_of(&events, "k2");
    assert_eq!(settled.len(), 1, "{events:?}");
    assert_eq!(settled[0]["item"]["status"], "canceled");
    let closed: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "session.closed")
        .filter_map(|e| e["sessionId"].as_str())
        .collect();
    assert_eq!(closed, vec!["k1", "k2", "s1"]);
}

#[tokio::test]
async fn the_number_of_tracked_children_is_bounded() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    let max = agent_bridge_core::session::MAX_CHILDREN;
    for i in 0..=max {
        child_item(&sink, &format!("k{i}"), running_tool(&format!("t{i}"))).await;
    }
    let events = host.until("session.closed").await;
    let closed = events.last().unwrap();
    assert_eq!(closed["sessionId"], "k0", "the oldest child is let go");
    let settled = items_of(&events, "k0");
    assert_eq!(settled.last().unwrap()["item"]["status"], "canceled");
    let opened = events
        .iter()
        .filter(|e| e["type"] == "session.opened")
        .count();
    assert_eq!(opened, max);
    let next = host.event().await;
    assert_eq!(
        (next["type"].as_str(), next["sessionId"].as_str()),
        (Some("session.opened"), Some(format!("k{max}").as_str()))
    );
}
