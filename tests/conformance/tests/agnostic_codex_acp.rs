//! codex-acp-bridge end to end: the real pinned codex-acp adapter against the mock
//! model server, through the ACP provider: the agnostic scenarios and the ACP ones
//! (`tests/acp`). Skipped with a SKIPPED line when the CLI is not installed, failing instead
//! under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "codex-acp-bridge",
    caps: &[
        "prompt.message",
        "prompt.image",
        "session.configure",
        "session.persistence",
        "session.list",
        "permission",
    ],
    cli: "codex-acp",
    hermetic: mock_llm::hermetic::codex_acp,
};

const CASE: acp::Case = acp::Case {
    ask_mode: Some("read-only"),
    unattended_mode: "full-access",
    other_model: Some("gpt-5.4"),
    start_mode: Some("read-only"),
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
    // Not the shared-process scenario: its asking mode (`read-only`) sandboxes the command
    // instead of asking (the sandbox needs bubblewrap).
    unattended_after_the_catalog => |r| acp::unattended::holds_after_the_catalog(&r, CASE);
    unattended_on_a_reopen => |r| acp::unattended::holds_on_a_reopen(&r, CASE);
    unattended_after_a_restart => |r| acp::unattended::holds_after_a_restart(&r, CASE);
    mode_and_model_change => |r| acp::mode_and_model_change(&r, CASE);
    kill_9_mid_turn => |r| agent_bridge_conformance::kill::kill_9_mid_turn(&r, CASE.kill());
    kill_9_after_a_completed_turn => |r| agent_bridge_conformance::kill::kill_9_after_a_completed_turn(&r, CASE.kill());
    catalog_lists_models_and_modes => |r| acp::catalog_lists_models_and_modes(&r, CASE);
    image_prompt_reaches_the_model => |r| acp::image_prompt_reaches_the_model(&r);
    reopen_in_a_fresh_bridge_replays => |r| acp::reopen_in_a_fresh_bridge_replays(&r);
    session_list_has_our_session => |r| acp::session_list_has_our_session(&r);
}

/// In read-only mode codex-acp asks only when the model wants a command outside its sandbox:
/// the mock's next tool call is an `exec_command` asking for escalation.
fn escalated(rig: &AgentRig, file: &str) {
    rig.mock.push_steps([mock_llm::ScriptReply::ToolCall {
        name: "exec_command".into(),
        arguments: serde_json::json!({
            "cmd": format!("touch {file}"),
            "sandbox_permissions": "require_escalated",
            "justification": "the test needs a file written"
        }),
    }]);
}

acp_tests! { rig;
    permission_allowed => |r| async {
        escalated(&r, "allowed.txt");
        acp::permission_allowed(&r, CASE).await
    };
    permission_denied => |r| async {
        escalated(&r, "denied.txt");
        acp::permission_denied(&r, CASE).await
    };
    interrupt_with_a_pending_permission => |r| async {
        escalated(&r, "interrupted.txt");
        acp::interrupt_with_a_pending_permission(&r, CASE).await
    };
}

agent_bridge_conformance::agnostic_scenarios!(cli rig, after acp::record_traffic);
