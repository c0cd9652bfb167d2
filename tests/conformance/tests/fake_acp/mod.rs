//! The rig of the fake-agent ACP suite: the real bridge serving a `plugin.json` of its own
//! whose one entry, `fake-acp` (`"agent": "acp"`), starts the fake ACP agent
//! (`tests/fake-acp`) with a scenario, so the real `providers/acp` code drives it. What the fake
//! received is in its store's `log.jsonl` ([`FakeRig::received`]).
#![allow(dead_code)]

pub mod archive;
pub mod flow;
pub mod hostile;
pub mod permissions;
pub mod restart;
pub mod revert;
pub mod sessions;
pub mod shared;

use agent_bridge_conformance::{Bridge, BridgeHost, HostOptions};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The capabilities every fake-agent test asks for (all advertised by the default scenario).
pub const CAPS: &[&str] = &[
    "prompt.message",
    "session.configure",
    "session.persistence",
    "session.list",
    "permission",
    "prompt.image",
    "session.archive",
    "session.unarchive",
    "session.revert.conversation",
    "session.revert.both",
];

/// A bridge connected to the `fake-acp` entry, its scenario and the fake's store.
pub struct FakeRig {
    bridge: Bridge,
    plugin_dir: PathBuf,
    scenario: PathBuf,
    /// The fake's `FAKE_ACP_STORE`.
    pub store: PathBuf,
    caps: Vec<String>,
    _root: tempfile::TempDir,
}

impl std::ops::Deref for FakeRig {
    type Target = Bridge;
    fn deref(&self) -> &Bridge {
        &self.bridge
    }
}

/// Modes most scenarios offer: `ask` (the default, asks before tools) and `yolo`.
pub fn modes() -> Value {
    json!({
        "currentModeId": "ask",
        "availableModes": [
            {"id": "ask", "name": "Ask", "description": "Asks before running tools"},
            {"id": "yolo", "name": "Yolo", "description": "Runs every tool"},
        ]
    })
}

/// A text chunk update of the agent.
pub fn say(text: &str) -> Value {
    json!({"update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}})
}

impl FakeRig {
    /// A rig whose fake plays `scenario`, with the entry's `options`.
    pub async fn start(scenario: Value) -> FakeRig {
        FakeRig::start_with(scenario, json!({})).await
    }

    pub async fn start_with(scenario: Value, options: Value) -> FakeRig {
        let root = tempfile::tempdir().expect("temp root");
        let work = root.path().join("work");
        let store = root.path().join("store");
        let plugin_dir = root.path().join("plugin");
        for dir in [&work, &store, &plugin_dir] {
            std::fs::create_dir_all(dir).expect("folder");
        }
        let scenario_path = root.path().join("scenario.json");
        std::fs::write(&scenario_path, scenario.to_string()).expect("scenario");
        let bin = agent_bridge_conformance::fake_acp_binary().expect("the fake ACP agent");
        let manifest = json!({
            "id": "agent-bridge",
            "version": "0.1.0",
            "providers": [{
                "id": "fake-acp",
                "label": "Fake ACP agent",
                "agent": "acp",
                "command": [bin.display().to_string()],
                "env": {
                    "FAKE_ACP_SCENARIO": scenario_path.display().to_string(),
                    "FAKE_ACP_STORE": store.display().to_string(),
                },
                "options": options,
            }]
        });
        std::fs::write(plugin_dir.join("plugin.json"), manifest.to_string()).expect("plugin.json");
        let (bridge, caps) = connect(&plugin_dir, &work).await;
        FakeRig {
            bridge,
            plugin_dir,
            scenario: scenario_path,
            store,
            caps,
            _root: root,
        }
    }

    /// The scenario file (each new fake process reads it at its start).
    pub fn scenario_path(&self) -> &Path {
        &self.scenario
    }

    /// The capabilities the connect negotiated.
    pub fn caps(&self) -> &[String] {
        &self.caps
    }

    /// A fresh bridge process on the same entry (the fake's sessions stay in its store).
    pub async fn reconnect(&self) -> Bridge {
        connect(&self.plugin_dir, &self.cwd()).await.0
    }

    /// Every message the fake processes received, in order (`{"pid", "msg"}`).
    pub fn received(&self) -> Vec<Value> {
        std::fs::read_to_string(self.store.join("log.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The params of every `method` the fake received.
    pub fn calls(&self, method: &str) -> Vec<Value> {
        self.received()
            .into_iter()
            .filter(|m| m["msg"]["method"] == method)
            .map(|m| m["msg"]["params"].clone())
            .collect()
    }

    /// The results the bridge sent for the fake's requests (permission answers).
    pub fn answers(&self) -> Vec<Value> {
        self.received()
            .into_iter()
            .filter(|m| m["msg"].get("method").is_none() && m["msg"].get("result").is_some())
            .map(|m| m["msg"]["result"].clone())
            .collect()
    }

    /// The fake's session id of a session opened by the bridge (its persistence handle).
    pub fn native_id(opened: &[agent_bridge_conformance::Event]) -> String {
        opened
            .iter()
            .find(|e| e.is("session.opened"))
            .and_then(|e| e.at("/persistence/data/sessionId").cloned())
            .and_then(|v| v.as_str().map(str::to_string))
            .expect("persistence with the native session id")
    }
}

async fn connect(plugin_dir: &Path, work: &Path) -> (Bridge, Vec<String>) {
    let options =
        HostOptions::default().env("AGENT_BRIDGE_PLUGIN_DIR", plugin_dir.display().to_string());
    let host = BridgeHost::spawn_with(options).await.expect("bridge");
    host.initialize().await.expect("initialize");
    let (conn, caps) = host.connect("fake-acp", CAPS, None).await.expect("connect");
    (Bridge::new(host, conn, work.to_path_buf()), caps)
}
