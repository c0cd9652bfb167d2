//! The shared `codex app-server` as the provider's warm spare, through the real bridge, the
//! real pinned CLI and the mock model server (scenarios in
//! `agent_bridge_conformance::spare`): the last close leaves it running, `doctor --json`
//! reports it with its memory, the next open joins it, it goes after its idle time, and a
//! bridge that exits (stdin closed, or SIGTERM) leaves nothing of it. With an app-server per
//! session (`"processPerSession": true`) the next open takes the one started ahead after the
//! previous open, and that one goes after its idle time too.

mod common;

use agent_bridge_conformance::spare::{self, Exit, LONG_IDLE, SHORT_IDLE};
use agent_bridge_conformance::HostOptions;
use common::*;
use serde_json::json;

/// The rig whose bridge keeps a spare for `idle` seconds.
async fn rig_idle(idle: &str) -> Option<Rig> {
    let options = HostOptions::default().env(agent_bridge_core::spares::IDLE_ENV, idle);
    Rig::start_in(SPEC, options, |cli, env| SPEC.launch(cli, env)).await
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_closed_app_server_is_the_spare_the_next_open_joins_and_it_goes_with_the_bridge() {
    let Some(rig) = rig_idle(LONG_IDLE).await else {
        return;
    };
    spare::spare_taken_reported_and_gone_with_the_bridge(
        &rig,
        "app-server",
        json!({}),
        Exit::StdinClosed,
    )
    .await;
    rig.report("spare-app-server-reused");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigterm_to_the_bridge_stops_the_spare_app_server() {
    let Some(rig) = rig_idle(LONG_IDLE).await else {
        return;
    };
    spare::spare_taken_reported_and_gone_with_the_bridge(
        &rig,
        "app-server",
        json!({}),
        Exit::Sigterm,
    )
    .await;
    rig.report("spare-app-server-sigterm");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_spare_app_server_goes_after_its_idle_time() {
    let Some(rig) = rig_idle(SHORT_IDLE).await else {
        return;
    };
    spare::spare_goes_after_its_idle_time(&rig, "app-server", json!({})).await;
    rig.report("spare-app-server-idle");
}

/// The rig whose plugin.json gives codex-bridge an app-server per session
/// (`"processPerSession": true`) and whose bridge keeps a spare for `idle` seconds.
async fn per_session_rig(idle: &str) -> Option<Rig> {
    let dir = spare::per_session_plugin_dir(SPEC.provider);
    let options = HostOptions::default()
        .env(agent_bridge_core::spares::IDLE_ENV, idle)
        .env("AGENT_BRIDGE_PLUGIN_DIR", dir.display().to_string());
    Rig::start_in(SPEC, options, |cli, env| SPEC.launch(cli, env)).await
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_an_app_server_per_session_the_next_open_takes_the_prestarted_one() {
    let Some(rig) = per_session_rig(LONG_IDLE).await else {
        return;
    };
    spare::prestarted_spare_taken_and_gone_with_the_bridge(&rig, "app-server", json!({})).await;
    rig.report("spare-app-server-prestarted");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_an_app_server_per_session_the_prestarted_one_goes_after_its_idle_time() {
    let Some(rig) = per_session_rig(SHORT_IDLE).await else {
        return;
    };
    spare::prestarted_spare_goes_after_its_idle_time(&rig, "app-server", json!({})).await;
    rig.report("spare-app-server-prestarted-idle");
}
