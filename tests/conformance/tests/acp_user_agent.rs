//! A user's own ACP agent: a plugin.json entry with `"agent": "acp"`, an id of its own and no
//! profile, driving a pinned agent as a generic ACP agent (its `command` as is) against the
//! mock model server: claude-agent-acp with the generic capabilities (the entry declares them),
//! and GitHub Copilot CLI with what its own `initialize` advertises (persistence, list, images)
//! and its `allow_all` switch as an unattended mode.

mod acp;

use agent_bridge_conformance::{scenarios, AgentRig, HostOptions, RigSpec};
use serde_json::json;
use std::time::Duration;

const SPEC: RigSpec = RigSpec {
    provider: "my-acp-agent",
    caps: &["prompt.message", "session.configure", "permission"],
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

/// A plugin folder whose plugin.json is the workspace's with one more entry: the user's agent
/// (its options: `unattendedModes` and `extra`).
fn plugin_dir_with(extra: serde_json::Value) -> tempfile::TempDir {
    let mut options = json!({"unattendedModes": ["bypassPermissions"]});
    if let (Some(options), Some(extra)) = (options.as_object_mut(), extra.as_object()) {
        options.extend(extra.clone());
    }
    plugin_dir_with_entry(json!({
        "id": "my-acp-agent",
        "label": "My ACP agent",
        "agent": "acp",
        "command": ["claude-agent-acp"],
        "options": options
    }))
}

/// A plugin folder whose plugin.json is the workspace's with `entry` added.
fn plugin_dir_with_entry(entry: serde_json::Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("plugin dir");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../plugin.json");
    let text = std::fs::read_to_string(root).expect("the workspace plugin.json");
    let mut manifest: serde_json::Value = serde_json::from_str(&text).expect("plugin.json parses");
    let providers = manifest["providers"].as_array_mut().expect("providers");
    providers.push(entry);
    std::fs::write(dir.path().join("plugin.json"), manifest.to_string()).expect("write");
    dir
}

fn plugin_dir() -> tempfile::TempDir {
    plugin_dir_with(json!({}))
}

async fn rig(dir: &tempfile::TempDir) -> Option<AgentRig> {
    rig_of(SPEC, dir).await
}

async fn rig_of(spec: RigSpec, dir: &tempfile::TempDir) -> Option<AgentRig> {
    let options = HostOptions {
        request_timeout: Duration::from_secs(40),
        ..HostOptions::default()
    }
    .env("AGENT_BRIDGE_PLUGIN_DIR", dir.path().display().to_string());
    AgentRig::start_in(spec, options, |cli, env| spec.launch(cli, env)).await
}

/// GitHub Copilot CLI as a user's entry: no profile, no declared capabilities. The rig asks
/// for persistence, list and images: the connect must offer them from Copilot's `initialize`.
const COPILOT: RigSpec = RigSpec {
    provider: "my-copilot",
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

/// Copilot's `allow_all` (category `permissions`, on/off) is its unattended mode.
const COPILOT_CASE: acp::Case = acp::Case {
    ask_mode: None,
    unattended_mode: "allow_all",
    other_model: None,
    start_mode: None,
    keeps_context_on_restart: true,
};

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_declared_agent_gets_what_its_initialize_advertises() {
    let dir = plugin_dir_with_entry(json!({
        "id": "my-copilot",
        "label": "My Copilot",
        "agent": "acp",
        "command": ["copilot"],
        "options": {"args": ["--acp", "--stdio"]}
    }));
    let Some(rig) = rig_of(COPILOT, &dir).await else {
        return;
    };
    acp::catalog_lists_models_and_modes(&rig, COPILOT_CASE).await;
    acp::unattended_mode_runs_without_asking(&rig, COPILOT_CASE).await;
    acp::image_prompt_reaches_the_model(&rig).await;
    acp::session_list_has_our_session(&rig).await;
    acp::reopen_in_a_fresh_bridge_replays(&rig).await;
    rig.report("user-declared-acp-agent-advertised");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_declared_acp_agent_runs_turns_permissions_and_modes() {
    let dir = plugin_dir();
    let Some(rig) = rig(&dir).await else { return };
    scenarios::open_prompt_completes(&rig).await;
    acp::permission_allowed(&rig, CASE).await;
    acp::mode_and_model_change(&rig, CASE).await;
    rig.report("user-declared-acp-agent");
}

/// The entry takes claude-agent-acp's `session/resume` back (`unusableMethods`): a restart
/// then reloads the session with `session/load`, whose replay must not reach the timeline.
#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_declared_agent_without_resume_restarts_through_session_load() {
    let dir = plugin_dir_with(json!({
        "unusableMethods": {"session/resume": "taken back by the test, to restart through session/load"}
    }));
    let Some(rig) = rig(&dir).await else { return };
    agent_bridge_conformance::kill::kill_9_mid_turn(&rig, CASE.kill()).await;
    let stderr = rig.host.stderr();
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("ACP agent restarted") && l.contains("Loaded")),
        "restarted through session/load:\n{stderr}"
    );
    rig.report("user-declared-acp-agent-restart-through-load");
}

#[test]
fn the_user_entry_reaches_the_doctor() {
    let dir = plugin_dir();
    let bin = agent_bridge_conformance::bridge_binary().expect("the bridge binary");
    let out = std::process::Command::new(bin)
        .args(["doctor", "--plugin-dir"])
        .arg(dir.path())
        .output()
        .expect("agent-bridge doctor");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("my-acp-agent"))
        .unwrap_or_else(|| panic!("doctor lists the entry:\n{text}"));
    assert!(line.contains("agent acp"), "{line}");
    assert!(line.contains("claude-agent-acp"), "{line}");
}
