//! The provider-agnostic scenarios (`agent_bridge_conformance::scenarios`) over claude-bridge:
//! the real pinned `claude` against the mock model server, spares off (so every process under
//! the bridge is a session's). Skipped with a SKIPPED line when the CLI is not installed,
//! failing instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`. Also the `kill -9` scenarios of every
//! family (`agent_bridge_conformance::kill`).

use agent_bridge_conformance::{AgentRig, HostOptions, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "claude-bridge",
    caps: &[
        "prompt.message",
        "prompt.command",
        "session.revert.conversation",
        "session.revert.files",
        "session.revert.both",
        "prompt.steer",
        "session.configure",
        "session.persistence",
        "permission",
        "session.can_stop_runtime",
    ],
    cli: "claude",
    hermetic: mock_llm::hermetic::claude,
};

async fn rig() -> Option<AgentRig> {
    let options = HostOptions::default().env("AGENT_BRIDGE_CLAUDE_SPARE", "0");
    AgentRig::start_in(SPEC, options, |cli, env| SPEC.launch(cli, env)).await
}

agent_bridge_conformance::agnostic_scenarios!(cli rig);

/// Claude Code in the kill scenarios: `default` asks before a command, its handle is published
/// once a turn is saved, and `--resume` brings the conversation back.
const KILL: agent_bridge_conformance::kill::KillCase = agent_bridge_conformance::kill::KillCase {
    ask_mode: None,
    unattended_mode: "bypassPermissions",
    keeps_context_on_restart: true,
    saved_after_turn: true,
    streams_text: true,
    asks_again_after_restart: false,
};

agent_bridge_conformance::case_scenarios!(rig, kill, KILL;
    kill_9_mid_turn, kill_9_after_a_completed_turn, kill_9_with_a_pending_permission);

/// Claude Code in the elicitation scenarios: the default mode asks before the MCP tool each
/// time, and the CLI refuses URL-mode elicitation itself (it declares form mode only).
const ELICIT: agent_bridge_conformance::elicitation::ElicitationCase =
    agent_bridge_conformance::elicitation::ElicitationCase {
        call: |tool| mock_llm::ScriptReply::ToolCall {
            name: format!("mcp__elicit__{tool}"),
            arguments: serde_json::json!({}),
        },
        mode: None,
        allow_tool: || serde_json::json!({"behavior": "allow"}),
        tool_asked_once_with: None,
        url_mode: agent_bridge_conformance::elicitation::UrlMode::RefusedByCli,
    };

agent_bridge_conformance::case_scenarios!(rig, elicitation, ELICIT;
    answered_declined_and_url, an_interrupt_cancels_a_pending_elicitation);

/// Claude Code in the rewind scenarios: custom commands are `.claude/commands/<name>.md` in the
/// session's folder; `files` is a scope of its own (`providers/claude/tests/e2e_rewind.rs`).
const REWIND: agent_bridge_conformance::rewind::RewindCase =
    agent_bridge_conformance::rewind::RewindCase {
        install_command: |rig, text| {
            let dir = rig.cwd().join(".claude").join("commands");
            std::fs::create_dir_all(&dir).expect("commands dir");
            std::fs::write(
                dir.join("mark.md"),
                format!("---\ndescription: Marks\n---\nSay {text}\n"),
            )
            .expect("command file");
            "mark".into()
        },
        files_scope: true,
    };

agent_bridge_conformance::case_scenarios!(rig, rewind, REWIND;
    a_rewind_drops_the_later_turns_from_what_the_model_sees,
    a_command_turn_carries_a_revert_token_and_rewinds);

// `provider/readSessionHistory` of a closed session (`agent_bridge_conformance::history`).
agent_bridge_conformance::case_scenarios!(rig, history, (); read_history_after_close);
