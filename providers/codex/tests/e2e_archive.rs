//! Archive and unarchive end to end with the real pinned `codex app-server`: an archived thread
//! leaves the session list, an unarchived one comes back and still resumes.

mod common;

use common::*;
use serde_json::{json, Value};

/// The thread ids of the session list for the rig's folder.
async fn listed(rig: &Rig) -> Vec<Value> {
    let cwd = rig.cwd().display().to_string();
    let answer = rig
        .ask(
            "list",
            |rid| json!({"type": "sessions", "requestId": rid, "cwd": cwd}),
        )
        .await;
    assert!(answer.is("sessions"), "{answer}");
    answer
        .at("/sessions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.pointer("/persistence/data/threadId").cloned())
        .collect()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archived_thread_leaves_the_session_list_and_comes_back_unarchived() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-arc", json!({})).await;
    let persistence = opened
        .iter()
        .find(|e| e.is("session.opened"))
        .and_then(|e| e.at("/persistence").cloned())
        .expect("persistence at open");
    let run = rig.run_turn("s-arc", "say hi before archiving").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s-arc").await;
    let thread = persistence["data"]["threadId"].clone();
    assert!(listed(&rig).await.contains(&thread), "listed at first");

    let p = persistence.clone();
    let answer = rig
        .ask(
            "arc",
            |rid| json!({"type": "session.archive", "requestId": rid, "persistence": p}),
        )
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    assert!(
        !listed(&rig).await.contains(&thread),
        "an archived thread is not listed"
    );

    let p = persistence.clone();
    let answer = rig
        .ask(
            "unarc",
            |rid| json!({"type": "session.unarchive", "requestId": rid, "persistence": p}),
        )
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    assert!(listed(&rig).await.contains(&thread), "listed again");

    // The unarchived thread resumes with its history.
    let reopened = rig.resume("s-arc2", json!({}), persistence.clone()).await;
    assert!(
        reopened
            .iter()
            .any(|e| e.is("timeline.item") && e.to_string().contains("say hi before archiving")),
        "history replayed: {reopened:#?}"
    );
    rig.finish("s-arc2").await;

    // Archiving a thread Codex does not know fails with Codex's reason.
    let unknown =
        json!({"version": 1, "data": {"threadId": "00000000-0000-0000-0000-000000000000"}});
    let answer = rig
        .ask(
            "arc-bad",
            |rid| json!({"type": "session.archive", "requestId": rid, "persistence": unknown}),
        )
        .await;
    assert!(answer.is("request.failed"), "{answer}");
    rig.host.assert_invariants();
    rig.report("archive-unarchive");
}
