//! The Codex side of the shared end-to-end rig (`agent_bridge_conformance::rig`): the real
//! `agent-bridge serve` binary, the real pinned `codex` CLI (passed through the connect
//! request's `launch`, with the hermetic env from the mock-llm rig), and the mock model server
//! (OpenAI Responses API).

#![allow(dead_code, unused_imports)] // each test binary uses a part of it

pub mod mcp;

pub use agent_bridge_conformance::rig::{
    last_assistant_text, of_type, AgentRig as Rig, RigSpec, STEP,
};

pub const PROVIDER: &str = "codex-bridge";
pub const CAPS: &[&str] = &[
    "prompt.message",
    "prompt.command",
    "prompt.image",
    "prompt.steer",
    "session.configure",
    "session.list",
    "session.persistence",
    "session.subsession",
    "permission",
    "session.can_stop_runtime",
    "session.archive",
    "session.unarchive",
    "session.revert.conversation",
];

pub const SPEC: RigSpec = RigSpec {
    provider: PROVIDER,
    caps: CAPS,
    cli: "codex",
    hermetic: mock_llm::hermetic::codex,
};

/// The rig, or `None` (with a loud SKIPPED line) when the pinned codex is not installed outside
/// CI (in CI a missing CLI fails the test).
pub async fn rig() -> Option<Rig> {
    Rig::start(SPEC).await
}
