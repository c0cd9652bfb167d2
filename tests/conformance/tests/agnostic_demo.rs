//! The provider-agnostic scenarios (`agent_bridge_conformance::scenarios`) over the built-in
//! demo provider.

use agent_bridge_conformance::{rig::Bridge, scenarios, BridgeHost};

const CAPS: [&str; 2] = ["prompt.message", "session.can_stop_runtime"];

/// A bridge connected to the demo, and the scratch cwd its sessions work in.
async fn demo() -> (Bridge, tempfile::TempDir) {
    demo_launched(None).await
}

/// [`demo`] connected with `launch`.
async fn demo_launched(launch: Option<serde_json::Value>) -> (Bridge, tempfile::TempDir) {
    let host = BridgeHost::spawn().await.expect("spawn agent-bridge serve");
    host.initialize().await.expect("initialize");
    let (conn, caps) = host.connect("demo", &CAPS, launch).await.expect("connect");
    assert_eq!(caps, CAPS.to_vec());
    let dir = tempfile::tempdir().expect("temp cwd");
    (Bridge::new(host, conn, dir.path().to_path_buf()), dir)
}

#[tokio::test]
async fn open_prompt_completes() {
    let (b, _dir) = demo().await;
    scenarios::open_prompt_completes(&b).await;
}

#[tokio::test]
async fn interrupt_cancels_a_running_turn() {
    let (b, _dir) = demo().await;
    scenarios::interrupt_cancels_a_running_turn(&b).await;
}

#[tokio::test]
async fn close_during_a_turn() {
    let (b, _dir) = demo().await;
    scenarios::close_during_a_turn(&b).await;
}

#[tokio::test]
async fn provider_close_during_a_turn() {
    let (b, _dir) = demo().await;
    scenarios::provider_close_during_a_turn(&b).await;
}

#[tokio::test]
async fn close_during_open() {
    // The demo opens in microseconds; without a delay the open is often over before the close
    // is written and the scenario (rightly) refuses to pass.
    let launch = serde_json::json!({ "command": "demo", "env": { "DEMO_OPEN_DELAY_MS": "2000" } });
    let (b, _dir) = demo_launched(Some(launch)).await;
    scenarios::close_during_open(&b, None).await;
}
