//! An agent whose tool runs in a daemon of its own (OpenHands' terminal tool: a tmux server,
//! `tmux -L openhands`, its own session, parent the guard) and which ignores stdin EOF: nothing
//! of it outlives a close or the end of the connection. The daemon is looked for first, while
//! the session runs, so the check cannot pass for want of one.

use super::{nothing_left, ours};
use agent_bridge_conformance::{AgentRig, ProcInfo};
use serde_json::json;

/// Opens `sid` in `unattended_mode`, runs a command (which starts the daemon) and returns the
/// daemon's processes: those of ours whose program's file name is `daemon`.
async fn with_the_daemon(
    rig: &AgentRig,
    sid: &str,
    unattended_mode: &str,
    daemon: &str,
) -> Vec<ProcInfo> {
    rig.open(sid, json!({ "mode": unattended_mode })).await;
    let run = rig.run_turn(sid, "please run `echo daemon-check`").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let found: Vec<ProcInfo> = ours(rig)
        .into_iter()
        .filter(|p| {
            p.cmdline
                .split(' ')
                .next()
                .and_then(|program| program.rsplit('/').next())
                == Some(daemon)
        })
        .collect();
    assert!(
        !found.is_empty(),
        "no `{daemon}` process while the session runs: {:#?}",
        ours(rig)
    );
    // The command turn went nowhere past the mock (its proxy trap saw nothing).
    let refused = rig.mock.proxy_refused();
    assert!(refused.is_empty(), "requests past the mock: {refused:#?}");
    found
}

/// `session.close`: the agent (which ignores stdin EOF) and its daemon are gone.
pub async fn nothing_outlives_a_close(rig: &AgentRig, unattended_mode: &str, daemon: &str) {
    let sid = "acp-daemon-close";
    with_the_daemon(rig, sid, unattended_mode, daemon).await;
    rig.finish(sid).await;
    nothing_left(rig, "session.close").await;
}

/// `provider/close` of the connection: the same.
pub async fn nothing_outlives_the_connection(rig: &AgentRig, unattended_mode: &str, daemon: &str) {
    let sid = "acp-daemon-pclose";
    with_the_daemon(rig, sid, unattended_mode, daemon).await;
    if let Err(e) = rig.host.close_connection(&rig.conn).await {
        panic!("provider/close: {e:?}\nstderr:\n{}", rig.host.stderr());
    }
    nothing_left(rig, "provider/close").await;
}

/// The bridge's own `shutdown`: the same.
pub async fn nothing_outlives_a_shutdown(rig: &AgentRig, unattended_mode: &str, daemon: &str) {
    let sid = "acp-daemon-shutdown";
    with_the_daemon(rig, sid, unattended_mode, daemon).await;
    if let Err(e) = rig.host.shutdown().await {
        panic!("shutdown: {e}\nstderr:\n{}", rig.host.stderr());
    }
    nothing_left(rig, "the bridge's shutdown").await;
}
