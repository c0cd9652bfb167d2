//! A Codex session survives its app-server's death, through the real bridge and the real
//! pinned `codex app-server`, where Codex differs from the other families: a thread that never
//! got a rollout continues in a new thread. The `kill -9` scenarios every family shares
//! (mid-turn, right after a completed turn, with a pending approval) are
//! `agent_bridge_conformance::kill`, run for codex-bridge by
//! `tests/conformance/tests/agnostic_codex.rs`.

mod common;

use agent_bridge_conformance::procs::ProcInfo;
use agent_bridge_conformance::Event;
use common::*;
use serde_json::json;
use std::time::Duration;

/// SIGKILLs the session's app-server (the native binary behind the npm launcher); returns
/// every codex process of the bridge seen before, to check none survives.
fn kill_app_server(rig: &Rig) -> Vec<ProcInfo> {
    let codex =
        rig.procs_where(|p| p.cmdline.contains("codex") && p.cmdline.contains("app-server"));
    assert!(
        !codex.is_empty(),
        "no codex app-server among {:?}",
        rig.host.descendants()
    );
    let target = codex
        .iter()
        .find(|p| !p.cmdline.contains("node"))
        .unwrap_or(&codex[0]);
    // SAFETY: kill(2) on a pid just read from /proc.
    unsafe {
        libc::kill(target.pid, libc::SIGKILL);
    }
    codex
}

/// Waits until none of `procs` lives (the launcher and what it left go with the group).
async fn assert_all_gone(procs: &[ProcInfo]) {
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        let left: Vec<_> = procs.iter().filter(|p| p.is_alive()).collect();
        if left.is_empty() {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "orphans: {left:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until the bridge took the death in (it logs that the runtime restarts with the next
/// prompt); a session with no turn running shows it nowhere else.
async fn wait_down(rig: &Rig) {
    let deadline = tokio::time::Instant::now() + STEP;
    while !rig
        .host
        .stderr()
        .contains("it restarts with the next prompt")
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the bridge did not notice the death:\n{}",
            rig.host.stderr()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The restart's notice: the agent resumed its conversation, or lost it.
fn is_restart_notice(e: &Event) -> bool {
    e.is("session.notice")
        && matches!(
            e.string_at("/notice/id").as_str(),
            "agent-restarted:1" | "agent-conversation-lost:1"
        )
}

/// The warning notice of the restart, and every event after it.
fn after_restart(events: &[Event]) -> (Event, Vec<Event>) {
    let at = events
        .iter()
        .position(is_restart_notice)
        .unwrap_or_else(|| panic!("a notice says the agent restarted: {events:#?}"));
    (events[at].clone(), events[at + 1..].to_vec())
}

fn assert_no_runtime_failed(rig: &Rig, session_id: &str) {
    let events = rig.host.session_events(session_id);
    assert!(
        !events.iter().any(|e| e.is("session.runtime_failed")),
        "{events:#?}"
    );
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_before_the_first_turn_continues_in_a_new_thread_with_a_notice() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-fresh", json!({})).await;
    let thread = opened
        .iter()
        .find(|e| e.is("session.opened"))
        .map(|e| e.string_at("/persistence/data/threadId"))
        .expect("opened");
    let codex = kill_app_server(&rig);
    assert_all_gone(&codex).await;
    wait_down(&rig).await;

    let run = rig.run_turn("s-fresh", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    // Codex had written nothing of the thread ("no rollout found"): a new thread, announced.
    let lost = rig
        .wait("s-fresh", "session.notice", |e| {
            e.string_at("/notice/id") == "agent-conversation-lost:1"
        })
        .await;
    assert_eq!(
        lost.at("/notice/severity"),
        Some(&json!("warning")),
        "{lost}"
    );
    assert!(
        lost.string_at("/notice/description").contains(&thread),
        "{lost}"
    );
    let handle = rig.wait("s-fresh", "session.persistence", |_| true).await;
    let new_thread = handle.string_at("/persistence/data/threadId");
    assert!(!new_thread.is_empty() && new_thread != thread, "{handle}");
    let events = rig.host.session_events("s-fresh");
    after_restart(&events);
    assert_no_runtime_failed(&rig, "s-fresh");
    // The new thread keeps the conversation from now on.
    let next = rig.run_turn("s-fresh", "and now?").await;
    assert_eq!(next.state(), "completed", "{:?}", next.end);
    let body = rig.last_model_request().body.to_string();
    assert!(
        body.contains("and now?") && body.contains("say hi"),
        "{body}"
    );
    rig.finish("s-fresh").await;
    rig.report("kill-9-before-first-turn-new-thread");
}
