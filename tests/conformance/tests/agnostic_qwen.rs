//! qwen-bridge end to end: the real pinned Qwen Code (`qwen --acp`) against the mock
//! model server, through the ACP provider: the agnostic scenarios and the ACP ones
//! (`tests/acp`). Skipped with a SKIPPED line when the CLI is not installed, failing instead
//! under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

// Not here: images. Qwen Code 0.15.10 advertises promptCapabilities.image but, with the
// mock's OpenAI-compatible model, the image never reaches the model request; qwen-bridge does
// not declare `prompt.image`.

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "qwen-bridge",
    caps: &[
        "prompt.message",
        "session.configure",
        "session.persistence",
        "session.list",
        "permission",
    ],
    cli: "qwen",
    hermetic: mock_llm::hermetic::qwen,
};

const CASE: acp::Case = acp::Case {
    ask_mode: None,
    unattended_mode: "yolo",
    other_model: None,
    start_mode: None,
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
    shared_two_sessions_at_once => |r| acp::shared::shared_two_sessions_at_once(&r, CASE);
    shared_kill_9 => |r| acp::shared::shared_kill_9(&r, CASE.kill());
    shared_close_one => |r| acp::shared::shared_close_one(&r, CASE);
    catalog_lists_models_and_modes => |r| acp::catalog_lists_models_and_modes(&r, CASE);
    reopen_in_a_fresh_bridge_replays => |r| acp::reopen_in_a_fresh_bridge_replays(&r);
    session_list_has_our_session => |r| acp::session_list_has_our_session(&r);
    permission_allowed => |r| acp::permission_allowed(&r, CASE);
    permission_denied => |r| acp::permission_denied(&r, CASE);
    interrupt_with_a_pending_permission => |r| acp::interrupt_with_a_pending_permission(&r, CASE);
}

async fn spare_long_rig() -> Option<AgentRig> {
    acp::spare_rig(SPEC, agent_bridge_conformance::spare::LONG_IDLE).await
}

async fn spare_short_rig() -> Option<AgentRig> {
    acp::spare_rig(SPEC, agent_bridge_conformance::spare::SHORT_IDLE).await
}

acp_tests! { spare_long_rig;
    spare_reused => |r| acp::shared::spare_reused(&r, CASE);
}

acp_tests! { spare_short_rig;
    spare_idle => |r| acp::shared::spare_idle(&r, CASE);
}

async fn per_session_long_rig() -> Option<AgentRig> {
    acp::shared::per_session_spare_rig(SPEC, agent_bridge_conformance::spare::LONG_IDLE).await
}

async fn per_session_short_rig() -> Option<AgentRig> {
    acp::shared::per_session_spare_rig(SPEC, agent_bridge_conformance::spare::SHORT_IDLE).await
}

acp_tests! { per_session_long_rig;
    prestarted_spare_reused => |r| acp::shared::prestarted_spare_reused(&r, CASE);
}

acp_tests! { per_session_short_rig;
    prestarted_spare_idle => |r| acp::shared::prestarted_spare_idle(&r, CASE);
}

agent_bridge_conformance::agnostic_scenarios!(cli rig, after acp::record_traffic);
