//! claude-acp-bridge end to end: the real pinned claude-agent-acp adapter against the mock
//! model server, through the ACP provider: the agnostic scenarios and the ACP ones
//! (`tests/acp`). Skipped with a SKIPPED line when the CLI is not installed, failing instead
//! under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "claude-acp-bridge",
    caps: &[
        "prompt.message",
        "prompt.image",
        "session.configure",
        "session.persistence",
        "session.list",
        "permission",
    ],
    cli: "claude-agent-acp",
    hermetic: mock_llm::hermetic::claude_agent_acp,
};

const CASE: acp::Case = acp::Case {
    ask_mode: None,
    unattended_mode: "bypassPermissions",
    other_model: Some("haiku"),
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
    kill_9_with_a_pending_permission => |r| agent_bridge_conformance::kill::kill_9_with_a_pending_permission(&r, CASE.kill());
    catalog_lists_models_and_modes => |r| acp::catalog_lists_models_and_modes(&r, CASE);
    image_prompt_reaches_the_model => |r| acp::image_prompt_reaches_the_model(&r);
    reopen_in_a_fresh_bridge_replays => |r| acp::reopen_in_a_fresh_bridge_replays(&r);
    session_list_has_our_session => |r| acp::session_list_has_our_session(&r);
    permission_allowed => |r| acp::permission_allowed(&r, CASE);
    permission_denied => |r| acp::permission_denied(&r, CASE);
    interrupt_with_a_pending_permission => |r| acp::interrupt_with_a_pending_permission(&r, CASE);
}

agent_bridge_conformance::agnostic_scenarios!(cli rig, after acp::record_traffic);

/// `CLAUDE_CONFIG_DIR` set only in plugin.json's `env`: the adapter's Claude Code writes its
/// transcripts there, and a fresh bridge reopening the handle replays the session.
#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_dir_only_in_plugin_json_persists_and_replays() {
    use agent_bridge_conformance::plugin_env::{config_dir_only_in_plugin_json, ConfigDirCase};
    let case = ConfigDirCase {
        var: "CLAUDE_CONFIG_DIR",
        written: "projects",
        default: ".claude/projects",
        patch: || serde_json::json!({}),
    };
    config_dir_only_in_plugin_json(SPEC, case).await;
}
