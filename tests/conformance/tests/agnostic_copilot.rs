//! copilot-bridge end to end: the real pinned GitHub Copilot CLI (`copilot --acp --stdio`)
//! with the mock as its own model provider, through the ACP provider: the agnostic scenarios
//! and the ACP ones (`tests/acp`). Its unattended switch is the config option `allow_all`,
//! offered as the mode `allow_all`. Skipped with a SKIPPED line when the CLI is not installed,
//! failing instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

// Not here: a model change (Copilot lists no models under a provider of its own).

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "copilot-bridge",
    caps: &[
        "prompt.message",
        "prompt.image",
        "session.configure",
        "session.persistence",
        "session.list",
        "permission",
    ],
    cli: "copilot",
    hermetic: mock_llm::hermetic::copilot,
};

const CASE: acp::Case = acp::Case {
    ask_mode: None,
    unattended_mode: "allow_all",
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
    image_prompt_reaches_the_model => |r| acp::image_prompt_reaches_the_model(&r);
    reopen_in_a_fresh_bridge_replays => |r| acp::reopen_in_a_fresh_bridge_replays(&r);
    session_list_has_our_session => |r| acp::session_list_has_our_session(&r);
    permission_allowed => |r| acp::permission_allowed(&r, CASE);
    permission_denied => |r| acp::permission_denied(&r, CASE);
    interrupt_with_a_pending_permission => |r| acp::interrupt_with_a_pending_permission(&r, CASE);
}

agent_bridge_conformance::agnostic_scenarios!(cli rig, after acp::record_traffic);

/// `COPILOT_HOME` set only in plugin.json's `env`: Copilot keeps its sessions there, and a
/// fresh bridge reopening the handle replays the session.
#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copilot_home_only_in_plugin_json_persists_and_replays() {
    use agent_bridge_conformance::plugin_env::{config_dir_only_in_plugin_json, ConfigDirCase};
    let case = ConfigDirCase {
        var: "COPILOT_HOME",
        written: "session-state",
        default: ".copilot/session-state",
        patch: || serde_json::json!({}),
    };
    config_dir_only_in_plugin_json(SPEC, case).await;
}
