//! The stdout reader feeds the session's bounded sink directly (no unbounded queue): with
//! nobody draining it stops, and a control answer waits behind the events; once the sink
//! drains, every event arrives in order and the answer follows. A shutdown with a full sink
//! does not hang. A stand-in `claude` (a shell script) prints more assistant messages than the
//! sink holds before it answers `initialize`.

use agent_bridge_claude::launch::LaunchOptions;
use agent_bridge_claude::session::{initialize, spawn_runtime};
use agent_bridge_conformance::rig::drain_behind_full_sink;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_core::{AgentEvent, SessionSink, SESSION_QUEUE};
use agent_bridge_protocol::ItemBody;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

const MESSAGES: usize = 600;

fn assistant_line(n: usize) -> String {
    format!(
        r#"{{"type":"assistant","message":{{"id":"msg_{n}","type":"message","role":"assistant","model":"m","content":[{{"type":"text","text":"m {n}"}}],"stop_reason":null,"usage":{{"input_tokens":1,"output_tokens":1}}}},"parent_tool_use_id":null,"session_id":"s","uuid":"u{n}"}}"#
    )
}

/// A stand-in CLI: reads `initialize`, prints `MESSAGES` assistant messages, then answers.
fn chatty_cli(dir: &Path) -> LaunchOverride {
    let lines: String = (0..MESSAGES).map(|n| assistant_line(n) + "\n").collect();
    std::fs::write(dir.join("lines.jsonl"), lines).expect("write lines");
    let path = dir.join("claude");
    let body = r#"#!/bin/sh
read request
cat "$(dirname "$0")/lines.jsonl"
echo '{"type":"control_response","response":{"subtype":"success","request_id":"bridge-initialize-1","response":{"commands":[],"models":[]}}}'
cat >/dev/null
"#;
    std::fs::write(&path, body).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    LaunchOverride {
        command: Some(path.display().to_string()),
        args: Vec::new(),
        env: None,
        ..LaunchOverride::default()
    }
}

fn options(dir: &Path) -> LaunchOptions {
    LaunchOptions {
        cwd: dir.display().to_string(),
        mode: "default".into(),
        ..LaunchOptions::default()
    }
}

#[tokio::test]
async fn an_answer_behind_a_full_sink_arrives_once_the_sink_drains() {
    let dir = tempfile::tempdir().expect("tempdir");
    let launch = chatty_cli(dir.path());
    let (sink, mut rx) = SessionSink::channel();
    let mut runtime = spawn_runtime(
        "s1",
        &launch,
        &BTreeMap::new(),
        &options(dir.path()),
        Some(sink),
    )
    .await
    .expect("spawn the stand-in");
    let channel = runtime.channel.clone();
    let call = tokio::spawn(async move { initialize(&channel).await });

    let answer =
        drain_behind_full_sink(&mut rx, SESSION_QUEUE, call, MESSAGES, assistant_message_n)
            .await
            .expect("initialize succeeds");
    assert_eq!(answer["commands"], serde_json::json!([]));
    runtime.shutdown().await;
}

#[tokio::test]
async fn shutdown_with_a_full_sink_completes_and_stops_the_cli() {
    let dir = tempfile::tempdir().expect("tempdir");
    let launch = chatty_cli(dir.path());
    let (sink, rx) = SessionSink::channel();
    let mut runtime = spawn_runtime(
        "s1",
        &launch,
        &BTreeMap::new(),
        &options(dir.path()),
        Some(sink),
    )
    .await
    .expect("spawn the stand-in");
    let _ = runtime
        .channel
        .send(serde_json::json!({"subtype": "initialize"}))
        .await;
    // The stand-in writes far more than the queue holds: the sink fills, then stays full.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while rx.len() < SESSION_QUEUE && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        rx.len(),
        SESSION_QUEUE,
        "the reader is stopped by the full sink"
    );
    // The reader gives up its pending send when the runtime shuts down; the process is gone.
    tokio::time::timeout(Duration::from_secs(10), runtime.shutdown())
        .await
        .expect("shutdown completes");
    let exited = runtime.agent.process.exited();
    assert!(exited.is_some(), "the stand-in was stopped");
    drop(rx);
}

/// The `n`th event is the assistant message `m n`.
fn assistant_message_n(n: usize, event: AgentEvent) {
    match event {
        AgentEvent::Item(item) => match item.body {
            ItemBody::AssistantMessage { text, .. } => assert_eq!(text, format!("m {n}")),
            other => panic!("unexpected item {other:?}"),
        },
        other => panic!("unexpected event {other:?}"),
    }
}
