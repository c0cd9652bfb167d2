//! The provider-agnostic scenarios (`agent_bridge_conformance::scenarios`) over codex-bridge:
//! the real pinned `codex` against the mock model server (one `codex app-server` per session,
//! so every process under the bridge is a session's). Skipped with a SKIPPED line when the CLI
//! is not installed, failing instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

use agent_bridge_conformance::{scenarios, AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "codex-bridge",
    caps: &[
        "prompt.message",
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

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_prompt_completes() {
    let Some(rig) = rig().await else { return };
    scenarios::open_prompt_completes(&rig).await;
    rig.report("agnostic-turn");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_cancels_a_running_turn() {
    let Some(rig) = rig().await else { return };
    scenarios::interrupt_cancels_a_running_turn(&rig).await;
    rig.report("agnostic-interrupt");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_during_a_turn() {
    let Some(rig) = rig().await else { return };
    scenarios::close_during_a_turn(&rig).await;
    rig.report("agnostic-close-during-turn");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_close_during_a_turn() {
    let Some(rig) = rig().await else { return };
    scenarios::provider_close_during_a_turn(&rig).await;
    rig.report("agnostic-provider-close");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_during_open() {
    let Some(rig) = rig().await else { return };
    scenarios::close_during_open(&rig, Some(&rig.cli)).await;
    rig.report("agnostic-close-during-open");
}
