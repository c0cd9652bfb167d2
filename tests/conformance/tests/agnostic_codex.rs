//! The provider-agnostic scenarios (`agent_bridge_conformance::scenarios`) over codex-bridge:
//! the real pinned `codex` against the mock model server (one `codex app-server` per session,
//! so every process under the bridge is a session's). Skipped with a SKIPPED line when the CLI
//! is not installed, failing instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`. Also the `kill -9`
//! scenarios of every family (`agent_bridge_conformance::kill`).

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

/// Codex in the kill scenarios: `ask` asks before a command, and a restarted app-server
/// resumes the thread from its rollout.
const KILL: agent_bridge_conformance::kill::KillCase = agent_bridge_conformance::kill::KillCase {
    ask_mode: Some("ask"),
    unattended_mode: "full-access",
    keeps_context_on_restart: true,
    saved_after_turn: false,
};

agent_bridge_conformance::kill_scenarios!(rig, KILL;
    kill_9_mid_turn, kill_9_after_a_completed_turn, kill_9_with_a_pending_permission);
