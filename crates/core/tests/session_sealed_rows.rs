//! A row of a turn that ended is final: a later snapshot of it (an agent reloaded after a crash
//! that reports again the tool call the crash cut off) is not emitted, while new rows are.

mod support;

use agent_bridge_core::{AgentEvent, SessionSink, TurnOutcome};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::*;
use pretty_assertions::assert_eq;
use serde_json::Value;
use support::{kinds, Behaviour, Host};

fn shell(id: &str) -> TimelineItem {
    TimelineItem::new(
        id,
        ItemBody::ToolCall(ToolCall::running(
            id,
            "shell",
            ToolCallDetail::Shell {
                command: "sleep 9".into(),
                cwd: None,
                output: None,
                exit_code: None,
            },
        )),
    )
}

fn text(id: &str, text: &str) -> TimelineItem {
    TimelineItem::new(
        id,
        ItemBody::AssistantMessage {
            text: text.into(),
            message_id: None,
        },
    )
}

async fn start(host: &mut Host, cmid: &str, text: &str) -> String {
    host.prompt("s1", cmid, text, "auto").await;
    let events = host.until("session.prompt_result").await;
    let result = events.last().unwrap()["result"].clone();
    assert_eq!(result["type"], "turn", "{result}");
    host.until("session.turn").await;
    result["turnId"].as_str().unwrap().to_string()
}

fn item_ids(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "timeline.item")
        .filter_map(|e| e["item"]["id"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn a_row_of_a_turn_a_crash_ended_is_not_updated_by_the_restarted_agent() {
    let mut host = Host::start(Behaviour {
        restartable: true,
        ..Behaviour::default()
    })
    .await;
    let old = host.open("s1").await;
    start(&mut host, "m1", "work").await;
    old.send(AgentEvent::Item(shell("tool-1"))).await;
    host.until("timeline.item").await;
    old.send(AgentEvent::RuntimeFailed(
        ProviderError::new("cli exited (signal: 9)").with_code(ErrorCode::RuntimeExited),
    ))
    .await;
    let end = host.until("session.turn").await;
    assert_eq!(end.last().unwrap()["state"], "failed");
    assert_eq!(item_ids(&end), vec!["tool-1"], "settled as failed: {end:?}");

    let turn = start(&mut host, "m2", "again").await;
    let (_, new): (String, SessionSink) = host.sinks.recv().await.expect("the restart's sink");
    // The reloaded agent reports the cut-off call again, then the new turn's answer.
    new.send(AgentEvent::Item(shell("tool-1"))).await;
    new.send(AgentEvent::Item(text("answer-2", "done"))).await;
    new.turn_ended(turn, TurnOutcome::Completed).await;
    let events = host.until("session.turn").await;
    assert_eq!(item_ids(&events), vec!["answer-2"], "{events:?}");
    assert_eq!(events.last().unwrap()["state"], "completed");
}

#[tokio::test]
async fn rows_of_the_active_turn_still_update_and_are_final_once_it_ends() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    let turn = start(&mut host, "m1", "work").await;
    sink.send(AgentEvent::Item(text("a", "he"))).await;
    sink.send(AgentEvent::Item(text("a", "hello"))).await;
    sink.turn_ended(turn, TurnOutcome::Completed).await;
    let events = host.until("session.turn").await;
    assert_eq!(item_ids(&events), vec!["a", "a"], "{events:?}");

    let turn = start(&mut host, "m2", "more").await;
    sink.send(AgentEvent::Item(text("a", "hello, changed")))
        .await;
    sink.send(AgentEvent::Item(text("b", "new"))).await;
    sink.turn_ended(turn, TurnOutcome::Completed).await;
    let events = host.until("session.turn").await;
    assert_eq!(item_ids(&events), vec!["b"], "{:?}", kinds(&events));
}
