//! Persistence through the ACP provider: a session reopened in a fresh bridge replays its
//! history and continues; `sessions` lists the sessions the bridge created.

use super::{opened_persistence, record_stderr};
use agent_bridge_conformance::rig::last_assistant_text;
use agent_bridge_conformance::AgentRig;
use serde_json::{json, Value};
use std::time::Duration;

/// A session reopened in a fresh bridge replays its history before `session.ready` and
/// continues.
pub async fn reopen_in_a_fresh_bridge_replays(rig: &AgentRig) {
    let opened = rig.open("acp-first", json!({})).await;
    let persistence = opened_persistence(&opened);
    let run = rig.run_turn("acp-first", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let reply = last_assistant_text(&rig.timeline("acp-first"));
    // Qwen Code writes the reply to its history after answering the prompt: a close at once
    // can beat that write (the reply is then missing from the next load).
    tokio::time::sleep(Duration::from_millis(1000)).await;
    rig.finish("acp-first").await;

    let again = rig.reconnect().await;
    let events = again.resume("acp-again", json!({}), persistence).await;
    let ready = events
        .iter()
        .position(|e| e.is("session.ready"))
        .expect("ready");
    let replayed: Vec<Value> = events[..ready]
        .iter()
        .filter(|e| e.is("timeline.item"))
        .filter_map(|e| e.item().cloned())
        .collect();
    assert!(
        replayed.iter().any(|i| i["type"] == "user_message"
            && i["text"].as_str().is_some_and(|t| t.contains("say hi"))),
        "the prompt replayed: {replayed:#?}"
    );
    // The reply as the agent stored it (codex-acp shows a model warning live, not stored).
    assert!(
        replayed.iter().any(|i| i["type"] == "assistant_message"
            && i["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty() && (reply.contains(t) || t.contains(&reply)))),
        "the reply `{reply}` replayed: {replayed:#?}"
    );
    let run = again.run_turn("acp-again", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    again.finish("acp-again").await;
    record_stderr(
        rig,
        &again.host.stderr(),
        "reopen_in_a_fresh_bridge_replays (reopened)",
    );
}

/// `sessions` lists a session the bridge created.
pub async fn session_list_has_our_session(rig: &AgentRig) {
    let opened = rig.open("acp-listed", json!({})).await;
    let persistence = opened_persistence(&opened);
    let run = rig.run_turn("acp-listed", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let cwd = rig.cwd().display().to_string();
    let answer = rig
        .ask(
            "list",
            |rid| json!({"type": "sessions", "requestId": rid, "cwd": cwd}),
        )
        .await;
    assert!(answer.is("sessions"), "{answer}");
    let sessions = answer.at("/sessions").cloned().unwrap_or_default();
    let ours = persistence.pointer("/data/sessionId").cloned();
    assert!(
        sessions
            .as_array()
            .into_iter()
            .flatten()
            .any(|s| s.pointer("/persistence/data/sessionId").cloned() == ours),
        "our session is listed: {sessions:#?}"
    );
    rig.finish("acp-listed").await;
}
