//! The provider-agnostic scenarios (`agent_bridge_conformance::scenarios`) over codex-bridge:
//! the real pinned `codex` against the mock model server (one `codex app-server` per session,
//! so every process under the bridge is a session's). Skipped with a SKIPPED line when the CLI
//! is not installed, failing instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

use agent_bridge_conformance::{AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "codex-bridge",
    caps: &[
        "prompt.message",
        "prompt.steer",
        "session.configure",
        "session.persistence",
        "permission",
        "session.can_stop_runtime",
    ],
    cli: "codex",
    hermetic: mock_llm::hermetic::codex,
};

async fn rig() -> Option<AgentRig> {
    AgentRig::start(SPEC).await
}

agent_bridge_conformance::agnostic_scenarios!(cli rig);
