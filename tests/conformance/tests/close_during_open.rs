//! `session.close` while a Claude or Codex session is opening, the interleaving forced by a
//! gate in front of the real pinned CLI (`agent_bridge_conformance::gated_open`): the CLI runs,
//! its `initialize` unanswered, when the close is sent. The close is answered only once every
//! process of the session (the CLI, its guard, the wrapper) is gone.

use agent_bridge_conformance::gated_open::{close_during_gated_open, Gate};
use agent_bridge_conformance::{AgentRig, HostOptions, ProcInfo, RigSpec};

const CLAUDE: RigSpec = RigSpec {
    provider: "claude-bridge",
    caps: &["prompt.message", "session.persistence", "permission"],
    cli: "claude",
    hermetic: mock_llm::hermetic::claude,
};

const CODEX: RigSpec = RigSpec {
    provider: "codex-bridge",
    caps: &["prompt.message", "session.persistence", "permission"],
    cli: "codex",
    hermetic: mock_llm::hermetic::codex,
};

/// Neither the wrapper shell, its `sleep`/`cat`, nor an npm launcher: the CLI itself.
fn the_cli(p: &ProcInfo, needle: &str) -> bool {
    p.cmdline.contains(needle)
        && !p.cmdline.starts_with("/bin/sh")
        && !p.cmdline.starts_with("node")
        && !p.cmdline.contains("__guard")
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_close_during_open_waits_for_every_process() {
    let gate = Gate::new();
    // Spares off: every claude under the bridge is the session's.
    let options = HostOptions::default().env("AGENT_BRIDGE_CLAUDE_SPARE", "0");
    let Some(rig) = AgentRig::start_in(CLAUDE, options, |cli, env| gate.launch(cli, env)).await
    else {
        return;
    };
    let cli = rig.cli.display().to_string();
    close_during_gated_open(&rig, &gate, |p| the_cli(p, &cli)).await;
    rig.report("close-during-gated-open");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_close_during_open_waits_for_every_process() {
    let gate = Gate::new();
    let Some(rig) = AgentRig::start_in(CODEX, HostOptions::default(), |cli, env| {
        gate.launch(cli, env)
    })
    .await
    else {
        return;
    };
    // The npm launcher execs the native binary: `.../codex app-server ...`.
    close_during_gated_open(&rig, &gate, |p| the_cli(p, "app-server")).await;
    rig.report("close-during-gated-open");
}
