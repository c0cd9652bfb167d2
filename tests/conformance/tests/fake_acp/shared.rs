//! Sessions sharing one fake agent process: a crash fails every running turn and each next
//! prompt brings its own native session back on one new process; a close (with a turn
//! running) leaves the other session and the process running.

use super::{say, FakeRig};
use agent_bridge_conformance::rig::last_assistant_text;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::collections::BTreeSet;

fn scenario() -> Value {
    json!({"turns": [
        {"match": "wait", "steps": [say("waiting"), {"waitCancel": true}]},
        {"match": "crash", "once": true, "steps": [say("going down"), {"exit": 9}]},
    ]})
}

/// `(pid, sessionId)` of each `method` the fake received.
fn calls_by_pid(rig: &FakeRig, method: &str) -> Vec<(u64, Value)> {
    rig.received()
        .into_iter()
        .filter(|m| m["msg"]["method"] == method)
        .map(|m| {
            (
                m["pid"].as_u64().unwrap_or(0),
                m["msg"]["params"]["sessionId"].clone(),
            )
        })
        .collect()
}

/// One session's crash is both sessions': both running turns fail; the next prompts (at once)
/// restart the agent once and each loads its own session, with one notice each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_of_the_shared_process_fails_both_turns_and_both_come_back() {
    let rig = FakeRig::start(scenario()).await;
    rig.open("a", json!({})).await;
    rig.open("b", json!({})).await;
    let (_, waiting) = rig.start_turn("a", "please wait").await;
    rig.wait_streaming("a").await;
    let (_, crashing) = rig.start_turn("b", "crash now").await;
    for (sid, turn) in [("a", &waiting), ("b", &crashing)] {
        let end = rig.turn_end(sid, turn).await;
        assert_eq!(end.turn_state(), Some("failed"), "{end}");
        assert!(
            end.string_at("/error/message")
                .contains("exited unexpectedly"),
            "{end}"
        );
    }
    let (a, b) = tokio::join!(rig.run_turn("a", "back a"), rig.run_turn("b", "back b"));
    assert_eq!(a.state(), "completed", "{:?}", a.end);
    assert_eq!(b.state(), "completed", "{:?}", b.end);
    assert_eq!(last_assistant_text(&rig.timeline("a")), "echo: back a");
    assert_eq!(last_assistant_text(&rig.timeline("b")), "echo: back b");
    let first = calls_by_pid(&rig, "session/new");
    let loads = calls_by_pid(&rig, "session/load");
    let loaded: BTreeSet<String> = loads
        .iter()
        .map(|(_, s)| s.as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        loaded,
        BTreeSet::from(["fake-1".to_string(), "fake-2".to_string()]),
        "each its own session"
    );
    let pids: BTreeSet<u64> = loads.iter().map(|(p, _)| *p).collect();
    assert_eq!(pids.len(), 1, "one new process for both: {loads:?}");
    assert!(
        !first.iter().any(|(p, _)| pids.contains(p)),
        "a new process"
    );
    for sid in ["a", "b"] {
        let notices: Vec<String> = rig
            .host
            .session_events(sid)
            .iter()
            .filter(|e| e.is("session.notice"))
            .map(|e| e.string_at("/notice/id"))
            .collect();
        assert_eq!(notices.len(), 1, "{sid}: {notices:?}");
        assert!(
            notices[0].starts_with("agent-restarted"),
            "{sid}: {notices:?}"
        );
    }
    rig.finish("a").await;
    rig.finish("b").await;
}

/// Closing one session with a turn running cancels that turn and closes its native session;
/// the other session goes on, on the same process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_one_session_leaves_the_other_and_the_process() {
    let rig = FakeRig::start(scenario()).await;
    rig.open("stay", json!({})).await;
    rig.open("go", json!({})).await;
    let (_, turn) = rig.start_turn("go", "please wait").await;
    rig.wait_streaming("go").await;
    rig.finish("go").await;
    let end = rig.turn_end("go", &turn).await;
    assert!(end.turn_state().is_some(), "{end}");
    assert_eq!(
        rig.calls("session/cancel"),
        vec![json!({"sessionId": "fake-2"})]
    );
    assert_eq!(
        rig.calls("session/close"),
        vec![json!({"sessionId": "fake-2"})]
    );
    let run = rig.run_turn("stay", "still here").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let prompts = calls_by_pid(&rig, "session/prompt");
    let pids: BTreeSet<u64> = prompts.iter().map(|(p, _)| *p).collect();
    assert_eq!(pids.len(), 1, "the same process: {prompts:?}");
    rig.finish("stay").await;
}
