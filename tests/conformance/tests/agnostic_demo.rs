//! The provider-agnostic scenarios (`agent_bridge_conformance::scenarios`) over the built-in
//! demo provider.

use agent_bridge_conformance::{rig::Bridge, BridgeHost};

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

/// [`demo`] whose open takes 2 s: the demo opens in microseconds, and without a delay the
/// open is often over before the close is written (the scenario then, rightly, refuses to pass).
async fn demo_slow_open() -> (Bridge, tempfile::TempDir) {
    let launch = serde_json::json!({ "command": "demo", "env": { "DEMO_OPEN_DELAY_MS": "2000" } });
    demo_launched(Some(launch)).await
}

agent_bridge_conformance::agnostic_scenarios!(demo demo, demo_slow_open);
