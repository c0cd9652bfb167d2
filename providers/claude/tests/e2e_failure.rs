//! End-to-end failures (real bridge, real pinned `claude`, mock model): the CLI killed with
//! SIGKILL mid-turn, and an API error from the model server.

mod common;

use agent_bridge_conformance::procs;
use common::*;
use mock_llm::ScriptReply;
use serde_json::{json, Value};
use std::time::Duration;

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_killed_mid_turn_fails_that_turn_only_and_leaves_no_orphan() {
    let Some(rig) = rig().await else { return };
    rig.open("s-dies", json!({})).await;
    // The session's CLI; a spare for the next open may be starting next to it.
    let victim = first_session_cli(&rig);
    assert!(rig.cli_procs().len() <= 2, "{:?}", rig.cli_procs());
    rig.open("s-lives", json!({})).await;
    let (_, turn) = rig.start_turn("s-dies", "SLOW please").await;
    rig.wait_streaming("s-dies").await;
    // Everything in the victim's process group (the CLI and anything it started).
    let group: Vec<procs::ProcInfo> = procs::all_procs()
        .into_iter()
        .filter(|p| p.pgid == victim.pgid)
        .collect();
    // SAFETY: plain kill(2) of a process this test observed.
    unsafe {
        libc::kill(victim.pid, libc::SIGKILL);
    }
    let end = rig.turn_end("s-dies", &turn).await;
    assert_eq!(end.turn_state(), Some("failed"), "{end}");
    let failed = rig.wait("s-dies", "session.runtime_failed", |_| true).await;
    assert!(
        failed
            .at("/error/message")
            .and_then(Value::as_str)
            .is_some_and(|m| m.contains("exited")),
        "{failed}"
    );
    assert!(
        procs::wait_gone(&group, Duration::from_secs(5))
            .await
            .is_empty(),
        "no orphan of the killed CLI"
    );

    // The other session is untouched.
    assert!(!rig
        .host
        .events()
        .iter()
        .any(|e| e.is_for("session.runtime_failed", "s-lives")));
    let run = rig.run_turn("s-lives", "say hi").await;
    assert_eq!(run.state(), "completed");

    // A prompt to the dead session is answered with a failure, not a hang.
    let cmid = rig
        .host
        .prompt(&rig.conn, "s-dies", "are you there")
        .await
        .expect("admitted");
    let result = rig.prompt_result("s-dies", &cmid).await;
    assert_eq!(result["type"], "failed", "{result}");
    rig.finish("s-lives").await;
    rig.finish("s-dies").await;
    rig.report("kill-9-mid-turn");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_error_fails_the_turn_with_the_cli_message() {
    let Some(rig) = rig().await else { return };
    rig.open("s-err", json!({})).await;
    rig.mock.push_steps([ScriptReply::Error {
        status: 400,
        message: "mock says this request is invalid".into(),
    }]);
    let run = rig.run_turn("s-err", "say hi").await;
    assert_eq!(run.state(), "failed", "{:?}", run.end);
    let message = run.end.string_at("/error/message");
    assert!(
        message.contains("mock says this request is invalid"),
        "the CLI's message: {}",
        run.end
    );
    let diagnostic = run.end.string_at("/error/diagnostic");
    assert!(
        diagnostic.contains("mock says this request is invalid"),
        "diagnostic: {}",
        run.end
    );
    assert_eq!(run.end.at("/error/code"), Some(&json!("api_error")));
    // The session goes on.
    let run = rig.run_turn("s-err", "say hi").await;
    assert_eq!(run.state(), "completed");
    rig.finish("s-err").await;
    rig.report("api-error");
}
