//! Warmed spares (a profile's `spareWarmup`: OpenCode, Kilo): after the last close the fresh
//! spare resumes and closes the session its launch last opened before it is offered, so that
//! the next open's `session/new` is fast. Nothing of it may show: no session is created, none
//! is prompted, and the session reopens on the spare with its history.

use super::{opened_persistence, Case};
use agent_bridge_conformance::agent_groups::one_agent_group;
use agent_bridge_conformance::rig::{last_assistant_text, of_type};
use agent_bridge_conformance::AgentRig;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// What the bridge logs once a spare is warmed.
const WARMED: &str = "spare agent process warmed";

/// The agent's sessions in the rig's folder, as `sessions` lists them.
async fn listed(rig: &AgentRig) -> Value {
    let cwd = rig.cwd().display().to_string();
    let answer = rig
        .ask(
            "list",
            |rid| json!({"type": "sessions", "requestId": rid, "cwd": cwd}),
        )
        .await;
    assert!(answer.is("sessions"), "{answer}");
    answer.at("/sessions").cloned().unwrap_or_default()
}

/// The rig runs with a long idle time. A session runs a turn and closes; the spare that starts
/// is warmed (the bridge's log says so) with that session; then the agent lists that session
/// only, and the session reopens (joining the spare) with its one prompt and reply in the
/// history and runs another turn.
pub async fn spare_warmed_with_the_last_session(rig: &AgentRig, case: Case) {
    let patch = json!({ "mode": case.unattended_mode });
    let opened = rig.open("sw-1", patch.clone()).await;
    let persistence = opened_persistence(&opened);
    let run = rig.run_turn("sw-1", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let reply = last_assistant_text(&rig.timeline("sw-1"));
    assert!(!rig.host.stderr().contains(WARMED), "no spare yet");
    rig.finish("sw-1").await;

    let deadline = Instant::now() + Duration::from_secs(90);
    while !rig.host.stderr().contains(WARMED) {
        assert!(
            Instant::now() < deadline,
            "the spare was not warmed: {}",
            rig.host.stderr()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let spare = one_agent_group(rig, rig.spec.cli);
    let sessions = listed(rig).await;
    let ours = persistence.pointer("/data/sessionId").cloned();
    let mine: Vec<&Value> = sessions
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s.pointer("/persistence/data/sessionId").cloned() == ours)
        .collect();
    assert_eq!(mine.len(), 1, "listed once: {sessions:#?}");
    assert_eq!(
        sessions.as_array().map(Vec::len),
        Some(1),
        "no session created by the warm-up: {sessions:#?}"
    );

    rig.resume("sw-2", patch, persistence).await;
    assert_eq!(
        agent_bridge_conformance::agent_groups::group_id(&one_agent_group(rig, rig.spec.cli)),
        agent_bridge_conformance::agent_groups::group_id(&spare),
        "the reopen joins the warmed spare"
    );
    let replayed = rig.timeline("sw-2");
    assert!(
        of_type(&replayed, "assistant_message")
            .iter()
            .any(|i| i["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty() && reply.contains(t))),
        "the reply `{reply}` replayed: {replayed:#?}"
    );
    assert_eq!(
        of_type(&replayed, "user_message").len(),
        1,
        "the warm-up prompted nothing: {replayed:#?}"
    );
    let run = rig.run_turn("sw-2", "say hi again").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("sw-2").await;
}
