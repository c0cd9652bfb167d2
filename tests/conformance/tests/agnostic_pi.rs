//! pi-bridge end to end: the real pinned Pi (`pi-acp` 0.0.34, the ACP adapter that starts
//! `pi --mode rpc`, npm `@earendil-works/pi-coding-agent` 1.6.0, node 22 first on its PATH) with
//! the mock as an `openai-completions` provider in `models.json`, through the ACP provider: the
//! agnostic scenarios and the ACP ones (`tests/acp`). Pi has no permission layer: every tool
//! runs unasked, so every mode is unattended. Its ACP modes are the model's thinking levels
//! (`off` only for the mock's model), all marked unattended. Skipped with a SKIPPED line when
//! the CLI is not installed, failing instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

// Not applicable: the permission scenarios (`permission_allowed`, `permission_denied`,
// `interrupt_with_a_pending_permission`, `shared_two_sessions_at_once`), since Pi never asks
// (a user extension could, for the whole process, not per session); `mode_and_model_change`,
// since the mock's models have one thinking level (`off`): `model_change` switches to the
// recipe's second model instead.
// pi-bridge runs a process per session (plugin.json `processPerSession`), so the shared-process
// scenarios do not apply: with one pi-acp 0.0.34 process for two sessions, `shared_kill_9`
// failed in 2 of 3 runs when both sessions came back at once on the restarted process (once
// one `session/load` restored nothing, "agent-conversation-lost"; once one session's next turn
// never ended while the other's completed).
// Not run: `no_process_is_left_behind` (the rig finds the agent's process by a command line
// starting with the CLI's path; pi-acp's bin is a node script, its process is `node <path>`).

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "pi-bridge",
    caps: &[
        "prompt.message",
        "session.configure",
        "session.persistence",
        "session.list",
    ],
    cli: "pi-acp",
    hermetic: mock_llm::hermetic::pi,
};

const CASE: acp::Case = acp::Case {
    ask_mode: None,
    unattended_mode: "off",
    other_model: Some("mock/mock-model-2"),
    start_mode: None,
    keeps_context_on_restart: true,
};

async fn rig() -> Option<AgentRig> {
    acp::rig(SPEC).await
}

acp_tests! { rig;
    unattended_mode_runs_without_asking => |r| acp::unattended_mode_runs_without_asking(&r, CASE);
    kill_9_mid_turn => |r| agent_bridge_conformance::kill::kill_9_mid_turn(&r, CASE.kill());
    kill_9_after_a_completed_turn => |r| agent_bridge_conformance::kill::kill_9_after_a_completed_turn(&r, CASE.kill());
    model_change => |r| acp::model_change(&r, "mock/mock-model-2", "mock-model-2");
    nothing_goes_past_the_mock => |r| acp::nothing_goes_past_the_mock(&r);
    catalog_lists_models_and_modes => |r| acp::catalog_lists_models_and_modes(&r, CASE);
    reopen_in_a_fresh_bridge_replays => |r| acp::reopen_in_a_fresh_bridge_replays(&r);
    session_list_has_our_session => |r| acp::session_list_has_our_session(&r);
}

agent_bridge_conformance::agnostic_scenarios!(cli rig, after acp::record_traffic);
