//! opencode-bridge end to end: the real pinned OpenCode (`opencode acp`) against the mock
//! model server, through the ACP provider: the agnostic scenarios and the ACP ones
//! (`tests/acp`). Skipped with a SKIPPED line when the CLI is not installed, failing instead
//! under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};
use mock_llm::{HermeticEnv, HermeticError, MockLlm};
use std::path::Path;

/// OpenCode asks before shell commands and edits (`permission: ask`); a `yolo` agent (OpenCode's
/// modes are its agents) allows them; a second mock model to switch to (never a bundled
/// `opencode/*` model: those would go to the network).
fn hermetic(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    let env = mock_llm::hermetic::opencode(mock, root)?;
    let path = env.config_dir.join("opencode.json");
    let text = std::fs::read_to_string(&path).map_err(|e| HermeticError::Io {
        path: path.clone(),
        source: e,
    })?;
    let mut config: serde_json::Value =
        serde_json::from_str(&text).expect("the hermetic opencode.json parses");
    config["permission"] = serde_json::json!({"bash": "ask", "edit": "ask"});
    config["agent"] = serde_json::json!({"yolo": {
        "mode": "primary",
        "description": "Runs every tool without asking",
        "permission": {"bash": "allow", "edit": "allow"}
    }});
    // The mock model takes images (OpenCode drops image parts for a text-only model).
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
    provider: "opencode-bridge",
    caps: &[
        "prompt.message",
        "prompt.image",
        "session.configure",
        "session.persistence",
        "session.list",
        "permission",
        "prompt.command",
    ],
    cli: "opencode",
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
    shared_kill_9 => |r| acp::shared::shared_kill_9(&r, CASE);
    shared_close_one => |r| acp::shared::shared_close_one(&r, CASE);
    catalog_lists_models_and_modes => |r| acp::catalog_lists_models_and_modes(&r, CASE);
    image_prompt_reaches_the_model => |r| acp::image_prompt_reaches_the_model(&r);
    reopen_in_a_fresh_bridge_replays => |r| acp::reopen_in_a_fresh_bridge_replays(&r);
    session_list_has_our_session => |r| acp::session_list_has_our_session(&r);
    command_runs_as_a_turn => |r| acp::command_runs_as_a_turn(&r, "init");
    permission_allowed => |r| acp::permission_allowed(&r, CASE);
    permission_denied => |r| acp::permission_denied(&r, CASE);
    interrupt_with_a_pending_permission => |r| acp::interrupt_with_a_pending_permission(&r, CASE);
    agent_server_asks_for_a_password => |r| acp::server_password::agent_server_asks_for_a_password(&r);
}

async fn spare_long_rig() -> Option<AgentRig> {
    acp::spare_rig(SPEC, agent_bridge_conformance::spare::LONG_IDLE).await
}

async fn spare_short_rig() -> Option<AgentRig> {
    acp::spare_rig(SPEC, agent_bridge_conformance::spare::SHORT_IDLE).await
}

acp_tests! { spare_long_rig;
    spare_reused => |r| acp::shared::spare_reused(&r, CASE);
    spare_warmed_with_the_last_session => |r| acp::warmup::spare_warmed_with_the_last_session(&r, CASE);
}

acp_tests! { spare_short_rig;
    spare_idle => |r| acp::shared::spare_idle(&r, CASE);
}

agent_bridge_conformance::agnostic_scenarios!(cli rig, after acp::record_traffic);
