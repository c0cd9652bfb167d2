//! Sessions sharing one ACP agent process (the default for sessions with the same launch): two
//! run turns at once (one waits on a permission while the other completes a turn); a `kill -9`
//! of the process fails both running turns and each next prompt brings its own native session
//! back on one new process; a close leaves the other session and the process running; the last
//! close leaves the process as the provider's spare (taken by the next open, gone after its idle
//! time or with the bridge).

use super::{mode_patch, Case};
use agent_bridge_conformance::agent_groups::{
    agent_groups, group_id as group, leader_alive, one_agent_group,
};
use agent_bridge_conformance::kill::{
    assert_gone, restarting_turn, slow_reply_under_way, KillCase,
};
use agent_bridge_conformance::spare::{self, Exit};
use agent_bridge_conformance::{AgentRig, HostOptions, ProcInfo, RigSpec};
use serde_json::json;
use std::time::Duration;

fn agents(rig: &AgentRig) -> Vec<Vec<ProcInfo>> {
    agent_groups(rig, rig.spec.cli)
}

fn one_agent(rig: &AgentRig) -> Vec<ProcInfo> {
    one_agent_group(rig, rig.spec.cli)
}

/// SIGKILLs the agent itself (the newest process of its group that is not its guard).
fn kill_9(group: &[ProcInfo]) {
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

/// Two sessions on one agent process: one waits on a permission (as long as it takes) while
/// the other completes a turn; the permission is the first's only.
pub async fn shared_two_sessions_at_once(rig: &AgentRig, case: Case) {
    rig.open("sh-ask", mode_patch(case.ask_mode)).await;
    rig.open("sh-other", json!({ "mode": case.unattended_mode }))
        .await;
    let agent = one_agent(rig);
    let (_, asking) = rig
        .start_turn("sh-ask", "please run `touch shared.txt`")
        .await;
    let (_, pid) = rig.wait_permission("sh-ask", None).await;
    let other = rig.run_turn("sh-other", "say hi").await;
    assert_eq!(other.state(), "completed", "{:?}", other.end);
    assert!(
        !rig.host
            .session_events("sh-other")
            .iter()
            .any(|e| e.is("session.permission")),
        "the permission is sh-ask's only"
    );
    assert!(!rig.cwd().join("shared.txt").exists());
    rig.answer_permission("sh-ask", &pid, json!({"behavior": "allow"}))
        .await;
    let end = rig.turn_end("sh-ask", &asking).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(rig.cwd().join("shared.txt").exists());
    assert_eq!(
        group(&one_agent(rig)),
        group(&agent),
        "still the one process"
    );
    rig.finish("sh-ask").await;
    rig.finish("sh-other").await;
    assert_gone(&agent).await;
}

/// `kill -9` of the shared process with a turn running in each session: both fail with the
/// exit status; each next prompt restarts the agent (once, for both) and brings its own
/// native session back, with one warning notice each.
pub async fn shared_kill_9(rig: &AgentRig, case: KillCase) {
    let sessions = [("sh-a", "APPLE-SHARED-3"), ("sh-b", "BANANA-SHARED-4")];
    for (sid, _) in sessions {
        rig.open(sid, json!({ "mode": case.unattended_mode })).await;
    }
    for (sid, word) in sessions {
        let run = rig
            .run_turn(sid, &format!("say hi, and remember the word {word}"))
            .await;
        assert_eq!(run.state(), "completed", "{:?}", run.end);
    }
    let mut turns = Vec::new();
    for (sid, _) in sessions {
        let prompt = "SLOW please write a long text";
        let (_, turn) = rig.start_turn(sid, prompt).await;
        slow_reply_under_way(rig, sid, prompt, case.streams_text).await;
        turns.push((sid, turn));
    }
    let agent = one_agent(rig);
    let shown: Vec<usize> = sessions
        .iter()
        .map(|(sid, _)| rig.host.session_events(sid).len())
        .collect();
    kill_9(&agent);
    for (sid, turn) in &turns {
        let end = rig.turn_end(sid, turn).await;
        assert_eq!(end.turn_state(), Some("failed"), "{end}");
        assert!(
            end.string_at("/error/message")
                .contains("exited unexpectedly"),
            "{end}"
        );
    }
    assert_gone(&agent).await;

    rig.mock.clear_requests();
    let (a, b) = tokio::join!(
        restarting_turn(rig, "sh-a", "which word did I ask you to remember, a?"),
        restarting_turn(rig, "sh-b", "which word did I ask you to remember, b?"),
    );
    for end in [&a, &b] {
        assert_eq!(end.turn_state(), Some("completed"), "{end}");
    }
    let again = one_agent(rig);
    assert_ne!(group(&again), group(&agent), "a new process, one for both");
    let kind = if case.keeps_context_on_restart {
        "agent-restarted"
    } else {
        "agent-conversation-lost"
    };
    let requests: Vec<String> = rig
        .mock
        .model_requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    for (i, (sid, word)) in sessions.iter().enumerate() {
        let events = rig.host.session_events(sid);
        let after = &events[shown[i]..];
        let notices: Vec<String> = after
            .iter()
            .filter(|e| e.is("session.notice"))
            .map(|e| e.string_at("/notice/id"))
            .collect();
        assert_eq!(notices.len(), 1, "{sid}: {notices:?}");
        assert!(notices[0].starts_with(kind), "{sid}: {notices:?}");
        assert!(!events.iter().any(|e| e.is("session.runtime_failed")));
        let results = events
            .iter()
            .filter(|e| e.is("session.prompt_result"))
            .count();
        assert_eq!(results, 3, "{sid}: one result per prompt");
        let other = sessions.iter().find(|(s, _)| s != sid).map(|(_, w)| *w);
        let letter = &sid[3..];
        let mine = requests
            .iter()
            .filter(|b| b.contains(&format!("remember, {letter}?")))
            .collect::<Vec<_>>();
        assert!(!mine.is_empty(), "{sid}'s request: {requests:#?}");
        assert!(
            mine.iter().any(|b| b.contains(word)),
            "{sid}: its conversation reaches the model"
        );
        assert!(
            other.is_none_or(|w| !mine.iter().any(|b| b.contains(w))),
            "{sid}: not the other session's"
        );
    }
    for (sid, _) in sessions {
        rig.finish(sid).await;
    }
    assert_gone(&again).await;
}

/// Closing one session (with a turn running) leaves the other and the process running; the
/// last close stops the process (no spare unless `AGENT_BRIDGE_SPARE_IDLE_SECS` is set).
pub async fn shared_close_one(rig: &AgentRig, case: Case) {
    rig.open("sh-stay", json!({ "mode": case.unattended_mode }))
        .await;
    rig.open("sh-go", json!({ "mode": case.unattended_mode }))
        .await;
    let agent = one_agent(rig);
    let (_, turn) = rig
        .start_turn("sh-go", "SLOW please write a long text")
        .await;
    rig.wait("sh-go", "timeline.item", |e| {
        e.item_type() == Some("assistant_message")
    })
    .await;
    rig.finish("sh-go").await;
    let end = rig.turn_end("sh-go", &turn).await;
    assert!(end.turn_state().is_some(), "{end}");
    assert!(leader_alive(&agent), "{agent:#?}");
    let run = rig.run_turn("sh-stay", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert_eq!(group(&one_agent(rig)), group(&agent));
    rig.finish("sh-stay").await;
    assert_gone(&agent).await;
    assert!(agents(rig).is_empty());
}

/// The last close leaves the process as the spare; doctor reports it; the next open joins it;
/// a SIGTERM to the bridge leaves nothing of it (the rig keeps spares long: `spare_long_rig`).
pub async fn spare_reused(rig: &AgentRig, case: Case) {
    let patch = json!({ "mode": case.unattended_mode });
    spare::spare_taken_reported_and_gone_with_the_bridge(rig, rig.spec.cli, patch, Exit::Sigterm)
        .await;
}

/// The spare goes after its idle time (`spare_short_rig`: [`spare::SHORT_IDLE`]); the next open starts another.
pub async fn spare_idle(rig: &AgentRig, case: Case) {
    let patch = json!({ "mode": case.unattended_mode });
    spare::spare_goes_after_its_idle_time(rig, rig.spec.cli, patch).await;
}

/// A `processPerSession: true` entry (`per_session_spare_rig` with a long idle time): the next
/// open takes the process started ahead after the previous one.
pub async fn prestarted_spare_reused(rig: &AgentRig, case: Case) {
    let patch = json!({ "mode": case.unattended_mode });
    spare::prestarted_spare_taken_and_gone_with_the_bridge(rig, rig.spec.cli, patch).await;
}

/// A `processPerSession: true` entry (`per_session_spare_rig` with [`spare::SHORT_IDLE`]): the spare started
/// after an open goes after its idle time.
pub async fn prestarted_spare_idle(rig: &AgentRig, case: Case) {
    let patch = json!({ "mode": case.unattended_mode });
    spare::prestarted_spare_goes_after_its_idle_time(rig, rig.spec.cli, patch).await;
}

/// [`super::spare_rig`] whose plugin.json gives the suite's entry `"processPerSession": true` (the
/// workspace's plugin.json otherwise).
pub async fn per_session_spare_rig(spec: RigSpec, idle: &str) -> Option<AgentRig> {
    let dir = agent_bridge_conformance::spare::per_session_plugin_dir(spec.provider);
    let options = HostOptions {
        request_timeout: Duration::from_secs(40),
        ..HostOptions::default()
    }
    .env(agent_bridge_core::spares::IDLE_ENV, idle)
    .env("AGENT_BRIDGE_PLUGIN_DIR", dir.display().to_string());
    AgentRig::start_in(spec, options, |cli, env| spec.launch(cli, env)).await
}
