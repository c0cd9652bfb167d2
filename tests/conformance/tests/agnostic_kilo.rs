//! kilo-bridge end to end: the real pinned Kilo Code CLI (`kilo acp`, an OpenCode fork) against
//! the mock model server, through the ACP provider: the agnostic scenarios and the ACP ones
//! (`tests/acp`). Skipped with a SKIPPED line when the CLI is not installed, failing instead
//! under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};
use mock_llm::{HermeticEnv, HermeticError, MockLlm};
use std::path::Path;

/// Kilo asks before shell commands and edits (the recipe's `permission: ask`); a `yolo` agent
/// (Kilo's modes are its agents, as OpenCode's) allows them; a second mock model to switch to.
fn hermetic(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    let env = mock_llm::hermetic::kilo(mock, root)?;
    let path = env.config_dir.join("kilo.json");
    let text = std::fs::read_to_string(&path).map_err(|e| HermeticError::Io {
        path: path.clone(),
        source: e,
    })?;
    let mut config: serde_json::Value =
        serde_json::from_str(&text).expect("the hermetic kilo.json parses");
    config["agent"] = serde_json::json!({"yolo": {
        "mode": "primary",
        "description": "code with every tool allowed",
        "permission": {"bash": "allow", "edit": "allow"}
    }});
    config["provider"]["mock"]["models"]["mock-model"]["modalities"] =
        serde_json::json!({"input": ["text", "image"], "output": ["text"]});
    config["provider"]["mock"]["models"]["mock-model-2"] = serde_json::json!({"name": "Mock Model 2", "tool_call": true, "limit": {"context": 128000, "output": 8192}});
    std::fs::write(&path, config.to_string()).map_err(|e| HermeticError::Io {
        path: path.clone(),
        source: e,
    })?;
    Ok(env)
}

const SPEC: RigSpec = RigSpec {
    provider: "kilo-bridge",
    caps: &[
        "prompt.message",
        "prompt.image",
        "session.configure",
        "session.persistence",
        "session.list",
        "permission",
        "session.revert.conversation",
        "session.revert.both",
        "session.archive",
        "session.unarchive",
    ],
    cli: "kilo",
    hermetic,
};

const CASE: acp::Case = acp::Case {
    ask_mode: None,
    unattended_mode: "yolo",
    other_model: Some("mock/mock-model-2"),
    start_mode: None,
    keeps_context_on_restart: true,
};

async fn rig() -> Option<AgentRig> {
    acp::rig(SPEC).await
}

acp_tests! { rig;
    unattended_mode_runs_without_asking => |r| acp::unattended_mode_runs_without_asking(&r, CASE);
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
    agent_server_asks_for_a_password => |r| acp::server_password::agent_server_asks_for_a_password(&r);
    revert_in_git_without_snapshots_is_conversation_only => |r| acp::opencode_server::in_git_without_snapshots_only_the_conversation_goes_back(&r, CASE.unattended_mode, "kilo.json");
    revert_outside_git_is_conversation_only => |r| acp::opencode_server::outside_git_only_the_conversation_can_be_rewound(&r);
    archived_session_leaves_the_list => |r| acp::opencode_server::an_archived_session_leaves_the_list_until_unarchived(&r);
}

/// Kilo in the rewind scenarios (outside git: scope `conversation`). Its commands are not
/// declared (`prompt.command`), so the command scenario is OpenCode's alone.
const REWIND: agent_bridge_conformance::rewind::RewindCase =
    agent_bridge_conformance::rewind::RewindCase {
        install_command: |_, _| unreachable!("kilo-bridge declares no commands"),
        files_scope: false,
    };

agent_bridge_conformance::case_scenarios!(rig, rewind, REWIND;
    a_rewind_drops_the_later_turns_from_what_the_model_sees);

async fn spare_long_rig() -> Option<AgentRig> {
    acp::spare_rig(SPEC, agent_bridge_conformance::spare::LONG_IDLE).await
}

acp_tests! { spare_long_rig;
    spare_warmed_with_the_last_session => |r| acp::warmup::spare_warmed_with_the_last_session(&r, CASE);
}

agent_bridge_conformance::agnostic_scenarios!(cli rig, after acp::record_traffic);
