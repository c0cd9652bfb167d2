//! vibe-bridge end to end: the real pinned Mistral Vibe (`vibe-acp`, PyPI `mistral-vibe` in a
//! venv of the pinned CPython 3.13, `tests/clis/python`) with the mock as a generic openai-style
//! provider, through the ACP provider: the agnostic scenarios and the ACP ones (`tests/acp`).
//! Its modes: `ask` (asks, but runs read-only commands such as `echo` unasked), `accept-edits`
//! (its default) and `auto-approve` (the unattended one). Skipped with a SKIPPED line when the
//! CLI is not installed, failing instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "vibe-bridge",
    caps: &[
        "prompt.message",
        "session.configure",
        "session.persistence",
        "session.list",
        "permission",
    ],
    cli: "vibe-acp",
    hermetic: mock_llm::hermetic::vibe,
};

const CASE: acp::Case = acp::Case {
    ask_mode: Some("ask"),
    unattended_mode: "auto-approve",
    other_model: Some("mock2"),
    start_mode: Some("ask"),
    keeps_context_on_restart: true,
};

async fn rig() -> Option<AgentRig> {
    acp::rig(SPEC).await
}

async fn spare_rig() -> Option<AgentRig> {
    acp::spare_rig(SPEC, agent_bridge_conformance::spare::LONG_IDLE).await
}

acp_tests! { spare_rig;
    unattended_on_a_spare => |r| acp::unattended::holds_on_a_spare(&r, CASE);
}

acp_tests! { rig;
    unattended_mode_runs_without_asking => |r| acp::unattended_mode_runs_without_asking(&r, CASE);
    unattended_after_the_catalog => |r| acp::unattended::holds_after_the_catalog(&r, CASE);
    unattended_on_a_shared_process => |r| acp::unattended::holds_on_a_shared_process(&r, CASE);
    unattended_on_a_reopen => |r| acp::unattended::holds_on_a_reopen(&r, CASE);
    unattended_after_a_restart => |r| acp::unattended::holds_after_a_restart(&r, CASE);
    mode_and_model_change => |r| acp::mode_and_model_change(&r, CASE);
    kill_9_mid_turn => |r| agent_bridge_conformance::kill::kill_9_mid_turn(&r, CASE.kill());
    kill_9_after_a_completed_turn => |r| agent_bridge_conformance::kill::kill_9_after_a_completed_turn(&r, CASE.kill());
    kill_9_with_a_pending_permission => |r| agent_bridge_conformance::kill::kill_9_with_a_pending_permission(&r, CASE.kill());
    shared_two_sessions_at_once => |r| acp::shared::shared_two_sessions_at_once(&r, CASE);
    shared_close_one => |r| acp::shared::shared_close_one(&r, CASE);
    shared_kill_9 => |r| acp::shared::shared_kill_9(&r, CASE.kill());
    nothing_goes_past_the_mock => |r| acp::nothing_goes_past_the_mock(&r);
    catalog_lists_models_and_modes => |r| acp::catalog_lists_models_and_modes(&r, CASE);
    reopen_in_a_fresh_bridge_replays => |r| acp::reopen_in_a_fresh_bridge_replays(&r);
    session_list_has_our_session => |r| acp::session_list_has_our_session(&r);
    no_process_is_left_behind => |r| acp::no_process_is_left_behind(&r);
    permission_allowed => |r| acp::permission_allowed(&r, CASE);
    permission_denied => |r| acp::permission_denied(&r, CASE);
    interrupt_with_a_pending_permission => |r| acp::interrupt_with_a_pending_permission(&r, CASE);
}

agent_bridge_conformance::agnostic_scenarios!(cli rig, after acp::record_traffic);
