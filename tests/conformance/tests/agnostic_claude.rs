//! The provider-agnostic scenarios (`agent_bridge_conformance::scenarios`) over claude-bridge:
//! the real pinned `claude` against the mock model server, spares off (so every process under
//! the bridge is a session's). Skipped with a SKIPPED line when the CLI is not installed,
//! failing instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

use agent_bridge_conformance::{AgentRig, HostOptions, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "claude-bridge",
    caps: &[
        "prompt.message",
        "prompt.steer",
        "session.configure",
        "session.persistence",
        "permission",
        "session.can_stop_runtime",
    ],
    cli: "claude",
    hermetic: mock_llm::hermetic::claude,
};

async fn rig() -> Option<AgentRig> {
    let options = HostOptions::default().env("AGENT_BRIDGE_CLAUDE_SPARE", "0");
    AgentRig::start_in(SPEC, options, |cli, env| SPEC.launch(cli, env)).await
}

agent_bridge_conformance::agnostic_scenarios!(cli rig);
