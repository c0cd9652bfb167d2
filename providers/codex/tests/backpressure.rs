//! The reader feeds the session's bounded sink directly: with nobody draining, it stops (the CLI
//! waits on its stdout pipe) and a call's answer waits behind the events; once the sink drains,
//! every event arrives in order and the answer follows. A stand-in app-server (a shell script)
//! sends more notifications than the sink holds before it answers.

use agent_bridge_codex::normalize::Normalizer;
use agent_bridge_codex::state;
use agent_bridge_codex::translate::CodexTranslator;
use agent_bridge_conformance::rig::drain_behind_full_sink;
use agent_bridge_core::lifecycle::{AgentRuntime, Liveness, RuntimeLaunch};
use agent_bridge_core::rpc::JsonRpc;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_core::{AgentEvent, SessionSink, SESSION_QUEUE};
use agent_bridge_protocol::ItemBody;
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::time::Duration;

const NOTIFICATIONS: usize = 1000;

#[tokio::test]
async fn an_answer_behind_a_full_sink_arrives_once_the_sink_drains() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("chatty");
    let body = format!(
        r#"#!/bin/sh
read request
i=0
while [ $i -lt {NOTIFICATIONS} ]; do
  echo "{{\"method\":\"warning\",\"params\":{{\"message\":\"w $i\"}}}}"
  i=$((i+1))
done
echo '{{"id":1,"result":{{"ok":true}}}}'
cat >/dev/null
"#
    );
    std::fs::write(&path, body).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let spec = LaunchOverride {
        command: Some(path.display().to_string()),
        args: Vec::new(),
        env: None,
        ..LaunchOverride::default()
    }
    .spec("codex", Vec::new());

    let (sink, mut rx) = SessionSink::channel();
    let shared = state::shared(Normalizer::unbound("s1", "/"));
    let liveness = Liveness::default();
    let inbound = CodexTranslator::inbound(shared, sink, liveness.clone());
    let launch = RuntimeLaunch {
        spec: &spec,
        label: "stand-in app-server",
        install: "",
        dialect: Arc::new(JsonRpc::bare()),
        call_timeout: Duration::from_secs(20),
        scope: None,
    };
    let server = AgentRuntime::spawn(launch, inbound, liveness).expect("spawn the stand-in");
    let rpc = server.rpc.clone();
    let call = tokio::spawn(async move { rpc.call("initialize", json!({})).await });

    let answer = drain_behind_full_sink(&mut rx, SESSION_QUEUE, call, NOTIFICATIONS, warning_n)
        .await
        .expect("the call succeeds");
    assert_eq!(answer, json!({"ok": true}));

    server.shutdown(Duration::from_secs(3)).await;
}

/// The `n`th event is the warning `w n`.
fn warning_n(n: usize, event: AgentEvent) {
    match event {
        AgentEvent::Item(item) => match item.body {
            ItemBody::Notification { message, .. } => assert_eq!(message, format!("w {n}")),
            other => panic!("unexpected item {other:?}"),
        },
        other => panic!("unexpected event {other:?}"),
    }
}
