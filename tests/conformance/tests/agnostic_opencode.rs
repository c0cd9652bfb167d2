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
        "session.revert.conversation",
        "session.revert.both",
        "session.archive",
        "session.unarchive",
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
    shared_kill_9 => |r| acp::shared::shared_kill_9(&r, CASE.kill());
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

/// `XDG_DATA_HOME` (where OpenCode keeps its sessions) set only in plugin.json's `env`: the
/// sessions land there, and a fresh bridge reopening the handle replays the session.
#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_dir_only_in_plugin_json_persists_and_replays() {
    use agent_bridge_conformance::plugin_env::{config_dir_only_in_plugin_json, ConfigDirCase};
    let case = ConfigDirCase {
        var: "XDG_DATA_HOME",
        written: "opencode",
        default: ".local/share/opencode",
        patch: || serde_json::json!({}),
    };
    config_dir_only_in_plugin_json(SPEC, case).await;
}

/// OpenCode's `write`, `edit` and `todowrite` (the mock calls them, one a turn, in the mode that
/// allows them): a write detail, an edit whose `unifiedDiff` is OpenCode's own (hunk header
/// with the file's lines as context), and the todo list as the turn's `todo` item, not a tool row.
async fn write_edit_and_todo(rig: &AgentRig) {
    use agent_bridge_conformance::rig::of_type;
    use mock_llm::ScriptReply;
    use serde_json::json;
    let sid = "oc-tool-detail";
    rig.open(sid, json!({ "mode": CASE.unattended_mode })).await;
    let file = rig.cwd().join("notes.txt");
    let path = file.to_string_lossy().to_string();
    let call = |name: &str, arguments: serde_json::Value| ScriptReply::ToolCall {
        name: name.into(),
        arguments,
    };
    rig.mock.push_steps([
        call(
            "write",
            json!({"filePath": path, "content": "a\nb\nc\nd\ntwo\n"}),
        ),
        ScriptReply::Default,
        call(
            "edit",
            json!({"filePath": path, "oldString": "two", "newString": "three"}),
        ),
        ScriptReply::Default,
        call(
            "todowrite",
            json!({"todos": [
            {"id": "1", "content": "first", "status": "completed", "priority": "high"},
            {"id": "2", "content": "second", "status": "in_progress", "priority": "low"}]}),
        ),
        ScriptReply::Default,
    ]);
    for prompt in ["write the notes", "edit the notes", "plan it"] {
        let run = rig.run_turn(sid, prompt).await;
        assert_eq!(run.end.turn_state(), Some("completed"), "{}", run.end);
    }
    assert_eq!(
        std::fs::read_to_string(&file).ok().as_deref(),
        Some("a\nb\nc\nd\nthree\n")
    );
    let timeline = rig.timeline(sid);
    let tools = of_type(&timeline, "tool_call");
    let detail = |kind: &str| {
        tools
            .iter()
            .find(|t| t["detail"]["type"] == kind)
            .map(|t| t["detail"].clone())
            .unwrap_or_else(|| panic!("a {kind} call: {timeline:#?}"))
    };
    assert_eq!(detail("write")["content"], json!("a\nb\nc\nd\ntwo\n"));
    let diff = detail("edit")["unifiedDiff"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        diff.contains("@@ -1,5 +1,5 @@\n a\n b\n c\n d\n-two\n+three"),
        "OpenCode's own diff, the file's lines as context: {diff}"
    );
    assert_eq!(tools.len(), 2, "no tool row for todowrite: {timeline:#?}");
    let todos = of_type(&timeline, "todo");
    assert_eq!(todos.len(), 1, "{timeline:#?}");
    assert_eq!(
        todos[0]["items"],
        json!([{"text": "first", "completed": true, "status": "completed"},
               {"text": "second", "completed": false, "status": "in_progress"}])
    );
    rig.finish(sid).await;
}

acp_tests! { rig;
    tool_details_write_edit_and_todo => |r| write_edit_and_todo(&r);
    revert_in_git_restores_files_and_cuts_the_replay => |r| acp::opencode_server::a_revert_in_git_restores_the_files_and_the_replay_leaves_the_turns_out(&r, CASE.unattended_mode);
    revert_outside_git_is_conversation_only => |r| acp::opencode_server::outside_git_only_the_conversation_can_be_rewound(&r);
    revert_in_git_without_snapshots_is_conversation_only => |r| acp::opencode_server::in_git_without_snapshots_only_the_conversation_goes_back(&r, CASE.unattended_mode, "opencode.json");
    archived_session_leaves_the_list => |r| acp::opencode_server::an_archived_session_leaves_the_list_until_unarchived(&r);
}

/// OpenCode in the rewind scenarios (outside git: scope `conversation`): custom commands are
/// `command/<name>.md` in its config folder, run as `/<name>`.
const REWIND: agent_bridge_conformance::rewind::RewindCase =
    agent_bridge_conformance::rewind::RewindCase {
        install_command: |rig, text| {
            let commands = rig.env.config_dir.join("command");
            std::fs::create_dir_all(&commands).expect("commands");
            std::fs::write(commands.join("mark.md"), format!("Say {text}")).expect("command");
            "mark".into()
        },
        files_scope: false,
    };

agent_bridge_conformance::case_scenarios!(rig, rewind, REWIND;
    a_rewind_drops_the_later_turns_from_what_the_model_sees,
    a_command_turn_carries_a_revert_token_and_rewinds);

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

// `provider/readSessionHistory` of a closed session (`agent_bridge_conformance::history`).
agent_bridge_conformance::case_scenarios!(rig, history, (); read_history_after_close);
