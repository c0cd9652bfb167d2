//! The unattended mode holds on every path a session opens by: a fresh process after the
//! catalog (Paseo always asks for it first), a process shared with an asking session, a warm
//! spare, a reopen of a saved session and a restart after a crash. On each the mock model asks
//! for a file-writing command; the command runs and no permission is ever asked.

use super::{mode_patch, opened_persistence, Case};
use agent_bridge_conformance::agent_groups::{
    agent_groups, group_id, leader_alive, one_agent_group,
};
use agent_bridge_conformance::kill::{assert_gone, restarting_turn};
use agent_bridge_conformance::{AgentRig, ProcInfo};
use serde_json::json;
use std::time::{Duration, Instant};

/// The host's catalog request in the rig's folder.
pub(crate) async fn catalog(rig: &AgentRig) {
    let cwd = rig.cwd().display().to_string();
    let answer = rig
        .ask(
            "cat",
            |rid| json!({"type": "catalog", "requestId": rid, "cwd": cwd}),
        )
        .await;
    assert!(answer.is("catalog"), "{answer}");
}

pub(crate) fn asked(rig: &AgentRig, sid: &str) -> bool {
    rig.host
        .session_events(sid)
        .iter()
        .any(|e| e.is("session.permission"))
}

/// A `touch FILE` turn in `sid` completes with the file written and no permission asked.
pub(crate) async fn runs_unasked(rig: &AgentRig, sid: &str, file: &str) {
    let run = rig
        .run_turn(sid, &format!("please run `touch {file}`"))
        .await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert!(rig.cwd().join(file).exists(), "the command ran");
    assert!(!asked(rig, sid), "the unattended mode asked");
}

/// The catalog first, then an open in the unattended mode it offers.
pub async fn holds_after_the_catalog(rig: &AgentRig, case: Case) {
    catalog(rig).await;
    let sid = "un-catalog";
    rig.open(sid, json!({ "mode": case.unattended_mode })).await;
    runs_unasked(rig, sid, "catalog.txt").await;
    rig.finish(sid).await;
}

/// An asking session opens, then an unattended one joins its process: the second runs the
/// command unasked, the first still asks (the mode is each session's).
pub async fn holds_on_a_shared_process(rig: &AgentRig, case: Case) {
    catalog(rig).await;
    rig.open("un-ask", mode_patch(case.ask_mode)).await;
    rig.open("un-shared", json!({ "mode": case.unattended_mode }))
        .await;
    let agent = one_agent_group(rig, rig.spec.cli);
    runs_unasked(rig, "un-shared", "shared.txt").await;
    let (_, turn) = rig
        .start_turn("un-ask", "please run `touch asked.txt`")
        .await;
    let (_, pid) = rig.wait_permission("un-ask", None).await;
    rig.answer_permission("un-ask", &pid, json!({"behavior": "deny", "message": "no"}))
        .await;
    rig.turn_end("un-ask", &turn).await;
    assert_eq!(
        group_id(&one_agent_group(rig, rig.spec.cli)),
        group_id(&agent),
        "one process"
    );
    rig.finish("un-ask").await;
    rig.finish("un-shared").await;
}

/// Waits for the one agent group other than `not`: the spare started after a close.
pub(crate) async fn spare(rig: &AgentRig, not: &[ProcInfo]) -> Vec<ProcInfo> {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let mut found: Vec<Vec<ProcInfo>> = agent_groups(rig, rig.spec.cli)
            .into_iter()
            .filter(|g| group_id(g) != group_id(not) && leader_alive(g))
            .collect();
        if found.len() == 1 {
            return found.remove(0);
        }
        assert!(
            Instant::now() < deadline,
            "no spare started after the last close"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The rig keeps spares ([`super::spare_rig`]). An asking session closes; the catalog, then an
/// open in the unattended mode takes the spare, and its command runs unasked.
pub async fn holds_on_a_spare(rig: &AgentRig, case: Case) {
    rig.open("un-first", mode_patch(case.ask_mode)).await;
    let first = one_agent_group(rig, rig.spec.cli);
    rig.finish("un-first").await;
    let spare = spare(rig, &first).await;
    catalog(rig).await;
    let sid = "un-spare";
    rig.open(sid, json!({ "mode": case.unattended_mode })).await;
    assert_eq!(
        group_id(&one_agent_group(rig, rig.spec.cli)),
        group_id(&spare),
        "the open took the spare"
    );
    runs_unasked(rig, sid, "spare.txt").await;
    rig.finish(sid).await;
}

/// A saved session closes and is reopened in the unattended mode: its command runs unasked.
pub async fn holds_on_a_reopen(rig: &AgentRig, case: Case) {
    let opened = rig.open("un-saved", mode_patch(case.ask_mode)).await;
    let persistence = opened_persistence(&opened);
    let run = rig.run_turn("un-saved", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("un-saved").await;
    catalog(rig).await;
    let sid = "un-reopened";
    rig.resume(sid, json!({ "mode": case.unattended_mode }), persistence)
        .await;
    runs_unasked(rig, sid, "reopened.txt").await;
    rig.finish(sid).await;
}

/// SIGKILLs the agent itself (the oldest process of its group that is not its guard).
pub(crate) fn kill_9(group: &[ProcInfo]) {
    let target = group
        .iter()
        .filter(|p| !p.cmdline.contains("__guard"))
        .min_by_key(|p| (p.start_time, p.pid))
        .expect("the agent in its group");
    // SAFETY: kill(2) on a pid just read from /proc.
    unsafe {
        libc::kill(target.pid, libc::SIGKILL);
    }
}

/// A session in the unattended mode, after the catalog, on a process shared with an asking
/// session: the process is killed; the next prompt restarts it and runs unasked.
pub async fn holds_after_a_restart(rig: &AgentRig, case: Case) {
    catalog(rig).await;
    rig.open("un-other", mode_patch(case.ask_mode)).await;
    let sid = "un-restart";
    rig.open(sid, json!({ "mode": case.unattended_mode })).await;
    let run = rig.run_turn(sid, "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let agent = one_agent_group(rig, rig.spec.cli);
    kill_9(&agent);
    assert_gone(&agent).await;
    let end = restarting_turn(rig, sid, "please run `touch restarted.txt`").await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(rig.cwd().join("restarted.txt").exists(), "the command ran");
    assert!(!asked(rig, sid), "the restarted session asked");
    rig.finish(sid).await;
    rig.finish("un-other").await;
}
