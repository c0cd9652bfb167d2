//! Warm spares of shared agent processes, written once for every shared family (Codex, the ACP
//! agents): the last session's close leaves the process as the provider's spare, `doctor
//! --json` reports it with its memory, the next open joins it (no new process), it goes after
//! its idle time, and nothing of it outlives the bridge.
//!
//! The rig's bridge decides the idle time (`AGENT_BRIDGE_SPARE_IDLE_SECS`; spares are off
//! unless it is set): the caller starts it with [`LONG_IDLE`] for
//! [`spare_taken_reported_and_gone_with_the_bridge`], with [`SHORT_IDLE`] for
//! [`spare_goes_after_its_idle_time`].

use crate::agent_groups::{agent_groups, group_id, leader_alive, one_agent_group};
use crate::kill::assert_gone;
use crate::AgentRig;
use serde_json::{json, Value};

/// An idle time no test outlives: the spare goes only with the bridge.
pub const LONG_IDLE: &str = "600";
/// An idle time the test's waits outlast.
pub const SHORT_IDLE: &str = "1";

/// How the bridge is stopped.
#[derive(Debug, Clone, Copy)]
pub enum Exit {
    /// Its stdin closes (the host went away).
    StdinClosed,
    /// It gets `SIGTERM`.
    Sigterm,
}

/// `agent-bridge doctor --json` with the rig's bridge environment: the provider's finding.
pub fn doctor_finding(rig: &AgentRig) -> Value {
    let out = std::process::Command::new(crate::bridge_binary().expect("the bridge binary"))
        .args(["doctor", "--json"])
        .current_dir(crate::workspace_root())
        .envs(rig.options().env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("doctor runs");
    let all: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json printed JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    all.as_array()
        .and_then(|a| a.iter().find(|f| f["id"] == rig.spec.provider))
        .cloned()
        .unwrap_or_else(|| panic!("no finding for {}: {all:#}", rig.spec.provider))
}

/// The rig runs with [`LONG_IDLE`]. A session runs a turn and closes: its process stays as the
/// spare (doctor reports it with its memory); the next session joins it (same process group)
/// and runs a turn; after its close the bridge stops (`exit`) and nothing of the process is
/// left.
pub async fn spare_taken_reported_and_gone_with_the_bridge(
    rig: &AgentRig,
    marker: &str,
    patch: Value,
    exit: Exit,
) {
    rig.open("sp-1", patch.clone()).await;
    let run = rig.run_turn("sp-1", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let agent = one_agent_group(rig, marker);
    rig.finish("sp-1").await;
    assert!(leader_alive(&agent), "kept as the spare: {agent:#?}");

    let finding = doctor_finding(rig);
    let spares = finding["spares"].as_array().cloned().unwrap_or_default();
    assert_eq!(spares.len(), 1, "{finding:#}");
    assert_eq!(spares[0]["pid"], json!(group_id(&agent)), "{finding:#}");
    assert_eq!(spares[0]["kind"], "shared", "{finding:#}");
    assert!(
        spares[0]["rssBytes"].as_u64().is_some_and(|b| b > 0),
        "{finding:#}"
    );

    rig.open("sp-2", patch).await;
    assert_eq!(
        group_id(&one_agent_group(rig, marker)),
        group_id(&agent),
        "the next open joins the spare"
    );
    let run = rig.run_turn("sp-2", "say hi again").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let spares = doctor_finding(rig)["spares"].clone();
    assert_eq!(spares, json!([]), "in use: not a spare");
    let agent = one_agent_group(rig, marker);
    rig.finish("sp-2").await;
    assert!(leader_alive(&agent), "the spare again");

    match exit {
        Exit::StdinClosed => rig.host.close_stdin().await,
        Exit::Sigterm => rig.host.signal(libc::SIGTERM).expect("SIGTERM sent"),
    }
    rig.host
        .wait_exit(crate::rig::STEP)
        .await
        .expect("the bridge exits");
    assert_gone(&agent).await;
}

/// The rig runs with [`SHORT_IDLE`]: a closed session's process stays as the spare
/// only that long, then goes; the next open starts another.
pub async fn spare_goes_after_its_idle_time(rig: &AgentRig, marker: &str, patch: Value) {
    rig.open("sp-1", patch.clone()).await;
    let agent = one_agent_group(rig, marker);
    rig.finish("sp-1").await;
    assert_gone(&agent).await;
    assert!(agent_groups(rig, marker).is_empty());
    rig.open("sp-2", patch).await;
    let again = one_agent_group(rig, marker);
    assert!(group_id(&again) != group_id(&agent), "a new process");
    rig.finish("sp-2").await;
}
