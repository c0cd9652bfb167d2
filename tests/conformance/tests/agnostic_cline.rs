//! cline-bridge end to end: the real pinned Cline (`cline --acp`) with the mock as its
//! OpenAI-compatible provider, through the ACP provider: the agnostic scenarios and the ACP
//! ones (`tests/acp`). Its unattended switch is the boolean config option `auto_approve`,
//! offered as the mode `auto_approve`. The env here lacks `CLINE_SESSION_BACKEND_MODE`: the
//! profile sets it, and `no_process_is_left_behind` checks that no hub daemon outlives a close.
//! Skipped with a SKIPPED line when the CLI is not installed, failing instead under CI or
//! `AGENT_BRIDGE_REQUIRE_CLIS=1`.

// Not here: a session list (Cline 3.0.65 advertises none), a model change (it offers one
// model under an OpenAI-compatible provider) and images: 3.0.65 advertises
// promptCapabilities.image, but the image never reaches the model request (the test failed);
// cline-bridge does not declare `prompt.image`.

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};
use mock_llm::{HermeticEnv, HermeticError, MockLlm};
use std::path::Path;

/// The recipe without the local session backend: the bridge's profile must set it.
fn hermetic(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    let mut env = mock_llm::hermetic::cline(mock, root)?;
    env.remove("CLINE_SESSION_BACKEND_MODE");
    Ok(env)
}

const SPEC: RigSpec = RigSpec {
    provider: "cline-bridge",
    caps: &[
        "prompt.message",
        "session.configure",
        "session.persistence",
        "permission",
    ],
    cli: "cline",
    hermetic,
};

const CASE: acp::Case = acp::Case {
    ask_mode: None,
    unattended_mode: "auto_approve",
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
    shared_close_one => |r| acp::shared::shared_close_one(&r, CASE);
    catalog_lists_models_and_modes => |r| acp::catalog_lists_models_and_modes(&r, CASE);
    reopen_in_a_fresh_bridge_replays => |r| acp::reopen_in_a_fresh_bridge_replays(&r);
    permission_allowed => |r| acp::permission_allowed(&r, CASE);
    permission_denied => |r| acp::permission_denied(&r, CASE);
    interrupt_with_a_pending_permission => |r| acp::interrupt_with_a_pending_permission(&r, CASE);
    no_process_is_left_behind => |r| acp::no_process_is_left_behind(&r);
}

agent_bridge_conformance::agnostic_scenarios!(cli rig, after acp::record_traffic);
