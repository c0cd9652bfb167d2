//! An agent whose tool runs in a daemon of its own (OpenHands' terminal tool: a tmux server,
//! `tmux -L openhands`, its own session, parent the guard) and which ignores stdin EOF: nothing
//! of it outlives a close or the end of the connection. The daemon is looked for first, while
//! the session runs, so the check cannot pass for want of one.

use agent_bridge_conformance::{AgentRig, ProcInfo};
use serde_json::json;
use std::time::{Duration, Instant};

/// Every process whose environment has the rig's HOME (the agent, its daemon, their children).
fn ours(rig: &AgentRig) -> Vec<ProcInfo> {
    let home = format!("HOME={}", rig.env.home.display());
    agent_bridge_conformance::procs::all_procs()
        .into_iter()
        .filter(|p| {
            std::fs::read(format!("/proc/{}/environ", p.pid))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|var| var == home.as_bytes()))
        })
        .collect()
}

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

/// Waits (10 s at most) until no process of ours is left.
async fn nothing_left(rig: &AgentRig, after: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut left = ours(rig);
    while !left.is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        left = ours(rig);
    }
    let left: Vec<String> = left
        .iter()
        .map(|p| {
            format!(
                "{} (group {}, parent {}): {}",
                p.pid, p.pgid, p.ppid, p.cmdline
            )
        })
        .collect();
    assert!(
        left.is_empty(),
        "processes of the agent outlived {after}: {left:#?}"
    );
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
