//! A runtime that dies is restarted with the next prompt (when the agent can restart): the
//! turn fails, the session stays, a notice says it restarted; a failed restart or a crash loop
//! ends the session with `session.runtime_failed`.

mod support;

use agent_bridge_core::lifecycle::shared::ProcessDeaths;
use agent_bridge_core::session::CRASH_LOOP_LIMIT;
use agent_bridge_core::{AgentEvent, SessionSink, TurnOutcome};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::*;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use support::{kinds, Behaviour, Host};

fn restartable() -> Behaviour {
    Behaviour {
        restartable: true,
        ..Behaviour::default()
    }
}

fn calls(host: &Host) -> Vec<String> {
    host.calls.lock().unwrap().clone()
}

/// Prompts and returns the prompt result's `result`.
async fn prompt(host: &mut Host, cmid: &str, text: &str) -> Value {
    host.prompt("s1", cmid, text, "auto").await;
    let events = host.until("session.prompt_result").await;
    events.last().unwrap()["result"].clone()
}

/// Starts a turn and returns its id.
async fn start(host: &mut Host, cmid: &str, text: &str) -> String {
    let result = prompt(host, cmid, text).await;
    assert_eq!(result["type"], "turn", "{result}");
    host.until("session.turn").await;
    result["turnId"].as_str().unwrap().to_string()
}

async fn die(sink: &SessionSink, why: &str) {
    sink.send(AgentEvent::RuntimeFailed(
        ProviderError::new(why)
            .with_code(ErrorCode::RuntimeExited)
            .with_diagnostic("last stderr line"),
    ))
    .await;
}

#[tokio::test]
async fn a_dead_runtime_fails_its_turn_then_the_next_prompt_restarts_it() {
    let mut host = Host::start(restartable()).await;
    let old = host.open("s1").await;
    start(&mut host, "m1", "work").await;
    die(&old, "cli exited (signal: 9)").await;
    let end = host.until("session.turn").await;
    let end = end.last().unwrap();
    assert_eq!(end["state"], "failed");
    assert_eq!(end["error"]["diagnostic"], "last stderr line");
    assert!(!calls(&host).contains(&"restart".to_string()), "lazily");

    let turn = start(&mut host, "m2", "again").await;
    let restart_at = calls(&host).iter().position(|c| c == "restart");
    let start_at = calls(&host).iter().position(|c| c == "start_turn again");
    assert!(
        restart_at < start_at && restart_at.is_some(),
        "{:?}",
        calls(&host)
    );
    // The restarted runtime reports through its new sink; the old one is gone.
    let (_, new) = host.sinks.recv().await.expect("the restart's sink");
    assert!(!old.send(AgentEvent::Notice(stale_notice())).await);
    new.turn_ended(turn, TurnOutcome::Completed).await;
    let end = host.until("session.turn").await;
    assert_eq!(end.last().unwrap()["state"], "completed");
    assert!(
        !kinds(&end).contains(&"session.notice".to_string()),
        "no stale event: {end:?}"
    );
}

#[tokio::test]
async fn the_restart_is_announced_by_a_warning_notice_before_the_turn() {
    let mut host = Host::start(restartable()).await;
    let old = host.open("s1").await;
    die(&old, "cli exited (signal: 9)").await;
    host.prompt("s1", "m1", "hello", "auto").await;
    let events = host.until("session.prompt_result").await;
    assert_eq!(
        kinds(&events),
        vec!["session.notice", "timeline.item", "session.prompt_result"],
        "{events:?}"
    );
    let notice = &events[0]["notice"];
    assert_eq!(notice["severity"], "warning");
    assert!(
        notice["description"]
            .as_str()
            .unwrap_or("")
            .contains("cli exited (signal: 9)"),
        "{notice}"
    );
    assert_eq!(events[2]["result"]["type"], "turn");
}

#[tokio::test]
async fn what_the_agent_reports_while_restarting_follows_the_restart_notice() {
    let mut host = Host::start(Behaviour {
        notice_on_restart: true,
        ..restartable()
    })
    .await;
    let old = host.open("s1").await;
    die(&old, "cli exited (signal: 9)").await;
    host.prompt("s1", "m1", "hello", "auto").await;
    let events = host.until("session.prompt_result").await;
    let notices: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "session.notice")
        .filter_map(|e| e["notice"]["id"].as_str())
        .collect();
    assert_eq!(notices, vec!["agent-restarted:1", "fresh"], "{events:?}");
    assert_eq!(
        kinds(&events),
        vec![
            "session.notice",
            "session.notice",
            "timeline.item",
            "session.prompt_result"
        ]
    );
}

fn stale_notice() -> ProviderNotice {
    ProviderNotice {
        id: "stale".into(),
        severity: Severity::Info,
        title: "from the dead runtime".into(),
        description: None,
        dismissed: None,
    }
}

#[tokio::test]
async fn a_failed_restart_ends_the_session_with_runtime_failed() {
    let mut host = Host::start(Behaviour {
        failing_restarts: u32::MAX,
        ..restartable()
    })
    .await;
    let old = host.open("s1").await;
    die(&old, "cli exited (exit status: 1)").await;
    host.prompt("s1", "m1", "hello", "auto").await;
    let events = host.until("session.prompt_result").await;
    let failed = events
        .iter()
        .find(|e| e["type"] == "session.runtime_failed")
        .unwrap_or_else(|| panic!("runtime_failed before the prompt result: {events:?}"));
    assert_eq!(failed["error"]["code"], "session_not_found", "{failed}");
    let message = failed["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("could not be restarted") && message.contains("No conversation found"),
        "{message}"
    );
    assert_eq!(events.last().unwrap()["result"]["type"], "failed");
    // Tried twice, then for good: no third attempt, later prompts fail at once.
    let result = prompt(&mut host, "m2", "again").await;
    assert_eq!(result["type"], "failed", "{result}");
    let restarts = calls(&host).iter().filter(|c| *c == "restart").count();
    assert_eq!(restarts, 2);
}

#[tokio::test]
async fn a_restart_that_fails_once_is_tried_again_and_the_session_goes_on() {
    let mut host = Host::start(Behaviour {
        failing_restarts: 1,
        ..restartable()
    })
    .await;
    let old = host.open("s1").await;
    die(&old, "cli exited (exit status: 1)").await;
    host.prompt("s1", "m1", "hello", "auto").await;
    let sink = host.sinks.recv().await.expect("restarted").1;
    let events = host.until("session.prompt_result").await;
    assert!(
        !events.iter().any(|e| e["type"] == "session.runtime_failed"),
        "{events:?}"
    );
    let notices: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "session.notice")
        .collect();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0]["notice"]["id"], "agent-restarted:1");
    assert_eq!(events.last().unwrap()["result"]["type"], "turn");
    let restarts = calls(&host).iter().filter(|c| *c == "restart").count();
    assert_eq!(restarts, 2);
    drop(sink);
}

#[tokio::test]
async fn dying_again_and_again_without_completing_a_turn_is_a_crash_loop() {
    let mut host = Host::start(restartable()).await;
    let mut sink = host.open("s1").await;
    start(&mut host, "m0", "work").await;
    for death in 1..=CRASH_LOOP_LIMIT {
        die(&sink, "cli exited (signal: 11)").await;
        let end = host.until("session.turn").await;
        assert_eq!(end.last().unwrap()["state"], "failed");
        if death == CRASH_LOOP_LIMIT {
            break;
        }
        start(&mut host, &format!("m{death}"), "work").await;
        sink = host.sinks.recv().await.expect("restarted").1;
    }
    let events = host.until("session.runtime_failed").await;
    let failed = events.last().unwrap();
    assert_eq!(failed["error"]["code"], "crash_loop", "{failed}");
    let restarts = calls(&host).iter().filter(|c| *c == "restart").count();
    assert_eq!(restarts as u32, CRASH_LOOP_LIMIT - 1);
    let result = prompt(&mut host, "late", "again").await;
    assert_eq!(result["type"], "failed", "{result}");
}

#[tokio::test]
async fn a_completed_turn_between_deaths_is_no_crash_loop() {
    let mut host = Host::start(restartable()).await;
    let mut sink = host.open("s1").await;
    for round in 0..(CRASH_LOOP_LIMIT * 2) {
        let turn = start(&mut host, &format!("ok{round}"), "work").await;
        if round > 0 {
            sink = host.sinks.recv().await.expect("restarted").1;
        }
        sink.turn_ended(turn, TurnOutcome::Completed).await;
        assert_eq!(
            host.until("session.turn").await.last().unwrap()["state"],
            "completed"
        );
        start(&mut host, &format!("die{round}"), "work").await;
        die(&sink, "cli exited (signal: 9)").await;
        let end = host.until("session.turn").await;
        assert!(
            !kinds(&end).contains(&"session.runtime_failed".to_string()),
            "round {round}: {end:?}"
        );
    }
    let restarts = calls(&host).iter().filter(|c| *c == "restart").count();
    assert_eq!(restarts as u32, CRASH_LOOP_LIMIT * 2 - 1);
}

/// Starts a turn of session `sid` and returns its id.
async fn start_on(host: &mut Host, sid: &str, cmid: &str) -> String {
    host.prompt(sid, cmid, "work", "auto").await;
    let events = host.until("session.prompt_result").await;
    let result = events.last().unwrap()["result"].clone();
    assert_eq!(result["type"], "turn", "{result}");
    host.until("session.turn").await;
    result["turnId"].as_str().unwrap().to_string()
}

/// The next restarted sink of `sid`.
async fn restarted(host: &mut Host, sid: &str) -> SessionSink {
    let (id, sink) = host.sinks.recv().await.expect("restarted");
    assert_eq!(id, sid);
    sink
}

#[tokio::test]
async fn on_a_shared_process_deaths_are_the_processs_and_another_sessions_turn_resets_them() {
    // s1 and s2 share a process. It dies again and again during s2's turns, which never
    // complete; s1 completes a turn between the deaths. Per session, s2 would be a crash loop;
    // per process, the process works (s1's turns complete).
    let deaths = ProcessDeaths::default();
    let serial = Arc::new(AtomicU64::new(1));
    let mut host = Host::start(Behaviour {
        shared: Some((deaths.clone(), serial.clone())),
        ..restartable()
    })
    .await;
    let mut a = host.open("s1").await;
    let mut b = host.open("s2").await;
    for death in 1..=CRASH_LOOP_LIMIT + 1 {
        start_on(&mut host, "s2", &format!("b{death}")).await;
        if death > 1 {
            b = restarted(&mut host, "s2").await;
        }
        // One death of the process fails both sessions.
        die(&b, "cli exited (signal: 9)").await;
        die(&a, "cli exited (signal: 9)").await;
        let end = host.until("session.turn").await;
        assert_eq!(end.last().unwrap()["state"], "failed");
        assert!(!kinds(&end).contains(&"session.runtime_failed".to_string()));
        serial.fetch_add(1, Ordering::SeqCst);
        let turn = start_on(&mut host, "s1", &format!("a{death}")).await;
        a = restarted(&mut host, "s1").await;
        a.turn_ended(turn, TurnOutcome::Completed).await;
        let end = host.until("session.turn").await;
        assert_eq!(end.last().unwrap()["state"], "completed");
        assert!(!kinds(&end).contains(&"session.runtime_failed".to_string()));
        assert_eq!(deaths.in_a_row(), 0, "s1's turn reset the process's count");
    }
    let result = prompt(&mut host, "last", "still here").await;
    assert_eq!(result["type"], "turn", "{result}");
}

#[tokio::test]
async fn on_a_shared_process_one_death_counts_once_for_all_its_sessions() {
    let deaths = ProcessDeaths::default();
    let serial = Arc::new(AtomicU64::new(1));
    let mut host = Host::start(Behaviour {
        shared: Some((deaths.clone(), serial.clone())),
        ..restartable()
    })
    .await;
    let a = host.open("s1").await;
    let b = host.open("s2").await;
    start_on(&mut host, "s1", "a0").await;
    start_on(&mut host, "s2", "b0").await;
    die(&a, "cli exited (signal: 9)").await;
    die(&b, "cli exited (signal: 9)").await;
    host.until("session.turn").await;
    host.until("session.turn").await;
    // Each session restarts, so each has counted the death.
    start_on(&mut host, "s1", "a1").await;
    let a = restarted(&mut host, "s1").await;
    start_on(&mut host, "s2", "b1").await;
    let b = restarted(&mut host, "s2").await;
    assert_eq!(deaths.in_a_row(), 1, "one death, two sessions");
    drop((a, b));
}

#[tokio::test]
async fn configure_on_a_dead_runtime_restarts_it_first() {
    let mut host = Host::start(restartable()).await;
    let old = host.open("s1").await;
    die(&old, "cli exited (signal: 9)").await;
    host.send(
        json!({"type": "session.configure", "requestId": "cfg", "sessionId": "s1",
        "changes": {"model": "m2"}}),
    )
    .await;
    let events = host.until("request.completed").await;
    assert_eq!(
        kinds(&events),
        vec!["session.notice", "session.config", "request.completed"],
        "{events:?}"
    );
    assert_eq!(calls(&host), vec!["restart".to_string()]);
}

#[tokio::test]
async fn an_agent_that_cannot_restart_ends_the_session_at_once() {
    let mut host = Host::start(Behaviour::default()).await;
    let sink = host.open("s1").await;
    start(&mut host, "m1", "work").await;
    die(&sink, "cli exited (signal: 9)").await;
    let events = host.until("session.runtime_failed").await;
    assert_eq!(
        kinds(&events),
        vec!["session.turn", "session.runtime_failed"]
    );
    assert!(!calls(&host).contains(&"restart".to_string()));
}

#[tokio::test]
async fn a_prompt_that_finds_the_runtime_gone_before_its_death_was_reported_restarts_it_and_runs() {
    let mut host = Host::start(restartable()).await;
    let _old = host.open("s1").await;
    let turn = start(&mut host, "m1", "gone").await;
    let (_, new) = tokio::time::timeout(std::time::Duration::from_secs(5), host.sinks.recv())
        .await
        .expect("the runtime restarted")
        .expect("the restart's sink");
    new.turn_ended(turn, TurnOutcome::Completed).await;
    let events = host.until("session.turn").await;
    assert_eq!(events.last().unwrap()["state"], "completed", "{events:?}");
    let notices: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "session.notice")
        .collect();
    assert_eq!(notices.len(), 1, "{events:?}");
    assert_eq!(notices[0]["notice"]["id"], "agent-restarted:1");
    assert!(!events.iter().any(|e| e["type"] == "session.runtime_failed"));
    assert_eq!(
        calls(&host)
            .iter()
            .filter(|c| c.starts_with("start_turn") || *c == "restart")
            .cloned()
            .collect::<Vec<_>>(),
        vec!["start_turn gone", "restart", "start_turn gone"]
    );
}

#[tokio::test]
async fn a_restart_in_a_new_conversation_gives_the_model_what_the_session_holds() {
    let mut host = Host::start(Behaviour {
        fresh_restarts: true,
        ..restartable()
    })
    .await;
    let old = host.open("s1").await;
    let turn = start(&mut host, "m1", "remember PELICAN").await;
    old.item_body(
        "a1",
        ItemBody::AssistantMessage {
            text: "I will remember PELICAN.".into(),
            message_id: None,
        },
    )
    .await;
    old.turn_ended(turn, TurnOutcome::Completed).await;
    host.until("session.turn").await;
    die(&old, "cli exited (signal: 9)").await;

    host.prompt("s1", "m2", "which word?", "auto").await;
    let events = host.until("session.prompt_result").await;
    let notice = events
        .iter()
        .find(|e| e["type"] == "session.notice")
        .expect("a notice");
    assert_eq!(notice["notice"]["id"], "agent-conversation-lost:1");
    assert_eq!(notice["notice"]["severity"], "warning");
    let description = notice["notice"]["description"].as_str().unwrap_or("");
    assert!(
        description.contains("No conversation found") && description.contains("signal: 9"),
        "{description}"
    );
    // The user's row shows what the user wrote; the agent got the context first.
    let row = events
        .iter()
        .find(|e| e["type"] == "timeline.item")
        .expect("the user row");
    assert_eq!(row["item"]["text"], "which word?");
    let parts = calls(&host)
        .into_iter()
        .find(|c| c.starts_with("prompt parts "))
        .expect("the prompt carried the context");
    assert!(
        parts.contains("[User]\nremember PELICAN")
            && parts.contains("[Assistant]\nI will remember PELICAN.")
            && parts.ends_with("| which word?"),
        "{parts}"
    );
    // Only that prompt: the next one is the new conversation's own.
    let (_, new) = host.sinks.recv().await.expect("the restart's sink");
    let turn = events.last().unwrap()["result"]["turnId"]
        .as_str()
        .unwrap()
        .to_string();
    new.turn_ended(turn, TurnOutcome::Completed).await;
    host.until("session.turn").await;
    host.until("session.turn").await;
    start(&mut host, "m3", "and now?").await;
    let carried = calls(&host)
        .iter()
        .filter(|c| c.starts_with("prompt parts "))
        .count();
    assert_eq!(carried, 1, "{:?}", calls(&host));
    assert!(
        !events.iter().any(|e| e["type"] == "session.runtime_failed"),
        "not given up"
    );
}

#[tokio::test]
async fn a_user_row_that_carries_context_shows_only_what_the_user_wrote() {
    // A replay of a conversation that started with carried context sends its first prompt
    // with the envelope: the host sees the prompt alone.
    let mut host = Host::start(restartable()).await;
    let sink = host.open("s1").await;
    let text = format!(
        "{}which word?",
        agent_bridge_core::carry_over::wrap("[User]\nremember PELICAN")
    );
    sink.item_body(
        "u1",
        ItemBody::UserMessage {
            text,
            message_id: None,
            client_message_id: None,
        },
    )
    .await;
    let events = host.until("timeline.item").await;
    assert_eq!(events.last().unwrap()["item"]["text"], "which word?");
}
