//! grok-bridge end to end: the real pinned Grok Build (`grok agent --always-approve --no-leader
//! stdio`, npm `@xai-official/grok`, a native binary) with a custom Chat Completions model on
//! the mock, through the ACP provider: the agnostic scenarios and the ACP ones (`tests/acp`).
//! Grok has no ACP modes and never asks (no `session/request_permission`, even for `rm -rf`,
//! also with `[ui] permission_mode = "ask"`); its unattended switch is the process flag
//! `--always-approve`, which the profile always passes, so the bridge offers that one mode,
//! marked unattended. Skipped with a SKIPPED line when the CLI is not installed, failing
//! instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

// Not applicable: the permission scenarios (`permission_allowed`, `permission_denied`,
// `interrupt_with_a_pending_permission`, `shared_two_sessions_at_once`), since Grok never asks
// and has no asking mode; `mode_and_model_change`, since there is no other mode to change to:
// `model_change` switches to the recipe's second custom model instead (its built-in models,
// grok-4.6 and grok-4.5, are xAI's, which need a login and the network).

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "grok-bridge",
    caps: &[
        "prompt.message",
        "session.configure",
        "session.persistence",
        "session.list",
    ],
    cli: "grok",
    hermetic: mock_llm::hermetic::grok,
};

const CASE: acp::Case = acp::Case {
    ask_mode: None,
    unattended_mode: "always-approve",
    other_model: Some("mock2"),
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
    shared_close_one => |r| acp::shared::shared_close_one(&r, CASE);
    shared_kill_9 => |r| acp::shared::shared_kill_9(&r, CASE.kill());
    model_change => |r| acp::model_change(&r, "mock2", "mock-model-2");
    nothing_goes_past_the_mock => |r| acp::nothing_goes_past_the_mock(&r);
    catalog_lists_models_and_modes => |r| acp::catalog_lists_models_and_modes(&r, CASE);
    reopen_in_a_fresh_bridge_replays => |r| acp::reopen_in_a_fresh_bridge_replays(&r);
    session_list_has_our_session => |r| acp::session_list_has_our_session(&r);
    no_process_is_left_behind => |r| acp::no_process_is_left_behind(&r);
}

agent_bridge_conformance::agnostic_scenarios!(cli rig, after acp::record_traffic);
