//! The Claude side of the shared end-to-end rig (`agent_bridge_conformance::rig`): the real
//! `agent-bridge serve` binary, the real pinned `claude` CLI (passed through `launch`), a mock
//! model server, and a hermetic env per test.

#![allow(dead_code, unused_imports)] // each test binary uses a part of it

pub use agent_bridge_conformance::rig::{
    last_assistant_text, of_type, report, AgentRig as Rig, RigSpec, STEP,
};
use agent_bridge_conformance::ProcInfo;

pub const PROVIDER: &str = "claude-bridge";
pub const CAPS: &[&str] = &[
    "prompt.message",
    "prompt.command",
    "prompt.image",
    "prompt.steer",
    "prompt.output_schema",
    "session.configure",
    "session.list",
    "permission.tool_policy",
    "session.persistence",
    "session.revert.conversation",
    "session.revert.files",
    "session.revert.both",
    "session.subsession",
    "permission",
    "session.can_stop_runtime",
];

pub const SPEC: RigSpec = RigSpec {
    provider: PROVIDER,
    caps: CAPS,
    cli: "claude",
    hermetic: mock_llm::hermetic::claude,
};

/// The rig, or `None` (with a loud SKIPPED line) when the pinned claude is not installed
/// outside CI.
pub async fn rig() -> Option<Rig> {
    Rig::start(SPEC).await
}

/// [`rig`] with warm spares on: the conformance host turns every family's spares off
/// (`AGENT_BRIDGE_SPARE_IDLE_SECS=0`) unless a test asks, Claude's included.
pub async fn warm_rig() -> Option<Rig> {
    Rig::start_in(SPEC, warm_options(), |cli, env| SPEC.launch(cli, env)).await
}

/// The host options of [`warm_rig`].
pub fn warm_options() -> agent_bridge_conformance::HostOptions {
    agent_bridge_conformance::HostOptions::default().env(
        agent_bridge_core::spares::IDLE_ENV,
        agent_bridge_conformance::spare::LONG_IDLE,
    )
}

/// The first session's CLI: the oldest `claude` under the bridge. A session's CLI is older than
/// the spare started after it answered, so the first session's is first.
pub fn first_session_cli(rig: &Rig) -> ProcInfo {
    rig.cli_procs()
        .into_iter()
        .next()
        .expect("a claude process")
}

/// [`rig`] whose host waits up to [`STEP`] for a request's answer (an open included) instead of
/// 10 s: on a loaded machine the first events' checks in the host alone can take seconds.
pub async fn patient_rig() -> Option<Rig> {
    let options = agent_bridge_conformance::HostOptions {
        request_timeout: STEP,
        ..Default::default()
    };
    Rig::start_in(SPEC, options, |cli, env| SPEC.launch(cli, env)).await
}

/// The text of every tool result the CLI sent the model in its last request.
pub fn last_tool_results(rig: &Rig) -> String {
    let req = rig.last_model_request();
    req.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["content"].to_string())
        .collect::<Vec<_>>()
        .join("\n")
}
