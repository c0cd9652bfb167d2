//! The provider-agnostic scenarios (`agent_bridge_conformance::scenarios`) over codex-bridge:
//! the real pinned `codex` against the mock model server (one `codex app-server` per session,
//! so every process under the bridge is a session's). Skipped with a SKIPPED line when the CLI
//! is not installed, failing instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`. Also the `kill -9`
//! scenarios of every family (`agent_bridge_conformance::kill`).

use agent_bridge_conformance::{AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "codex-bridge",
    caps: &[
        "prompt.message",
        "prompt.command",
        "session.revert.conversation",
        "prompt.steer",
        "session.configure",
        "session.persistence",
        "permission",
        "session.can_stop_runtime",
    ],
    cli: "codex",
    hermetic: mock_llm::hermetic::codex,
};

async fn rig() -> Option<AgentRig> {
    AgentRig::start(SPEC).await
}

agent_bridge_conformance::agnostic_scenarios!(cli rig);

/// Codex in the kill scenarios: `ask` asks before a command, and a restarted app-server
/// resumes the thread from its rollout.
const KILL: agent_bridge_conformance::kill::KillCase = agent_bridge_conformance::kill::KillCase {
    ask_mode: Some("ask"),
    unattended_mode: "full-access",
    keeps_context_on_restart: true,
    saved_after_turn: false,
    streams_text: true,
    asks_again_after_restart: false,
};

agent_bridge_conformance::case_scenarios!(rig, kill, KILL;
    kill_9_mid_turn, kill_9_after_a_completed_turn, kill_9_with_a_pending_permission);

/// Codex in the elicitation scenarios: in `auto` (in `full-access`, approval policy `never`,
/// Codex declines every elicitation itself) it asks once a session before the MCP tool, and
/// forwards URL mode.
const ELICIT: agent_bridge_conformance::elicitation::ElicitationCase =
    agent_bridge_conformance::elicitation::ElicitationCase {
        call: |tool| mock_llm::ScriptReply::NamespacedToolCall {
            namespace: "mcp__elicit".into(),
            name: tool.into(),
            arguments: serde_json::json!({}),
        },
        mode: Some("auto"),
        allow_tool: || serde_json::json!({"behavior": "allow", "selectedActionId": "allow_session"}),
        tool_asked_once_with: Some(&["allow_once", "allow_session", "deny"]),
        url_mode: agent_bridge_conformance::elicitation::UrlMode::Asked,
    };

agent_bridge_conformance::case_scenarios!(rig, elicitation, ELICIT;
    answered_declined_and_url, an_interrupt_cancels_a_pending_elicitation);

/// Codex in the rewind scenarios: custom prompts are `prompts/<name>.md` in `CODEX_HOME`,
/// run as `prompts:<name>`; Codex restores no files.
const REWIND: agent_bridge_conformance::rewind::RewindCase =
    agent_bridge_conformance::rewind::RewindCase {
        install_command: |rig, text| {
            let prompts = rig.env.config_dir.join("prompts");
            std::fs::create_dir_all(&prompts).expect("prompts");
            std::fs::write(prompts.join("mark.md"), format!("Say {text}")).expect("prompt");
            "prompts:mark".into()
        },
        files_scope: false,
    };

agent_bridge_conformance::case_scenarios!(rig, rewind, REWIND;
    a_rewind_drops_the_later_turns_from_what_the_model_sees,
    a_command_turn_carries_a_revert_token_and_rewinds);

// `provider/readSessionHistory` of a closed session (`agent_bridge_conformance::history`).
agent_bridge_conformance::case_scenarios!(rig, history, (); read_history_after_close);
